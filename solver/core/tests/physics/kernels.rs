//! The hybrid kernel (iterative + exact fallback, seed 000 Alg. 4) against the exact kernel in
//! whole explicit simulations of the seed's two test scenarios (§6.1): a head-on particle
//! pair and a particle dropped on a slope. On every step's state both kernels must give the
//! same merged contacts (points within 0.1 of the margin); a contact may only be missing on
//! one side when its distance lies in the kernels' ambiguity band at the margin. The two
//! trajectories, each integrated with its own kernel, must end at the same state.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, slope, NoiseSphere};
use msdem_solver::contact::Contact;
use msdem_solver::detect::Detector;
use msdem_solver::frames::Other;
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;

fn sphere(seed: u32) -> msdem_mesh::TriMesh {
    noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: 3,
        eta: 1.1,
        seed,
        ..NoiseSphere::default()
    })
    .unwrap()
}

/// Two 1,280-triangle noisy spheres flying head-on at 0.5 m/s each, no gravity.
fn pair() -> World {
    let mut world = empty_world(2e-4, [0.0; 3]);
    let m = add_material(&mut world, 1.0, 0.01, 1000.0, 0.0, 0.8);
    for (seed, x, v) in [(5, -0.56, 0.5), (6, 0.56, -0.5)] {
        let s = add_shape(&mut world, &sphere(seed));
        let id = add_particle(&mut world, s, m, [x, 0.02, 0.0]);
        world.state.bodies[id as usize].velocity = Vec3::new(v, 0.0, 0.0);
    }
    world
}

/// One 1,280-triangle noisy sphere dropped on a 20° slope under gravity.
fn on_slope() -> World {
    let mut world = empty_world(2e-4, [0.0, 0.0, -9.81]);
    let m = add_material(&mut world, 1.0, 0.01, 1000.0, 0.5, 0.5);
    let s = add_shape(&mut world, &sphere(7));
    add_particle(&mut world, s, m, [0.0, 0.0, 0.62]);
    let ramp = slope([4.0, 4.0], 20.0, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ramp, Iso3::identity(), 0.005, 0.5, 0.5);
    world
}

fn margin(world: &World, c: &Contact) -> f64 {
    let other = match c.b {
        Other::Particle(j) => world.state.bodies[j as usize].epsilon,
        Other::Obstacle(k) => world.model.obstacles[k as usize].epsilon,
    };
    world.state.bodies[c.a as usize].epsilon + other
}

/// Every contact of `from` has a partner in `to` (same bodies, point within 0.1·margin),
/// unless it lies in the ambiguity band at the margin. Returns the unmatched count.
fn unmatched(world: &World, from: &[Contact], to: &[Contact]) -> usize {
    let mut missing = 0;
    for c in from {
        let m = margin(world, c);
        let found = to
            .iter()
            .any(|d| d.a == c.a && d.b == c.b && (d.point - c.point).norm() <= 0.1 * m);
        if !found {
            assert!(
                c.dist >= 0.9 * m,
                "contact at distance {} (margin {m}) found by one kernel only",
                c.dist
            );
            missing += 1;
        }
    }
    missing
}

/// Runs `steps` explicit steps with the exact kernel and compares the hybrid's contacts on
/// every state; returns (steps with contacts, final exact world).
fn compare_per_step(mut world: World, steps: usize) -> (usize, World) {
    let (mut ex, mut det_exact) = explicit(&world);
    let mut hybrid_params = world.params.clone();
    hybrid_params.kernel = KernelChoice::Hybrid;
    let mut det_hybrid = Detector::new(&hybrid_params);
    let (mut with_contacts, mut band_misses, mut total) = (0, 0, 0);
    for _ in 0..steps {
        // The kernel is the detector's: the same world through the hybrid detector.
        let (hybrid, _) = detect(&world, &mut det_hybrid);
        let (exact, _) = detect(&world, &mut det_exact);
        if !exact.is_empty() {
            with_contacts += 1;
        }
        total += exact.len();
        band_misses += unmatched(&world, &exact, &hybrid);
        band_misses += unmatched(&world, &hybrid, &exact);
        ex.advance(&world.model, &mut world.state, &mut det_exact, false)
            .unwrap();
    }
    assert!(
        band_misses * 100 <= total.max(1),
        "{band_misses} band mismatches among {total} contacts"
    );
    (with_contacts, world)
}

fn final_state_with(mut world: World, kernel: KernelChoice, steps: usize) -> World {
    world.params.kernel = kernel;
    let (mut ex, mut det) = explicit(&world);
    for _ in 0..steps {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
    }
    world
}

fn assert_same_trajectory(world: World, steps: usize) {
    let exact = final_state_with(world.clone(), KernelChoice::Exact, steps);
    let hybrid = final_state_with(world, KernelChoice::Hybrid, steps);
    for (e, h) in exact.state.bodies.iter().zip(&hybrid.state.bodies) {
        let tol = 1e-3 * e.radius;
        assert!(
            (e.position - h.position).norm() <= tol,
            "positions differ: {} vs {}",
            e.position,
            h.position
        );
        assert!(
            (e.velocity - h.velocity).norm() <= 1e-2 * e.velocity.norm().max(0.1),
            "velocities differ: {} vs {}",
            e.velocity,
            h.velocity
        );
    }
}

#[test]
fn hybrid_matches_exact_through_a_head_on_pair_collision() {
    let (with_contacts, end) = compare_per_step(pair(), 400);
    assert!(
        with_contacts > 20,
        "the pair must collide ({with_contacts} steps)"
    );
    // They bounced: particle 0 now moves in −x.
    assert!(end.state.bodies[0].velocity.x < 0.0);
    assert_same_trajectory(pair(), 400);
}

#[test]
fn hybrid_matches_exact_for_a_sphere_hopping_down_a_slope() {
    let (with_contacts, end) = compare_per_step(on_slope(), 600);
    assert!(
        with_contacts > 20,
        "the sphere must land ({with_contacts} steps)"
    );
    // It moves down the slope (towards +y) after landing.
    assert!(end.state.bodies[0].velocity.y > 0.0);
    assert_same_trajectory(on_slope(), 600);
}
