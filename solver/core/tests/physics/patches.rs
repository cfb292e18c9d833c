//! Contact forces that do not depend on the triangulation (surface patches,
//! `msdem_solver::contact::patch`) and restitution of multi-point impacts (one dashpot
//! per body pair, `accumulate_forces`), against analytic truth.

use crate::common::world::*;
use msdem_geom::math::Iso3;
use msdem_mesh::generate::{cuboid, icosphere, noise_sphere, plane, NoiseSphere};
use msdem_solver::contact::force::{accumulate_forces, Wrench};
use msdem_solver::contact::pair::PairParams;
use msdem_solver::contact::patch::reference_area;
use msdem_solver::model::smooth::Surface;
use msdem_solver::model::{ContactPoints, Other};
use msdem_solver::world::World;

/// Two 0.2 m cubes of `splits` segments per face edge, face to face at `gap` [m], `b`
/// shifted sideways by `shift` [m]; no gravity.
fn cube_pair(splits: u32, gap: f64, shift: f64, points: ContactPoints, e: f64) -> World {
    cube_pair_on(Surface::Facets, splits, gap, shift, points, e)
}

/// [`cube_pair`] with the cubes' material meeting with `surface`.
pub(crate) fn cube_pair_on(
    surface: Surface,
    splits: u32,
    gap: f64,
    shift: f64,
    points: ContactPoints,
    e: f64,
) -> World {
    let mut w = empty_world(1e-5, [0.0, 0.0, 0.0]);
    w.model.contact_points = points;
    let mesh = cuboid([0.2, 0.2, 0.2], splits).expect("cube");
    let s = add_shape(&mut w, &mesh);
    let m = add_material(&mut w, 1000.0, 0.01, 1000.0, 0.0, e);
    w.model.materials[m as usize].surface = surface;
    add_particle(&mut w, s, m, [0.0, 0.0, 0.2 + gap]);
    add_particle(&mut w, s, m, [shift, 0.0, 0.0]);
    w
}

/// Total contact force on body 0 [N] at the current state.
pub(crate) fn force_on_a(w: &World) -> f64 {
    let mut det = msdem_solver::detect::Detector::new(&w.params);
    let (contacts, _) = detect(w, &mut det);
    let mut wr = vec![Wrench::default(); w.state.bodies.len()];
    accumulate_forces(
        &w.model,
        &w.state.bodies,
        &contacts,
        w.params.dt,
        &mut wr,
        None,
    );
    wr[0].force.z
}

fn spread(v: &[f64]) -> f64 {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (hi - lo) / (0.5 * (hi + lo))
}

#[test]
fn face_to_face_force_does_not_depend_on_the_triangulation() {
    let probe = cube_pair(1, 0.0, 0.0, ContactPoints::Patches, 1.0);
    let b = &probe.state.bodies[0];
    let margin = 2.0 * b.epsilon;
    for (gap, shift) in [
        (0.5 * margin, 0.0),
        (0.3 * margin, 0.0),
        (0.5 * margin, 0.037),
    ] {
        let mut patches = Vec::new();
        let mut seed = Vec::new();
        for splits in [1, 2, 4, 8] {
            patches.push(force_on_a(&cube_pair(
                splits,
                gap,
                shift,
                ContactPoints::Patches,
                1.0,
            )));
            seed.push(force_on_a(&cube_pair(
                splits,
                gap,
                shift,
                ContactPoints::Seed,
                1.0,
            )));
        }
        eprintln!(
            "gap {gap:.3e} m, shift {shift} m: patches {patches:?} N (spread {:.2} %), seed {seed:?} N",
            100.0 * spread(&patches)
        );
        assert!(
            spread(&patches) <= 0.05,
            "gap {gap}, shift {shift}: {patches:?}"
        );
        // The seed's points scale with the vertex count (the defect this model removes).
        assert!(spread(&seed) > 1.0, "{seed:?}");
        if shift == 0.0 {
            // Analytic: k·(A/A_ref)·(m − gap), k = K_s·sqrt(m_eff)/m, A_ref = π·R_eff·m.
            let w = cube_pair(1, gap, 0.0, ContactPoints::Patches, 1.0);
            let pp = PairParams::of(&w.model, &w.state.bodies, 0, Other::Particle(1));
            let r = w.state.bodies[0].radius;
            let truth = pp.stiffness() * 0.04 / reference_area(r, Some(r), margin) * (margin - gap);
            for f in &patches {
                assert!((f / truth - 1.0).abs() < 0.01, "{f} vs analytic {truth} N");
            }
        }
    }
}

