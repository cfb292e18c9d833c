//! Warm start of the sequential impulses (issue 12): the 5-cube resting stack of
//! [`crate::stack`] solved step after step, cold (every call from zero) against warm (every
//! contact from its impulse of the previous step). Both must leave every cube at rest; the
//! warm start must need far fewer Picard sweeps.

use crate::bodies::*;
use crate::stack::{face_contacts, SIDE};
use msdem_geom::math::Vec3;
use msdem_solver::integrator::lts::impulse::{
    resolve_cluster_warm, ImpulseScratch, ImpulseSettings,
};
use msdem_solver::state::Body;

/// Runs the stack for `steps` collisions and free flights of `dt`; returns the total
/// Picard sweeps, the largest speed after any collision from the tenth on, and the final top height.
fn stack_run(warm: bool, max_iterations: u32, steps: usize) -> (u64, f64, f64) {
    let (g, dt, n) = (9.81, 5e-4, 5_u32);
    let margin = 2.0 * EPS;
    let model = model(&[(0.5, 0.5)], &[(0.5, 0.5)]);
    let mut bodies: Vec<Body> = (0..n)
        .map(|i| {
            let z = 0.5 * SIDE + 0.8 * margin + i as f64 * (SIDE + 0.8 * margin);
            cube(0, 1.0, SIDE, Vec3::new(0.0, 0.0, z))
        })
        .collect();
    let settings = ImpulseSettings {
        max_iterations,
        ..ImpulseSettings::default()
    };
    let mut scratch = ImpulseScratch::default();
    let (mut contacts, mut previous, mut impulses) = (Vec::new(), Vec::new(), Vec::new());
    let (mut sweeps, mut fastest) = (0_u64, 0.0_f64);
    for step in 0..steps {
        contacts.clear();
        for a in 0..n {
            face_contacts(&bodies, a, &mut contacts);
        }
        let start: &[Vec3] = if warm { &previous } else { &[] };
        let report = resolve_cluster_warm(
            &model,
            &mut bodies,
            &contacts,
            start,
            &settings,
            &mut scratch,
            &mut impulses,
        )
        .expect("resolve");
        sweeps += report.iterations as u64;
        assert_eq!(impulses.len(), contacts.len());
        // The impulses balance the weight gravity added in one step (the floor carries all).
        if step > 0 {
            let floor: f64 = impulses[..4].iter().map(|p| p.z).sum();
            let weight = n as f64 * g * dt;
            assert!(
                (floor - weight).abs() <= 0.05 * weight,
                "step {step}: floor impulse {floor}, weight {weight}"
            );
        }
        std::mem::swap(&mut previous, &mut impulses);
        // From step 10 on: the first, cold collisions of a 200-sweep solve leave a
        // little of the approach (see `crate::stack`); the warm start then removes it.
        for b in bodies.iter().filter(|_| step >= 10) {
            fastest = fastest.max(b.velocity.norm() + b.angular_velocity.norm() * 0.5 * SIDE);
        }
        for b in &mut bodies {
            b.velocity.z -= g * dt;
            b.position += b.velocity * dt;
        }
    }
    (sweeps, fastest, bodies[n as usize - 1].position.z)
}

#[test]
fn warm_started_impulses_settle_the_stack_in_fewer_sweeps() {
    let (g, dt) = (9.81, 5e-4);
    let steps = 1000;
    let (cold, cold_speed, cold_top) = stack_run(false, 1000, steps);
    let (warm, warm_speed, warm_top) = stack_run(true, 1000, steps);
    // With the solver's default 200 sweeps the warm start still settles the stack.
    let (warm200, warm200_speed, _) = stack_run(true, 200, steps);
    eprintln!(
        "5-cube stack, {steps} collisions: cold {cold} sweeps (largest speed {cold_speed:e} m/s), \
         warm {warm} sweeps ({warm_speed:e} m/s), warm with at most 200: {warm200} sweeps \
         ({warm200_speed:e} m/s)"
    );
    // The first collision stops the initial approach; after it every cube stays at rest.
    let at_rest = 1e-2 * g * dt;
    assert!(
        warm_speed <= at_rest && warm200_speed <= at_rest,
        "{warm_speed} {warm200_speed}"
    );
    assert!(cold_speed <= at_rest, "{cold_speed}");
    assert!(
        (warm_top - cold_top).abs() <= 1e-3 * EPS,
        "{warm_top} vs {cold_top}"
    );
    assert!(
        4 * warm <= cold,
        "warm start saves too little: {warm} vs {cold} sweeps"
    );
}
