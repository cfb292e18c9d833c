//! The piecewise-linear active-set update (`picard.acceleration: piecewise_linear`): on the
//! stiff colliding pair at ten times the explicit step it converges at the full step in
//! fewer iterations than the relaxed one, to the state the relaxed iteration finds when
//! converged a hundred times tighter, and its
//! results do not depend on the thread count.

use crate::common::implicit::*;
use msdem_solver::contact::stability;
use msdem_solver::integrator::implicit::{
    NoConvergence, PicardAcceleration, PicardParams, PicardVariant,
};
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;

/// The colliding pair of `substep.rs` (seed points) at `factor` times the explicit step.
fn pair(factor: f64) -> World {
    let mut w = colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.5);
    w.model.contact_points = msdem_solver::model::ContactPoints::Seed;
    w.params.dt = factor * stability::stable_dt_estimate(&w.model, &w.state.bodies);
    w.state.bodies[1].position.x -= 0.005;
    w
}

/// Runs `steps` steps of `w` with `params` (multiscale Picard); returns the iterations
/// of each step and the substeps.
fn run(w: &mut World, params: &PicardParams, steps: usize) -> (Vec<u32>, u32) {
    let (mut im, mut det) = picard(w, params, PicardVariant::Multiscale);
    let (mut its, mut substeps) = (Vec::new(), 0);
    for _ in 0..steps {
        let out = im
            .advance(&w.model, &mut w.state, &mut det, false)
            .unwrap_or_else(|e| panic!("{e}"));
        its.push(out.stats.iterations);
        substeps += out.stats.substeps;
    }
    (its, substeps)
}

#[test]
fn the_stiff_pair_converges_at_ten_times_the_explicit_step_to_the_implicit_solution() {
    let base = pair(10.0);
    let steps = 6;
    let pwl = PicardParams {
        acceleration: PicardAcceleration::PiecewiseLinear,
        on_no_convergence: NoConvergence::Stop,
        ..PicardParams::default()
    };
    let mut w = base.clone();
    let (its, substeps) = run(&mut w, &pwl, steps);
    // Every step converged at the full Δt (`Stop` would have failed otherwise).
    assert_eq!(substeps, 0);
    // The relaxed fixed point needs more iterations for the same tolerance.
    let aitken = PicardParams {
        acceleration: PicardAcceleration::Aitken,
        max_iterations: 400,
        on_no_convergence: NoConvergence::Stop,
        ..PicardParams::default()
    };
    let (its_aitken, _) = run(&mut base.clone(), &aitken, steps);
    let (sum, sum_aitken) = (its.iter().sum::<u32>(), its_aitken.iter().sum::<u32>());
    assert!(
        sum < sum_aitken,
        "piecewise linear {its:?} vs Aitken {its_aitken:?}"
    );
    // The implicit solution, converged a hundred times tighter by the relaxed iteration.
    let tight = PicardParams {
        tolerance: 1e-4,
        ..aitken
    };
    let mut reference = base.clone();
    run(&mut reference, &tight, steps);
    let change = (reference.state.bodies[0].velocity - base.state.bodies[0].velocity).norm();
    assert!(change > 0.05, "the pair must interact: {change}");
    let (dx, dv) = state_difference(&w, &reference);
    assert!(dv < 0.01 * change, "Δv {dv} vs change {change}");
    assert!(
        dx < 0.01 * change * steps as f64 * base.params.dt,
        "Δx {dx}"
    );
}

/// Bit-identical states at one and at two rayon threads (every sum of the model in
/// candidate or particle order).
#[test]
fn piecewise_linear_steps_are_deterministic_across_thread_counts() {
    let go = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut w = pair(20.0);
            let params = PicardParams {
                acceleration: PicardAcceleration::PiecewiseLinear,
                ..PicardParams::default()
            };
            run(&mut w, &params, 8);
            w
        })
    };
    let (a, b) = (go(1), go(2));
    for (p, q) in a.state.bodies.iter().zip(&b.state.bodies) {
        assert_eq!(p.position, q.position);
        assert_eq!(p.velocity, q.velocity);
        assert_eq!(p.orientation, q.orientation);
        assert_eq!(p.angular_velocity, q.angular_velocity);
    }
}
