//! The three Picard variants against each other (seed 000 Cor. 5.5, Lemma 5.7): surrogate
//! within Picard reproduces flat Picard up to round-off; multiscale Picard ends every
//! step with exactly the flat contacts of its accepted state and a state within the
//! Picard tolerance of flat Picard's.

use crate::common::implicit::*;
use crate::common::world::detect;
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::detect::Detector;
use msdem_solver::integrator::implicit::{PicardParams, PicardVariant};
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_solver::world::World;

fn same_contacts(a: &[Contact], b: &[Contact]) -> Result<(), String> {
    close_contacts(a, b, 1e-12)
}

/// Same bodies, points, normals and distances within `tol` [m] (normals: [-]).
fn close_contacts(a: &[Contact], b: &[Contact], tol: f64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} vs {} contacts", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.a != y.a
            || x.b != y.b
            || (x.point - y.point).norm() > tol
            || (x.normal - y.normal).norm() > tol
            || (x.dist - y.dist).abs() > tol
        {
            return Err(format!("contact {i}: {x:?} vs {y:?}"));
        }
    }
    Ok(())
}

fn flat_contacts(world: &World) -> Vec<Contact> {
    let mut w = world.clone();
    w.params.detection = DetectionMode::Flat;
    let mut det = Detector::new(&w.params);
    detect(&w, &mut det).0
}

/// Flat and surrogate-within-Picard: same iterations, contacts and states (Cor. 5.5).
fn flat_equals_surrogate(mut base: World, steps: usize, dt: f64) {
    base.params.dt = dt;
    let params = PicardParams::default();
    let (mut wf, mut wsur) = (base.clone(), base);
    let (mut im_f, mut det_f) = picard(&wf, &params, PicardVariant::Flat);
    let (mut im_s, mut det_s) = picard(&wsur, &params, PicardVariant::Surrogate);
    let mut contact_steps = 0;
    for s in 0..steps {
        let of = im_f
            .advance(&wf.model, &mut wf.state, &mut det_f, true)
            .unwrap();
        let os = im_s
            .advance(&wsur.model, &mut wsur.state, &mut det_s, true)
            .unwrap();
        assert_eq!(of.stats.iterations, os.stats.iterations, "step {s}");
        assert_eq!(of.converged, os.converged, "step {s}");
        same_contacts(im_f.contacts(), im_s.contacts()).unwrap_or_else(|e| panic!("step {s}: {e}"));
        assert_eq!(of.contacts.len(), os.contacts.len());
        let (dx, dv) = state_difference(&wf, &wsur);
        assert!(dx <= 1e-12 && dv <= 1e-12, "step {s}: {dx} {dv}");
        // The hierarchy checks far fewer triangle pairs per iteration.
        let total = |v: &[u64]| v[..v.len() - 1].iter().sum::<u64>();
        if of.stats.contacts > 0 {
            contact_steps += 1;
            assert!(
                total(&os.stats.checks_per_level) * 3 < total(&of.stats.checks_per_level),
                "step {s}: {:?} vs {:?}",
                os.stats.checks_per_level,
                of.stats.checks_per_level
            );
        }
    }
    assert!(contact_steps > 0, "the scenario must have contacts");
}

#[test]
fn surrogate_within_picard_equals_flat_for_a_colliding_pair() {
    flat_equals_surrogate(
        colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.8),
        12,
        1e-3,
    );
}

#[test]
fn surrogate_within_picard_equals_flat_for_a_sphere_on_a_slope() {
    flat_equals_surrogate(sphere_on_slope(2, KernelChoice::Hybrid), 12, 1e-3);
}