/// Explicit steps until the bodies have touched and separated again (at most `max_steps`).
fn step_through_impact(w: &mut World, max_steps: u32) {
    let (mut ex, mut det) = explicit(w);
    let mut touched = false;
    for _ in 0..max_steps {
        let out = ex
            .advance(&w.model, &mut w.state, &mut det, false)
            .expect("step");
        touched |= out.stats.contacts > 0;
        if touched && out.stats.contacts == 0 {
            break;
        }
    }
    assert!(touched, "never touched");
}

/// Rebound ratio of a head-on impact of body 0 onto body 1 along −z at `v0` [m/s].
pub(crate) fn rebound(mut w: World, v0: f64) -> f64 {
    w.state.bodies[0].velocity.z = -v0;
    let approach = -v0;
    step_through_impact(&mut w, 400_000);
    let rel = w.state.bodies[0].velocity.z - w.state.bodies[1].velocity.z;
    -rel / approach
}

#[test]
fn multi_point_face_impacts_rebound_with_the_requested_restitution() {
    for points in [ContactPoints::Seed, ContactPoints::Patches] {
        for e in [0.5, 0.8] {
            for v0 in [0.02, 0.2] {
                let mut w = cube_pair(2, 0.0, 0.0, points, e);
                let margin = 2.0 * w.state.bodies[0].epsilon;
                w.state.bodies[0].position.z += margin * 1.01;
                w.params.dt = 2e-5;
                let r = rebound(w, v0);
                assert!(
                    (r / e - 1.0).abs() < 0.03,
                    "{points:?} e = {e}, v0 = {v0}: {r}"
                );
            }
        }
    }
}

/// Rebound ratio of a 1,280-triangle icosphere (r = 0.1 m) hitting, head-on along −z at
/// `v0` [m/s], a 1,280-triangle icosphere of radius `partner` [m] at rest, or a plane
/// (`None`); frictionless, restitution `e` on both sides, dt = 10⁻⁵ s.
fn sphere_rebound(points: ContactPoints, partner: Option<f64>, e: f64, v0: f64) -> f64 {
    sphere_rebound_on(Surface::Facets, points, partner, e, v0)
}

/// [`sphere_rebound`] with the spheres' material meeting with `surface`.
pub(crate) fn sphere_rebound_on(
    surface: Surface,
    points: ContactPoints,
    partner: Option<f64>,
    e: f64,
    v0: f64,
) -> f64 {
    let mut w = empty_world(1e-5, [0.0, 0.0, 0.0]);
    w.model.contact_points = points;
    let small = add_shape(&mut w, &icosphere(0.1, 3).expect("sphere"));
    let m = add_material(&mut w, 1000.0, 0.01, 2000.0, 0.0, e);
    w.model.materials[m as usize].surface = surface;
    add_particle(&mut w, small, m, [0.0, 0.0, 0.0]);
    let (below, margin) = match partner {
        Some(r) => {
            let big = add_shape(&mut w, &icosphere(r, 3).expect("sphere"));
            add_particle(&mut w, big, m, [0.0, 0.0, 0.0]);
            (r, w.state.bodies[0].epsilon + w.state.bodies[1].epsilon)
        }
        None => {
            let ground = plane([1.0, 1.0], 1, [0.0, 0.0, 0.0]).expect("plane");
            add_obstacle(&mut w, &ground, Iso3::identity(), 0.002, 0.0, e);
            (0.0, w.state.bodies[0].epsilon + 0.002)
        }
    };
    w.state.bodies[0].position.z = 0.1 + below + 1.01 * margin;
    w.state.bodies[0].velocity.z = -v0;
    step_through_impact(&mut w, 400_000);
    let partner_vz = w.state.bodies.get(1).map_or(0.0, |b| b.velocity.z);
    (w.state.bodies[0].velocity.z - partner_vz) / v0
}

/// The restitution list for both contact-point models: sphere–sphere equal and
/// unequal (r 0.1/0.2 m) and sphere–plane, at impact speeds spanning 10×, within 3 % of
/// the requested e (cube face–face: `multi_point_face_impacts_…` above; a vertex-first
/// icosahedron on a plane over 100×: `motion::rebound_speed_ratio_…`).
#[test]
fn sphere_impacts_rebound_with_the_requested_restitution() {
    for points in [ContactPoints::Patches, ContactPoints::Seed] {
        for (name, partner) in [
            ("equal pair", Some(0.1)),
            ("unequal pair", Some(0.2)),
            ("plane", None),
        ] {
            for e in [0.5, 0.9] {
                for v0 in [0.05, 0.5] {
                    let r = sphere_rebound(points, partner, e, v0);
                    eprintln!(
                        "{points:?} {name}: e = {e}, v0 = {v0} m/s: rebound {r:.5} ({:+.2} %)",
                        100.0 * (r / e - 1.0)
                    );
                    assert!(
                        (r / e - 1.0).abs() < 0.03,
                        "{points:?} {name}: e = {e}, v0 = {v0}: {r}"
                    );
                }
            }
        }
    }
}

