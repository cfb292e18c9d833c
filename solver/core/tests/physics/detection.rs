//! Solver-level Lemma 5.1: hierarchy and flat detection give the same merged contacts and
//! the same step on the same state, over many random poses; the hierarchy checks fewer
//! triangle pairs.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Quat, Vec3};
use msdem_mesh::generate::plane;
use msdem_solver::detect::Detector;
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::params::{BroadPhaseChoice, DetectionMode};
use msdem_solver::world::World;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn random_rotation(rng: &mut Xoshiro256PlusPlus) -> Quat {
    let axis = Vec3::new(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    Quat::from_scaled_axis(axis.normalize() * rng.gen_range(0.0..std::f64::consts::PI))
}

fn scene() -> World {
    let mut world = empty_world(1e-4, [0.0, 0.0, -9.81]);
    for seed in [3, 4] {
        let mesh = noise_mesh(0.5, 2, 1.15, seed);
        let s = add_shape(&mut world, &mesh);
        let m = add_material(&mut world, 1.0, 0.01, 1000.0, 0.4, 0.7);
        add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    }
    let ground = plane([4.0, 4.0], 3, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 0.005, 0.5, 0.5);
    world
}

#[test]
fn hierarchy_and_flat_agree_on_random_poses() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut world = scene();
    let (ra, rb) = (world.state.bodies[0].radius, world.state.bodies[1].radius);
    // One detector per simulated world: the hierarchy's keeps its active sets from pose
    // to pose (its steps run on them), the flat one's searches from scratch.
    let mut det_h = Detector::new(&world.params);
    let mut det_f = Detector::new(&world.params);
    let (mut poses_in_contact, mut checks_h, mut checks_f) = (0, 0u64, 0u64);
    for _ in 0..40 {
        // Particle 0 just above the plane; particle 1 touching it from a random direction.
        let dir = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(0.2..1.0),
        )
        .normalize();
        let bodies = &mut world.state.bodies;
        bodies[0].orientation = random_rotation(&mut rng);
        bodies[1].orientation = random_rotation(&mut rng);
        bodies[0].position = Vec3::new(0.1, -0.2, rng.gen_range(0.47..0.55));
        bodies[1].position = bodies[0].position + dir * (ra + rb) * rng.gen_range(0.88..1.0);
        for b in bodies {
            b.velocity = Vec3::new(rng.gen_range(-1.0..1.0), 0.0, -0.5);
            b.angular_velocity = Vec3::new(0.0, rng.gen_range(-3.0..3.0), 1.0);
        }

        world.params.detection = DetectionMode::Hierarchy;
        let (ch, dh) = detect(&world, &mut det_h);
        world.params.detection = DetectionMode::Flat;
        let (cf, df) = detect(&world, &mut det_f);
        let (pairs_h, sh, pairs_f, sf) = (dh.pairs, dh.stats, df.pairs, df.stats);
        assert_eq!(pairs_h, pairs_f);
        assert_eq!(ch, cf, "merged contacts differ");
        assert!(
            sh.fine <= sf.fine,
            "hierarchy must not check more real pairs"
        );
        assert_eq!(sf.fine, sf.total(), "flat checks only real triangles");
        checks_h += sh.total();
        checks_f += sf.total();
        poses_in_contact += usize::from(!ch.is_empty());

        // One full step from the same state: identical bodies and contact forces (the
        // hierarchy's step on its kept active sets, the flat one's from scratch).
        let mut wh = world.clone();
        wh.params.detection = DetectionMode::Hierarchy;
        let mut wf = world.clone();
        let oh = ExplicitEuler::new(&wh.params)
            .advance(&wh.model, &mut wh.state, &mut det_h, true)
            .unwrap();
        let of = ExplicitEuler::new(&wf.params)
            .advance(&wf.model, &mut wf.state, &mut det_f, true)
            .unwrap();
        assert_eq!(oh.contacts, of.contacts);
        for (a, b) in wh.state.bodies.iter().zip(&wf.state.bodies) {
            assert_eq!((a.position, a.velocity), (b.position, b.velocity));
            assert_eq!(
                (a.orientation, a.angular_velocity),
                (b.orientation, b.angular_velocity)
            );
        }
    }
    assert!(
        poses_in_contact >= 20,
        "only {poses_in_contact} poses in contact"
    );
    assert!(
        checks_h * 5 < checks_f,
        "hierarchy {checks_h} vs flat {checks_f} checks"
    );
}

#[test]
fn hierarchy_checks_100x_fewer_pairs_on_1280_triangle_spheres() {
    let mut world = empty_world(1e-4, [0.0, 0.0, 0.0]);
    for seed in [1, 2] {
        let mesh = noise_mesh(1.0, 3, 1.1, seed);
        let s = add_shape(&mut world, &mesh);
        let m = add_material(&mut world, 1.0, 0.01, 1000.0, 0.0, 1.0);
        add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    }
    world.params.broadphase = BroadPhaseChoice::AllPairs;
    let mut det = Detector::new(&world.params);
    let mut gap = world.state.bodies[0].radius + world.state.bodies[1].radius;
    let hierarchy = loop {
        world.state.bodies[1].position = Vec3::new(gap, 0.0, 0.0);
        let (contacts, d) = detect(&world, &mut det);
        if !contacts.is_empty() {
            break d.stats;
        }
        gap -= 1e-3;
    };
    world.params.detection = DetectionMode::Flat;
    let flat = detect(&world, &mut det).1.stats;
    assert_eq!(flat.total(), 1280 * 1280);
    assert!(
        hierarchy.total() * 100 <= flat.total(),
        "hierarchy {} vs flat {} checks",
        hierarchy.total(),
        flat.total()
    );
}
