//! Implicit Euler at a time step ten times the explicit scheme's recommended step
//! ([`stable_dt_estimate`], which resolves a contact with ~20 steps per period): the
//! explicit scheme gains an order of magnitude of energy in one collision, the implicit
//! variants stay bounded (a step that runs out of Picard iterations: `substep.rs`).

use crate::common::implicit::*;
use crate::common::world::explicit;
use msdem_solver::contact::stability;
use msdem_solver::integrator::implicit::{PicardParams, PicardVariant};
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;

/// The explicit scheme's recommended time step for `world` [s].
fn stable_dt_estimate(world: &World) -> f64 {
    stability::stable_dt_estimate(&world.model, &world.state.bodies)
}

#[test]
fn implicit_stays_bounded_where_explicit_gains_energy() {
    // Elastic, frictionless: the exact dynamics conserve energy.
    let mut base = colliding_pair(2, KernelChoice::Hybrid, 0.4, 0.0, 1.0);
    base.params.dt = 10.0 * stable_dt_estimate(&base);
    let e0 = mechanical_energy(&base);
    let steps = 25;

    let mut w_explicit = base.clone();
    let (mut ex, mut det) = explicit(&w_explicit);
    let mut explicit_peak: f64 = 0.0;
    for _ in 0..steps {
        let out = ex.advance(&w_explicit.model, &mut w_explicit.state, &mut det, false);
        if out.is_err() {
            explicit_peak = f64::INFINITY;
            break;
        }
        explicit_peak = explicit_peak.max(mechanical_energy(&w_explicit));
    }
    assert!(
        explicit_peak > 5.0 * e0,
        "explicit Euler must gain energy: {explicit_peak} J vs {e0} J"
    );

    for variant in [
        PicardVariant::Flat,
        PicardVariant::Surrogate,
        PicardVariant::Multiscale,
    ] {
        let mut w = base.clone();
        let (mut im, mut det) = picard(&w, &PicardParams::default(), variant);
        let mut contact_steps = 0;
        for s in 0..steps {
            let out = im
                .advance(&w.model, &mut w.state, &mut det, false)
                .unwrap_or_else(|e| panic!("{variant:?} step {s}: {e}"));
            assert!(out.converged, "{variant:?} step {s}: not converged");
            contact_steps += usize::from(out.stats.contacts > 0);
            let e = mechanical_energy(&w);
            assert!(
                e <= e0 * (1.0 + 1e-3),
                "{variant:?} step {s}: energy grew {e0} → {e} J"
            );
        }
        assert!(contact_steps > 0, "{variant:?}: the pair must collide");
        // The particles separate again (implicit Euler dissipates, never sticks here).
        let gap = w.state.bodies[1].velocity.x - w.state.bodies[0].velocity.x;
        assert!(
            gap > 0.0,
            "{variant:?}: must separate, relative velocity {gap}"
        );
    }
}

#[test]
fn free_flight_converges_in_two_iterations_and_matches_ballistics() {
    let mut w = world(0.01, [0.0, 0.0, -9.81], KernelChoice::Hybrid);
    add_sphere(&mut w, &sphere_mesh(0.5, 1, 7), 0.0, 1.0, [0.0, 0.0, 5.0]);
    w.state.bodies[0].velocity = msdem_geom::math::Vec3::new(1.0, 0.0, 2.0);
    let (mut im, mut det) = picard(&w, &PicardParams::default(), PicardVariant::Multiscale);
    for _ in 0..10 {
        let out = im.advance(&w.model, &mut w.state, &mut det, false).unwrap();
        assert!(out.converged);
        assert_eq!(out.stats.iterations, 2);
    }
    // Implicit (= Euler–Cromer without forces) free flight: v exact, x with O(Δt) error.
    let b = &w.state.bodies[0];
    assert!((b.velocity.z - (2.0 - 9.81 * 0.1)).abs() < 1e-12);
    let z = 5.0 + 2.0 * 0.1 - 9.81 * 0.01 * 0.01 * 55.0; // Σ_{k=1..10} k·Δt²·g
    assert!((b.position.z - z).abs() < 1e-12, "{} vs {z}", b.position.z);
}
