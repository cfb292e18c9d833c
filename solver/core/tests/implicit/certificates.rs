//! Multiscale Picard skips the active pairs whose separation certificate decides their
//! outcome (temporal coherence). The certificates are exact: on randomised motions the
//! skipping path and a forced re-check of every active pair in every iteration give the
//! same contacts, forces, widenings, narrowings and states, bit for bit, within a time step
//! and across steps — while the skipping path checks far fewer pairs. Likewise, reusing
//! the previous step's evaluation of the accepted state in a step's first iteration
//! changes nothing.

use crate::common::implicit::*;
use msdem_geom::math::Vec3;
use msdem_solver::integrator::implicit::{ImplicitOutput, PicardParams, PicardVariant};
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random kick of every particle's velocity [m/s] and angular velocity [rad/s].
fn kick(w: &mut World, rng: &mut Xoshiro256PlusPlus, dv: f64, dw: f64) {
    for b in &mut w.state.bodies {
        b.velocity += Vec3::from_fn(|_, _| rng.gen_range(-dv..=dv));
        b.angular_velocity += Vec3::from_fn(|_, _| rng.gen_range(-dw..=dw));
    }
}

fn total_checks(o: &ImplicitOutput) -> u64 {
    let c = &o.stats.checks_per_level;
    c[..c.len() - 1].iter().sum()
}

/// Runs `steps` multiscale steps from `base` twice — skipping certified pairs and
/// keeping the contacts of particle pairs that did not move (local updates), and
/// re-checking every active pair of every particle pair — with the same random kicks;
/// everything but the check counts agrees. Returns the particle pairs kept.
fn skipping_equals_rechecking(base: World, steps: usize, seed: u64, dv: f64, dw: f64) -> u64 {
    let params = PicardParams::default();
    let (mut w_skip, mut w_all) = (base.clone(), base);
    let m = PicardVariant::Multiscale;
    let (mut im_skip, mut det_skip) = picard(&w_skip, &params, m);
    let (mut im_all, mut det_all) = picard(&w_all, &params, m);
    det_all.set_recheck_all(true);
    let mut rng_skip = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut rng_all = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut checks_skip, mut checks_all, mut skipped, mut contact_steps) = (0, 0, 0, 0);
    let mut kept = 0;
    for s in 0..steps {
        kick(&mut w_skip, &mut rng_skip, dv, dw);
        kick(&mut w_all, &mut rng_all, dv, dw);
        let a = im_skip
            .advance(&w_skip.model, &mut w_skip.state, &mut det_skip, true)
            .unwrap();
        let b = im_all
            .advance(&w_all.model, &mut w_all.state, &mut det_all, true)
            .unwrap();
        assert_eq!(a.stats.iterations, b.stats.iterations, "step {s}");
        assert_eq!(a.contacts, b.contacts, "step {s}: contacts and forces");
        assert_eq!(im_skip.contacts(), im_all.contacts(), "step {s}");
        for (i, (x, y)) in a.per_iteration.iter().zip(&b.per_iteration).enumerate() {
            let what = format!("step {s} iteration {i}");
            assert_eq!(x.contacts, y.contacts, "{what}");
            assert_eq!(x.coarse_contacts, y.coarse_contacts, "{what}");
            assert_eq!(x.unfolds, y.unfolds, "{what}");
            assert_eq!(x.narrows, y.narrows, "{what}");
            assert_eq!(x.residual.to_bits(), y.residual.to_bits(), "{what}");
            assert_eq!(y.skipped, 0, "{what}: the re-checking path skips nothing");
            assert_eq!(y.kept, 0, "{what}: the re-checking path keeps nothing");
            assert_eq!(x.moved, y.moved, "{what}");
            kept += u64::from(x.kept);
        }
        for (p, q) in w_skip.state.bodies.iter().zip(&w_all.state.bodies) {
            assert_eq!(p.position, q.position, "step {s}");
            assert_eq!(p.orientation, q.orientation, "step {s}");
            assert_eq!(p.velocity, q.velocity, "step {s}");
            assert_eq!(p.angular_velocity, q.angular_velocity, "step {s}");
        }
        det_skip
            .validate_kept_sets(&w_skip.model, &w_skip.state)
            .unwrap_or_else(|e| panic!("step {s}: {e}"));
        checks_skip += total_checks(&a);
        checks_all += total_checks(&b);
        skipped += a.skipped;
        contact_steps += usize::from(a.stats.contacts > 0);
    }
    assert!(contact_steps > 0, "the scenario must have contacts");
    assert!(skipped > 0, "nothing was skipped");
    assert!(
        2 * checks_skip < checks_all,
        "skipping checked {checks_skip} pairs, re-checking {checks_all}"
    );
    kept
}

