//! Single-body physics: free fall against the analytic parabola, restitution of an
//! isolated impact, and the non-finite state check.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Quat, Vec3};
use msdem_mesh::generate::{icosphere, plane};
use msdem_solver::contact::stability::stable_dt_estimate;
use msdem_solver::detect::Detector;
use msdem_solver::error::StepError;
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::model::ContactPoints;
use msdem_solver::world::World;

/// Free fall from `x0` with `v0` for 0.25 s: the Euler–Cromer position error against
/// `x0 + v0 t + ½ g t²`.
fn free_fall_error(dt: f64) -> f64 {
    let g = [0.0, -1.0, -9.81];
    let mut world = empty_world(dt, g);
    let mesh = icosphere(0.1, 1).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    let id = add_particle(&mut world, s, m, [0.0, 0.0, 5.0]);
    world.state.bodies[id as usize].velocity = Vec3::new(1.0, 0.0, 2.0);
    world.state.bodies[id as usize].angular_velocity = Vec3::new(0.0, 3.0, 0.0);
    let (mut ex, mut det) = explicit(&world);
    let steps = (0.25 / dt).round() as u64;
    for _ in 0..steps {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
    }
    let t = world.state.time;
    assert!((t - 0.25).abs() < 1e-12);
    let exact =
        Vec3::new(0.0, 0.0, 5.0) + t * Vec3::new(1.0, 0.0, 2.0) + 0.5 * t * t * Vec3::from(g);
    (world.state.bodies[id as usize].position - exact).norm()
}

#[test]
fn free_fall_converges_to_first_order() {
    let e1 = free_fall_error(1e-3);
    let e2 = free_fall_error(5e-4);
    // Euler–Cromer: x_n − x(t_n) = ½·g·Δt·t_n exactly.
    let g = (1.0f64 + 9.81 * 9.81).sqrt();
    assert!((e1 - 0.5 * g * 1e-3 * 0.25).abs() < 1e-9, "{e1}");
    let ratio = e1 / e2;
    assert!(
        (ratio - 2.0).abs() < 1e-3,
        "halving dt must halve the error: {ratio}"
    );
}

/// Icosahedron hitting a plane vertex first (one merged contact below the centre of mass)
/// with normal speed `speed` [m/s]; returns the rebound speed ratio. With surface patches
/// the vertex's overlap integral is below one seed point's spring, so the seed-point floor
/// of `contact::patch` holds it and the rebound is the seed's.
fn rebound_ratio(e: f64, speed: f64, points: ContactPoints) -> f64 {
    let mut world = empty_world(2e-5, [0.0, 0.0, 0.0]);
    world.model.contact_points = points;
    let mesh = icosphere(0.1, 0).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    let ground = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 0.002, 0.0, e);
    let id = add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    // Turn vertex 0 of the icosahedron straight down; lift it 50 steps of flight above
    // the halos.
    let v0 = Vec3::from(mesh.vertices[0]);
    let b = &mut world.state.bodies[id as usize];
    b.orientation = Quat::rotation_between(&v0, &(-Vec3::z())).unwrap();
    b.position.z = 0.1 + b.epsilon + 0.002 + 50.0 * 2e-5 * speed;
    b.velocity = Vec3::new(0.0, 0.0, -speed);
    let (mut ex, mut det) = explicit(&world);
    let mut max_contacts = 0;
    let mut touched = false;
    for _ in 0..20_000 {
        let out = ex
            .advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        max_contacts = max_contacts.max(out.stats.contacts);
        touched |= out.stats.contacts > 0;
        if touched && out.stats.contacts == 0 {
            break;
        }
    }
    assert!(touched);
    assert_eq!(
        max_contacts, 1,
        "vertex-first impact must merge into one contact"
    );
    let b = &world.state.bodies[id as usize];

    // Only single-precision noise of the contact geometry may leak sideways: the trees hold
    // f32 triangles, so a contact normal `(p − q)/|p − q|` over a gap of millimetres is
    // tilted by up to ~1e-5 rad. The seed averages ten such normals at the vertex
    // (measured ≤ 1.2e-7 lateral); the patch floor uses the one deepest pair (≤ 1e-6).
    let lateral = match points {
        ContactPoints::Seed => 1e-6,
        ContactPoints::Patches => 1e-5,
    };
    assert!(
        b.velocity.xy().norm() < lateral * speed && b.angular_velocity.norm() < 1e-4 * speed,
        "{points:?}: lateral {} spin {} per m/s",
        b.velocity.xy().norm() / speed,
        b.angular_velocity.norm() / speed
    );
    b.velocity.z / speed
}

