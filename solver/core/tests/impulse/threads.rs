//! The coloured parallel update gives the same bits at any thread count, and its result
//! obeys the conservation laws on a large, densely connected cluster.

use crate::bodies::*;
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::{
    resolve_cluster, ImpulseReport, ImpulseScratch, ImpulseSettings,
};
use msdem_solver::state::Body;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A 12×12×6 lattice of touching spheres with random velocities and spins, spheres of two
/// materials and masses, the bottom layer on the floor `z = 0`.
fn lattice() -> (Vec<Body>, Vec<Contact>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let r = 0.01;
    let pitch = 2.0 * r + 0.9 * EPS;
    let (nx, ny, nz) = (12, 12, 6);
    let mut bodies = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let p = Vec3::new(
                    i as f64 * pitch,
                    j as f64 * pitch,
                    r + 0.9 * EPS + k as f64 * pitch,
                );
                let v = Vec3::new(
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                );
                let material = rng.gen_range(0..2);
                let mut b = sphere(material, rng.gen_range(0.5..2.0), r, p, v);
                b.angular_velocity =
                    Vec3::new(rng.gen_range(-50.0..50.0), 0.0, rng.gen_range(-50.0..50.0));
                bodies.push(b);
            }
        }
    }
    let id = |i: usize, j: usize, k: usize| (i + nx * (j + ny * k)) as u32;
    let mut contacts = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let a = id(i, j, k);
                if k == 0 {
                    contacts.push(plane_contact(&bodies, a, 0, 0.0));
                }
                if i > 0 {
                    contacts.push(sphere_contact(&bodies, a, id(i - 1, j, k)));
                }
                if j > 0 {
                    contacts.push(sphere_contact(&bodies, a, id(i, j - 1, k)));
                }
                if k > 0 {
                    contacts.push(sphere_contact(&bodies, a, id(i, j, k - 1)));
                }
            }
        }
    }
    (bodies, contacts)
}

fn run(threads: usize) -> (Vec<Body>, ImpulseReport) {
    let model = model(&[(0.4, 0.8), (0.2, 0.5)], &[(0.6, 0.7)]);
    let (mut bodies, contacts) = lattice();
    let settings = ImpulseSettings {
        separation_fraction: 0.3,
        ..ImpulseSettings::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let report = pool
        .install(|| {
            let mut scratch = ImpulseScratch::default();
            // Twice through the same scratch: buffers are reused, results do not change.
            let mut copy = bodies.clone();
            resolve_cluster(&model, &mut copy, &contacts, &settings, &mut scratch)?;
            resolve_cluster(&model, &mut bodies, &contacts, &settings, &mut scratch)
        })
        .unwrap();
    (bodies, report)
}

fn bits(bodies: &[Body]) -> Vec<u64> {
    bodies
        .iter()
        .flat_map(|b| {
            b.position
                .iter()
                .chain(b.velocity.iter())
                .chain(b.angular_velocity.iter())
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn one_two_and_four_threads_give_identical_bits() {
    let (one, r1) = run(1);
    let (two, r2) = run(2);
    let (four, r4) = run(4);
    assert_eq!(r1, r2);
    assert_eq!(r1, r4);
    assert!(bits(&one) == bits(&two), "1 vs 2 threads differ");
    assert!(bits(&one) == bits(&four), "1 vs 4 threads differ");
    // The parallel path is taken: the colours hold far more rows than its threshold.
    let contacts = lattice().1.len() as u32;
    assert!(r1.colours >= 6 && r1.colours <= 11, "{r1:?}");
    assert!(
        contacts / r1.colours > 64,
        "{contacts} contacts in {} colours",
        r1.colours
    );
    assert!(r1.active_contacts > 0);
}

#[test]
fn a_large_cluster_conserves_momentum_in_free_space_and_never_gains_energy() {
    // Without the floor, particle–particle impulses conserve linear momentum exactly and,
    // with e ≤ 1 and friction, do not add kinetic energy.
    let model = model(&[(0.4, 1.0), (0.2, 0.5)], &[(0.6, 0.7)]);
    let (mut bodies, mut contacts) = lattice();
    contacts.retain(|c| matches!(c.b, msdem_solver::model::Other::Particle(_)));
    let (p0, k0) = (momentum(&bodies), kinetic(&bodies));
    let report = resolve(
        &model,
        &mut bodies,
        &contacts,
        &ImpulseSettings {
            max_iterations: 2000,
            ..tight()
        },
    );
    let (p1, k1) = (momentum(&bodies), kinetic(&bodies));
    let scale: f64 = bodies.iter().map(|b| b.mass * b.velocity.norm()).sum();
    assert!((p1 - p0).norm() <= 1e-12 * scale, "{p0} → {p1}");
    assert!(k1 <= k0, "{k0} → {k1} ({report:?})");
}
