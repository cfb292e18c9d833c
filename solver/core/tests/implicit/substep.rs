//! A step whose Picard iterations do not converge is never accepted
//! (`picard.on_no_convergence`): `stop` refuses it and leaves the state at the start of the
//! step; `substep` retries it as steps of Δt/2 whose every attempt either meets the
//! tolerance or is split again, and whose result agrees with a tightly converged run of
//! the same substeps.

use crate::common::implicit::*;
use msdem_solver::contact::stability;
use msdem_solver::error::StepError;
use msdem_solver::integrator::implicit::{
    IterationStats, NoConvergence, PicardAcceleration, PicardParams, PicardVariant,
};
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;

/// The colliding pair at ten times the explicit step, pushed into the stiff regime (seed
/// points: the iteration budgets below are calibrated to their forces).
fn stiff_pair() -> World {
    let mut w = colliding_pair(2, KernelChoice::Exact, 0.4, 0.0, 1.0);
    w.model.contact_points = msdem_solver::model::ContactPoints::Seed;
    w.params.dt = 10.0 * stability::stable_dt_estimate(&w.model, &w.state.bodies);
    w.state.bodies[1].position.x -= 0.005;
    w
}

/// The relaxed fixed point with a budget of `budget` iterations (too few for this step).
fn small_budget(budget: u32, on_no_convergence: NoConvergence) -> PicardParams {
    PicardParams {
        max_iterations: budget,
        acceleration: PicardAcceleration::Aitken,
        on_no_convergence,
        ..PicardParams::default()
    }
}

/// The attempts of a step, split where an attempt starts (its first iteration has no
/// previous wrench: infinite residual).
fn attempts(iterations: &[IterationStats]) -> Vec<&[IterationStats]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=iterations.len() {
        if i == iterations.len() || iterations[i].residual.is_infinite() {
            out.push(&iterations[start..i]);
            start = i;
        }
    }
    out
}

#[test]
fn stop_refuses_the_step_and_keeps_the_start_state() {
    for variant in [PicardVariant::Surrogate, PicardVariant::Multiscale] {
        let mut w = stiff_pair();
        let before = w.state.clone();
        let params = small_budget(3, NoConvergence::Stop);
        let (mut im, mut det) = picard(&w, &params, variant);
        let e = im
            .advance(&w.model, &mut w.state, &mut det, false)
            .expect_err("three iterations cannot converge here");
        match &e {
            StepError::NotConverged {
                step,
                time,
                iterations,
                residual,
                tolerance,
                levels,
            } => {
                assert_eq!((*step, *time, *iterations, *levels), (1, 0.0, 3, 0));
                assert!(residual > tolerance, "{e}");
            }
            other => panic!("{variant:?}: {other}"),
        }
        let text = e.to_string();
        assert!(
            text.starts_with("step 1 (t = 0e0 s): Picard iterations did not converge within 3")
                && text.contains("picard.tolerance")
                && text.contains("on_no_convergence: substep"),
            "{text}"
        );
        // Not counted, bodies at the start of the step.
        assert_eq!((w.state.step, w.state.time), (0, 0.0));
        for (a, b) in w.state.bodies.iter().zip(&before.bodies) {
            assert_eq!(a.position, b.position);
            assert_eq!(a.velocity, b.velocity);
        }
    }
}