#[test]
fn rebound_speed_ratio_matches_restitution_at_every_speed() {
    // Speeds over two decades; at 1 m/s the peak overlap (≈ v/ω ≈ 2.5 mm undamped) stays
    // inside the 4 mm halo margin.
    for (e, points) in [0.3, 0.6, 0.9, 1.0]
        .into_iter()
        .flat_map(|e| [(e, ContactPoints::Seed), (e, ContactPoints::Patches)])
    {
        for speed in [0.01, 0.1, 1.0] {
            let r = rebound_ratio(e, speed, points);
            // ζ is calibrated in closed form for the capped dashpot, whose impact ODE is
            // homogeneous in (δ, δ̇): e does not depend on the speed. What remains is the
            // error of the explicit integrator, O(ω·Δt) with ω·Δt ≈ 0.008 here (measured:
            // at most 2.1e-4).
            assert!(
                (r - e).abs() < 5e-4,
                "{points:?}: e = {e}, {speed} m/s: ratio {r}"
            );
        }
    }
}

#[test]
fn injected_nan_is_reported_with_particle_id() {
    let mut world = empty_world(1e-3, [0.0, 0.0, -9.81]);
    let mesh = icosphere(0.1, 1).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    for i in 0..4 {
        add_particle(&mut world, s, m, [f64::from(i), 0.0, 0.0]);
    }
    let (mut ex, mut det) = explicit(&world);
    ex.advance(&world.model, &mut world.state, &mut det, false)
        .unwrap();
    world.state.bodies[2].velocity.x = f64::NAN;
    let err = ex
        .advance(&world.model, &mut world.state, &mut det, false)
        .unwrap_err();
    match err {
        StepError::NonFinite {
            step,
            particle,
            quantity,
        } => assert_eq!((step, particle, quantity), (2, 2, "velocity")),
        e => panic!("unexpected {e}"),
    }
    assert!(err_text(&mut world, &mut ex, &mut det).contains("particle 2"));
    // An infinite angular velocity becomes a non-finite orientation during the step.
    world.state.bodies[2].velocity.x = 0.0;
    world.state.bodies[1].angular_velocity.y = f64::INFINITY;
    let err = ex
        .advance(&world.model, &mut world.state, &mut det, false)
        .unwrap_err();
    assert!(
        matches!(err, StepError::NonFinite { particle: 1, .. }),
        "{err}"
    );
}

fn err_text(world: &mut World, ex: &mut ExplicitEuler, det: &mut Detector) -> String {
    ex.advance(&world.model, &mut world.state, det, false)
        .unwrap_err()
        .to_string()
}

#[test]
fn stable_dt_estimate_follows_the_contact_frequency() {
    let mut world = empty_world(1e-4, [0.0, 0.0, -9.81]);
    let estimate = |w: &World| stable_dt_estimate(&w.model, &w.state.bodies);
    assert_eq!(estimate(&world), f64::INFINITY);
    let mesh = icosphere(0.1, 1).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    let id = add_particle(&mut world, s, m, [0.0, 0.0, 1.0]) as usize;
    add_particle(&mut world, s, m, [1.0, 0.0, 1.0]);
    let (mass, eps) = (world.state.bodies[id].mass, world.state.bodies[id].epsilon);
    // Two equal particles: m_eff = M/2, margin 2ε.
    let omega_pp = (1000.0 * (mass / 2.0).sqrt() / (2.0 * eps * mass / 2.0)).sqrt();
    let dt = estimate(&world);
    assert!((dt - 2.0 * std::f64::consts::PI / omega_pp / 20.0).abs() < 1e-12 * dt);
    // A plane with a thin halo is stiffer: m_eff = M, margin ε + 1e-4.
    let ground = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 1e-4, 0.0, 1.0);
    let omega_po = (1000.0 * mass.sqrt() / ((eps + 1e-4) * mass)).sqrt();
    assert!(omega_po > omega_pp);
    let dt = estimate(&world);
    assert!((dt - 2.0 * std::f64::consts::PI / omega_po / 20.0).abs() < 1e-12 * dt);
}