#[test]
fn skipping_equals_rechecking_for_a_kicked_colliding_pair() {
    let mut w = colliding_pair(2, KernelChoice::Hybrid, 0.4, 0.3, 0.8);
    w.params.dt = 2e-4;
    skipping_equals_rechecking(w, 40, 11, 0.02, 0.2);
}

#[test]
fn skipping_equals_rechecking_for_a_kicked_pair_with_the_exact_kernel() {
    let mut w = colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.8);
    w.params.dt = 2e-4;
    skipping_equals_rechecking(w, 30, 12, 0.05, 0.5);
}

#[test]
fn skipping_equals_rechecking_for_a_kicked_sphere_on_a_slope() {
    let mut w = sphere_on_slope(2, KernelChoice::Hybrid);
    w.params.dt = 5e-4;
    skipping_equals_rechecking(w, 40, 13, 0.01, 0.1);
}

/// A 3 × 2 × 2 block of touching spheres, kicked: particles converge at different
/// iterations, so with local updates some particle pairs keep their contacts — with
/// results identical to detecting every pair again.
#[test]
fn keeping_unmoved_pairs_equals_rechecking_in_a_kicked_cluster() {
    let pair = colliding_pair(1, KernelChoice::Hybrid, 0.0, 0.3, 0.8);
    let d = pair.state.bodies[1].position.x;
    let mut w = world(2e-4, [0.0; 3], KernelChoice::Hybrid);
    for (k, (i, j, l)) in (0..3)
        .flat_map(|i| (0..2).flat_map(move |j| (0..2).map(move |l| (i, j, l))))
        .enumerate()
    {
        let mesh = sphere_mesh(0.5, 1, 10 + k as u32);
        let p = [d * i as f64, d * j as f64, d * l as f64];
        add_sphere(&mut w, &mesh, 0.3, 0.8, p);
    }
    assert!(contact_count(&w) > 0);
    let kept = skipping_equals_rechecking(w, 30, 14, 0.02, 0.2);
    assert!(kept > 0, "no particle pair was kept");
}

/// The first iteration of a step reuses the previous step's evaluation of the same state:
/// runs with and without that reuse (random kicks every fifth step, which change the state
/// and so disable it) give bit-identical iterations, contacts and states.
fn reuse_changes_nothing(base: World, variant: PicardVariant, steps: usize) {
    let params = PicardParams::default();
    let (mut w_re, mut w_new) = (base.clone(), base);
    let (mut im_re, mut det_re) = picard(&w_re, &params, variant);
    let (mut im_new, mut det_new) = picard(&w_new, &params, variant);
    let mut rng_re = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut rng_new = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut reused = 0;
    for s in 0..steps {
        if s % 5 == 4 {
            kick(&mut w_re, &mut rng_re, 0.02, 0.2);
            kick(&mut w_new, &mut rng_new, 0.02, 0.2);
        }
        im_new.forget_last_evaluation();
        let a = im_re
            .advance(&w_re.model, &mut w_re.state, &mut det_re, true)
            .unwrap();
        let b = im_new
            .advance(&w_new.model, &mut w_new.state, &mut det_new, true)
            .unwrap();
        assert_eq!(a.stats.iterations, b.stats.iterations, "step {s}");
        assert_eq!(a.contacts, b.contacts, "step {s}");
        assert!(!b.per_iteration[0].reused);
        let r = a.per_iteration[0].reused;
        assert_eq!(
            r,
            s > 0 && s % 5 != 4,
            "step {s}: reuse only on an unchanged state"
        );
        reused += usize::from(r);
        if r {
            assert_eq!(a.per_iteration[0].checks_per_level.iter().sum::<u64>(), 0);
        }
        for (x, y) in a.per_iteration.iter().zip(&b.per_iteration) {
            assert_eq!(x.residual.to_bits(), y.residual.to_bits(), "step {s}");
            assert_eq!(x.contacts, y.contacts, "step {s}");
        }
        for (p, q) in w_re.state.bodies.iter().zip(&w_new.state.bodies) {
            assert_eq!(p.position, q.position, "step {s}");
            assert_eq!(p.velocity, q.velocity, "step {s}");
            assert_eq!(p.angular_velocity, q.angular_velocity, "step {s}");
        }
    }
    assert!(reused > steps / 2, "{reused} reused");
}

#[test]
fn reusing_the_accepted_state_evaluation_changes_nothing() {
    let mut w = colliding_pair(2, KernelChoice::Hybrid, 0.4, 0.3, 0.8);
    w.params.dt = 2e-4;
    reuse_changes_nothing(w.clone(), PicardVariant::Multiscale, 30);
    reuse_changes_nothing(w, PicardVariant::Surrogate, 15);
    let mut slope = sphere_on_slope(2, KernelChoice::Hybrid);
    slope.params.dt = 5e-4;
    reuse_changes_nothing(slope, PicardVariant::Multiscale, 30);
}