/// Multiscale against flat, resynchronised every step: multiscale's final contacts are
/// exactly the flat contacts of its accepted state, the states agree within the
/// tolerance, the active sets stay consistent.
fn multiscale_matches_flat(mut base: World, steps: usize, dt: f64, keep: bool) {
    base.params.dt = dt;
    let params = PicardParams {
        // Above the force granularity of the f32 contact geometry, which limits the
        // attainable accuracy: contact distances move in steps of ~6e-8 m here, one step
        // changes a contact force by up to ~4e-4 of itself (stiffness (1 + β)·k in the
        // capped dashpot piece), so a tighter test can cycle between two f32 states.
        tolerance: 1e-3,
        max_iterations: 100,
        keep_active_sets: keep,
        ..PicardParams::default()
    };
    let mut wf = base.clone();
    let (mut im_f, mut det_f) = picard(&wf, &params, PicardVariant::Flat);
    // Multiscale steps a fresh copy of the flat state in every step, with one integrator
    // and one detector throughout (its kept active sets persist when `keep`).
    let (mut im_m, mut det_m) = picard(&wf, &params, PicardVariant::Multiscale);
    let (mut contact_steps, mut unfolds, mut narrows) = (0, 0, 0);
    for s in 0..steps {
        let mut wm = wf.clone();
        let of = im_f
            .advance(&wf.model, &mut wf.state, &mut det_f, false)
            .unwrap();
        let om = im_m
            .advance(&wm.model, &mut wm.state, &mut det_m, false)
            .unwrap();
        eprintln!(
            "step {s}: flat {} it, multiscale {} it ({} unfolds, {} narrows), {} contacts, checks {:?} vs {:?}",
            of.stats.iterations, om.stats.iterations, om.unfolds, om.narrows, om.stats.contacts,
            of.stats.checks_per_level, om.stats.checks_per_level
        );
        assert!(of.converged && om.converged, "step {s}");
        same_contacts(im_m.contacts(), &flat_contacts(&wm))
            .unwrap_or_else(|e| panic!("step {s}: multiscale vs flat detection: {e}"));
        det_m
            .validate_kept_sets(&wm.model, &wm.state)
            .unwrap_or_else(|e| panic!("step {s}: {e}"));
        let (dx, dv) = state_difference(&wf, &wm);
        // Both states satisfy the implicit equations within the tolerance (1e-3 of the
        // forces, floor 1e-3·K_s·sqrt(M)), so they differ by at most residual/(1 − L),
        // L the Lipschitz constant of the Picard map (close to 1 for the regularised
        // friction and the f32 kernel noise): allow 25 residuals.
        let mass = wf.state.bodies[0].mass;
        let force = om
            .contacts
            .iter()
            .map(|c| Vec3::from(c.force).norm())
            .fold(1e-3 * 1000.0 * mass.sqrt(), f64::max);
        let dv_bound = params.tolerance * force * dt / mass;
        assert!(
            dv <= 25.0 * dv_bound && dx <= 25.0 * dv_bound * dt,
            "step {s}: {dx} m, {dv} m/s (bound {dv_bound})"
        );
        close_contacts(im_m.contacts(), im_f.contacts(), 1e-6)
            .unwrap_or_else(|e| panic!("step {s}: multiscale vs flat Picard: {e}"));
        // The step statistics written to stats.msdem: one checks-per-level entry per
        // Picard iteration, summing to the step's total; the activity counts of the step.
        for o in [&of, &om] {
            let st = &o.stats;
            assert_eq!(
                st.iteration_checks.len(),
                st.iterations as usize,
                "step {s}"
            );
            let summed: Vec<u64> = (0..st.checks_per_level.len())
                .map(|l| {
                    st.iteration_checks
                        .iter()
                        .map(|c| c.get(l).copied().unwrap_or(0))
                        .sum()
                })
                .collect();
            assert_eq!(summed, st.checks_per_level, "step {s}");
            assert_eq!(
                (st.unfolds, st.narrows, st.skipped),
                (o.unfolds, o.narrows, o.skipped)
            );
        }
        assert_eq!(
            (of.stats.unfolds, of.stats.narrows),
            (0, 0),
            "flat has no active sets"
        );
        contact_steps += usize::from(om.stats.contacts > 0);
        unfolds += om.unfolds;
        narrows += om.narrows;
    }
    // Sets started from the roots must widen; kept sets start from one full descent
    // (the seed), which may already hold every pair the run needs.
    assert!(
        contact_steps > 0 && (unfolds > 0 || keep),
        "{contact_steps} {unfolds}"
    );
    eprintln!("{narrows} narrowings");
}

#[test]
fn multiscale_matches_flat_for_a_colliding_pair() {
    multiscale_matches_flat(
        colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.8),
        12,
        1e-3,
        false,
    );
}

#[test]
fn multiscale_with_kept_active_sets_matches_flat_for_a_colliding_pair() {
    multiscale_matches_flat(
        colliding_pair(2, KernelChoice::Hybrid, 0.4, 0.3, 0.8),
        12,
        1e-3,
        true,
    );
}

#[test]
fn multiscale_matches_flat_for_a_sphere_on_a_slope() {
    multiscale_matches_flat(sphere_on_slope(2, KernelChoice::Hybrid), 12, 1e-3, false);
}