/// Kinetic energy (translational and rotational) after an elastic (e = 1), frictionless
/// impact of two 1,280-triangle noisy spheres (η = 1.1), relative to before, head-on and
/// off-centre, at two time steps.
fn elastic_energy_ratio(points: ContactPoints, dt: f64, ra: f64, rb: f64, offset: f64) -> f64 {
    elastic_energy_ratio_on(Surface::Facets, points, dt, ra, rb, offset)
}

/// [`elastic_energy_ratio`] with the spheres' material meeting with `surface`.
pub(crate) fn elastic_energy_ratio_on(
    surface: Surface,
    points: ContactPoints,
    dt: f64,
    ra: f64,
    rb: f64,
    offset: f64,
) -> f64 {
    let noisy = |radius: f64, seed: u32| {
        noise_sphere(&NoiseSphere {
            radius,
            subdivisions: 3,
            eta: 1.1,
            seed,
            ..NoiseSphere::default()
        })
        .expect("sphere")
    };
    let mut w = empty_world(dt, [0.0, 0.0, 0.0]);
    w.model.contact_points = points;
    let small = add_shape(&mut w, &noisy(ra, 1));
    let big = add_shape(&mut w, &noisy(rb, 2));
    let m = add_material(&mut w, 2500.0, 0.03, 5000.0, 0.0, 1.0);
    w.model.materials[m as usize].surface = surface;
    add_particle(&mut w, small, m, [0.0, 0.0, 0.0]);
    add_particle(&mut w, big, m, [0.0, offset, 0.0]);
    let (r0, r1) = (w.state.bodies[0].radius, w.state.bodies[1].radius);
    let margin = w.state.bodies[0].epsilon + w.state.bodies[1].epsilon;
    w.state.bodies[0].position.z = r0 + r1 + 1.01 * margin;
    w.state.bodies[0].velocity.z = -1.0;
    w.state.bodies[1].velocity.z = 1.0;
    let kinetic = |w: &World| -> f64 {
        w.state
            .bodies
            .iter()
            .map(|b| {
                let r = b.orientation.to_rotation_matrix();
                let inertia = r.matrix() * b.inertia * r.matrix().transpose();
                0.5 * b.mass * b.velocity.norm_squared()
                    + 0.5 * b.angular_velocity.dot(&(inertia * b.angular_velocity))
            })
            .sum()
    };
    let before = kinetic(&w);
    step_through_impact(&mut w, 100_000);
    kinetic(&w) / before
}

/// e = 1 conserves kinetic energy through the impact within 0.1 % with surface patches
/// (curved faces are held by the deepest fine pair's spring, a continuous potential),
/// the error shrinking with dt (5·10⁻⁵, 10⁻⁵, 2·10⁻⁶ s).
/// The seed's merged points (cluster averages that jump as fine pairs come and go) lose
/// or gain up to 6.6 % here, at either time step (`docs/design.md` §3).
#[test]
fn elastic_impacts_conserve_kinetic_energy_with_patches() {
    for (ra, rb, offset) in [(0.1, 0.2, 0.0), (0.1, 0.1, 0.02), (0.1, 0.2, 0.05)] {
        let mut errors = Vec::new();
        for dt in [5e-5, 1e-5, 2e-6] {
            let r = elastic_energy_ratio(ContactPoints::Patches, dt, ra, rb, offset);
            let seed = elastic_energy_ratio(ContactPoints::Seed, dt, ra, rb, offset);
            eprintln!(
                "r {ra}/{rb}, offset {offset} m, dt {dt:e} s: energy change patches {:+.4} %, seed {:+.4} %",
                100.0 * (r - 1.0),
                100.0 * (seed - 1.0)
            );
            assert!(
                (r - 1.0).abs() < 1e-3,
                "r {ra}/{rb}, offset {offset}, dt {dt}: {r}"
            );
            errors.push((r - 1.0).abs());
        }
        // The error is the integrator's, not a non-conservative force's: it shrinks with
        // every step of dt, and is at least 4x smaller at 25x smaller dt (with the tied
        // floor normals averaged across features it stayed at −0.0051 %, −0.0053 %,
        // −0.0060 % off-centre).
        assert!(
            errors[1] < errors[0] && errors[2] < errors[1] && errors[2] < 0.25 * errors[0],
            "r {ra}/{rb}, offset {offset}: {errors:?}"
        );
    }
}
