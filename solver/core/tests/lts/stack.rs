//! A settled stack of cubes under gravity (seed 004 Observation 4): no jitter, no time
//! step collapse, real meshes never touch.

use crate::scenes::{min_mesh_distance, run, stack_world};
use msdem_mesh::generate::plane;
use msdem_solver::integrator::lts::{LocalTimeStepping, LtsMode};
use msdem_solver::model::Other;

#[test]
fn a_settled_stack_of_cubes_stays_at_rest_without_step_collapse() {
    let dt = 1e-3;
    let (mut world, mesh) = stack_world(4, dt, 0.4);
    let floor = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap();
    let g = 9.81;
    let eps = world.state.bodies[0].epsilon;
    let mut settled_min_step = f64::INFINITY;
    let mut max_speed: f64 = 0.0;
    let mut top_z = Vec::new();
    let mut closest = f64::INFINITY;
    let mut step = 0;
    run(&mut world, LtsMode::Local, |w, s| {
        step += 1;
        if step % 20 == 0 {
            closest = closest.min(min_mesh_distance(w, &mesh, Some(&floor)));
        }
        if w.state.time > 0.1 {
            settled_min_step = settled_min_step.min(s.min_step);
            for b in &w.state.bodies {
                max_speed = max_speed.max(b.velocity.norm());
            }
            top_z.push(w.state.bodies[3].position.z);
        }
    });
    let (lo, hi) = top_z
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &z| {
            (a.min(z), b.max(z))
        });
    eprintln!(
        "stack: settled min step {settled_min_step:e} s, max speed {max_speed:e} m/s, \
         top cube z in [{lo}, {hi}], closest real meshes {closest:e} m"
    );
    assert!(
        settled_min_step >= 0.5 * dt,
        "step collapse: {settled_min_step:e} s"
    );
    // One interval of free fall gains g·dt; the impulses leave at most a few times that.
    assert!(max_speed <= 2.0 * g * dt, "jitter: speed {max_speed} m/s");
    assert!(hi - lo <= 0.25 * eps, "top cube drifts by {} m", hi - lo);
    assert!(closest > 0.0, "real meshes touched: {closest}");
}

/// The frame's contact records of a settled stack (issue 12): every face carries the
/// weight of the cubes above it (force = impulse over the step), the floor all four, and
/// the wrenches sum the records; the warm start keeps the impulse sweeps per collision low.
#[test]
fn a_settled_stack_records_its_weight_in_the_contact_records() {
    let dt = 1e-3;
    let (mut world, _) = stack_world(4, dt, 0.4);
    let mut lts = LocalTimeStepping::new(&world.params, LtsMode::Local);
    let n = world.state.bodies.len();
    let weight = world.state.bodies[0].mass * 9.81;
    let (mut sweeps, mut collisions) = (0_u64, 0_u64);
    for k in 0..400 {
        let (stats, _) = lts
            .advance_interval(&world.model, &mut world.state)
            .unwrap_or_else(|e| panic!("{e}"));
        if k < 100 {
            continue;
        }
        sweeps += stats.impulse_iterations;
        collisions += stats.collisions;
        let (records, wrenches) = lts.contact_records(&world.state.bodies);
        assert_eq!(wrenches.len(), n);
        // Load through the face below cube i: the weight of cubes i..n.
        for (i, wrench) in wrenches.iter().enumerate() {
            let below: f64 = records
                .iter()
                .filter(|r| match r.b {
                    Other::Obstacle(_) => i == 0,
                    Other::Particle(j) => r.a as usize == i && j as usize == i - 1,
                })
                .map(|r| r.force[2])
                .sum::<f64>()
                + records
                    .iter()
                    .filter(|r| i > 0 && r.a as usize == i - 1 && r.b == Other::Particle(i as u32))
                    .map(|r| -r.force[2])
                    .sum::<f64>();
            let carried = (n - i) as f64 * weight;
            assert!(
                (below - carried).abs() <= 0.02 * carried,
                "interval {k}: face below cube {i} carries {below} N, weight above {carried} N"
            );
            // Net contact force on a resting cube balances its own weight.
            assert!(
                (wrench.force.z - weight).abs() <= 0.02 * weight,
                "interval {k}: cube {i} net contact force {} N, weight {weight} N",
                wrench.force.z
            );
        }
    }
    eprintln!(
        "settled 4-cube stack: {sweeps} impulse sweeps in {collisions} cluster collisions ({:.1} per collision)",
        sweeps as f64 / collisions.max(1) as f64
    );
}