#[test]
fn substeps_meet_the_tolerance_and_match_a_converged_run_of_the_same_substeps() {
    for variant in [PicardVariant::Surrogate, PicardVariant::Multiscale] {
        let base = stiff_pair();
        let dt = base.params.dt;
        let budget = 5;
        let mut w = base.clone();
        let (mut im, mut det) = picard(&w, &small_budget(budget, NoConvergence::Substep), variant);
        let out = im
            .advance(&w.model, &mut w.state, &mut det, false)
            .unwrap_or_else(|e| panic!("{variant:?}: {e}"));
        assert!(out.converged);
        assert_eq!((w.state.step, w.state.time), (1, dt));
        // Every attempt either converged within the budget or used it up and was split
        // (converged: the last iteration within the tolerance and widening no pair).
        let tries = attempts(&out.per_iteration);
        let converged: Vec<bool> = tries
            .iter()
            .map(|a| {
                a.last()
                    .is_some_and(|it| it.residual <= 0.01 && it.unfolds == 0)
            })
            .collect();
        for (a, &ok) in tries.iter().zip(&converged) {
            assert!(ok || a.len() == budget as usize, "{variant:?}: {a:?}");
        }
        let done = converged.iter().filter(|&&c| c).count() as u32;
        assert_eq!(out.stats.substeps, done, "{variant:?}");
        assert!(
            !converged[0] && done >= 2,
            "{variant:?}: the full step must fail and be split: {converged:?}"
        );
        assert_eq!(out.stats.iterations as usize, out.per_iteration.len());
        // The time steps the attempts stand for: an attempt that failed is replaced by two
        // of half its step, depth first.
        let mut steps = Vec::new();
        let mut next = converged.iter();
        fn walk(h: f64, next: &mut std::slice::Iter<bool>, steps: &mut Vec<f64>) {
            if *next.next().expect("an attempt per step") {
                steps.push(h);
            } else {
                walk(0.5 * h, next, steps);
                walk(0.5 * h, next, steps);
            }
        }
        walk(dt, &mut next, &mut steps);
        assert!(next.next().is_none(), "{variant:?}: attempts left over");
        assert_eq!(steps.len() as u32, done);
        assert_eq!(steps.iter().sum::<f64>(), dt);
        // The same substeps converged tightly give the same state within the tolerance's
        // reach; the full step converged tightly does not.
        let reference = |steps: &[f64]| {
            let mut r = base.clone();
            let tight = PicardParams {
                tolerance: 1e-5,
                max_iterations: 200,
                acceleration: PicardAcceleration::Newton,
                on_no_convergence: NoConvergence::Stop,
                ..PicardParams::default()
            };
            let mut det = msdem_solver::detect::Detector::new(&r.params);
            for &h in steps {
                r.params.dt = h;
                let (mut ri, _) = picard(&r, &tight, variant);
                ri.advance(&r.model, &mut r.state, &mut det, false)
                    .unwrap_or_else(|e| panic!("{variant:?}: reference: {e}"));
            }
            r
        };
        let same = reference(&steps);
        let change = (same.state.bodies[0].velocity - base.state.bodies[0].velocity).norm();
        let (dx, dv) = state_difference(&w, &same);
        let (_, dv_full) = state_difference(&w, &reference(&[dt]));
        assert!(
            change > 0.05,
            "{variant:?}: the pair must interact: {change}"
        );
        assert!(
            dv < 0.01 * change,
            "{variant:?}: Δv {dv} vs change {change}"
        );
        assert!(dx < 0.01 * change * dt, "{variant:?}: Δx {dx}");
        assert!(dv_full > 10.0 * dv, "{variant:?}: {dv_full} vs {dv}");
    }
}

#[test]
fn substeps_stop_at_their_depth_with_the_message() {
    let mut w = stiff_pair();
    let params = PicardParams {
        max_substep_levels: 2,
        ..small_budget(2, NoConvergence::Substep)
    };
    let (mut im, mut det) = picard(&w, &params, PicardVariant::Multiscale);
    let e = im
        .advance(&w.model, &mut w.state, &mut det, false)
        .expect_err("two iterations never converge in contact");
    assert!(
        matches!(e, StepError::NotConverged { levels: 2, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("even at Δt/4"), "{e}");
    assert_eq!(w.state.step, 0);
}

/// Newton steps, the midpoint rule and substeps give bit-identical states at one and at
/// two rayon threads (every sum in contact or particle order).
#[test]
fn newton_midpoint_and_substeps_are_deterministic_across_thread_counts() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut w = stiff_pair();
            let params = PicardParams {
                acceleration: PicardAcceleration::Newton,
                scheme: msdem_solver::params::PicardScheme::Midpoint,
                max_iterations: 3,
                ..PicardParams::default()
            };
            let (mut im, mut det) = picard(&w, &params, PicardVariant::Multiscale);
            let mut substeps = 0;
            for _ in 0..6 {
                let out = im.advance(&w.model, &mut w.state, &mut det, false).unwrap();
                substeps += out.stats.substeps;
            }
            (w, substeps)
        })
    };
    let (a, sa) = run(1);
    let (b, sb) = run(2);
    assert_eq!(sa, sb);
    assert!(sa > 0, "the budget of 3 must split some steps");
    for (p, q) in a.state.bodies.iter().zip(&b.state.bodies) {
        assert_eq!(p.position, q.position);
        assert_eq!(p.velocity, q.velocity);
        assert_eq!(p.orientation, q.orientation);
        assert_eq!(p.angular_velocity, q.angular_velocity);
    }
}
