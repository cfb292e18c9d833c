//! The Coulomb solution from the convex relaxation (issue 12): a fixed point on de Saxcé's
//! correction (the "modified" cone complementarity problem of Acary and Cadoux).
//!
//! The relaxation (`impulse/relaxed.rs`) differs from Coulomb's law of seed 004 §6 in one
//! condition: a sliding point separates at `μ·|v_t|` instead of `v_n = 0`. De Saxcé's
//! change of variable `ṽ_n = v_n + μ·|v_t|` turns the exact conditions into a cone
//! complementarity on `ṽ`; so with the normal velocity of every point measured as
//! `v_n + sᵢ`, `sᵢ` fixed, the relaxed problem stays convex, and at a fixed point
//! `sᵢ = μ·|v_{t,i}|` of its solution the relaxed conditions read: sliding points
//! `v_n + μ·|v_t| = μ·|v_t|`, i.e. `v_n = 0`; sticking points `v_t = 0`, so `sᵢ = 0` and
//! `v_n = 0` where they push; open points `v_n + μ·|v_t| ≥ μ·|v_t|`, i.e. `v_n ≥ 0` —
//! exactly Coulomb's conditions (restitution floor and friction cone hold in every pass).
//!
//! The iteration: the relaxed solve (shift 0), then up to `passes` solves with the shift
//! of the previous pass's outgoing velocities, each warm-started from the previous pass's
//! impulses (the affine velocities then start where the last pass ended), each to the
//! natural residual `max(tol_v, 0.3 × the last exact residual)` (0.1 × after a pass that
//! did not halve it; an inexact fixed point:
//! no pass is solved finer than the shift it uses is right). It stops when the exact
//! conditions hold to `accept_v` (measured as `impulse/direct.rs` does,
//! [`super::direct::worst`]), and keeps the pass of least exact residual. The fixed point
//! need not exist nor attract (Coulomb's problem may have several solutions or none in
//! the cone); where it does not, the kept pass is the closest one found, the relaxed
//! solution at worst. Sequential, so the same bits at any thread count.

use super::direct;
use super::relaxed::{Relaxed, RelaxedOutcome};
use super::row::Row;
use super::sweep::Velocities;
use msdem_geom::math::Vec3;

/// Each pass is solved to this fraction of the last pass's exact residual (at least to
/// the fallback's tolerance): 0.3 took 1.1–5.6× fewer steps than 0.1 on the impact and
/// toppling clusters of `tests/impulse/coulomb.rs` at similar final residuals, 0.03 up to
/// 6× more; but alone it left single tower solves at up to 0.8 m/s where 0.1 left
/// 0.03 m/s (docs/performance.md, "Coulomb's law from the relaxation").
const INNER: f64 = 0.3;
/// After a pass that lowered the exact residual by less than the factor `SLOW`, the
/// passes are solved to `INNER_SLOW` of it (an inexact solve can stall the fixed point).
const SLOW: f64 = 0.5;
const INNER_SLOW: f64 = 0.1;

/// What the fixed point achieved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoulombOutcome {
    /// The first (unshifted) relaxed solve.
    pub relaxed: RelaxedOutcome,
    /// Shifted passes taken after it.
    pub passes: u32,
    /// Gradient steps over all passes (the first included).
    pub iterations: u32,
    /// Largest violation of the exact conditions by the relaxed solution [m/s].
    pub relaxed_exact: f64,
    /// Largest violation of the exact conditions by the kept pass [m/s].
    pub exact: f64,
}

/// Reusable buffers of the fixed point.
#[derive(Debug, Default)]
pub struct Coulomb {
    relaxed: Relaxed,
    /// De Saxcé shift `μ·|v_t|` per row [m/s].
    shift: Vec<f64>,
    /// Impulses of the best pass, and the bodies' velocities.
    impulses: Vec<(f64, [f64; 2])>,
    velocity: Vec<Vec3>,
    angular: Vec<Vec3>,
}

impl Coulomb {
    /// Solves the relaxed problem of `rows` (as [`Relaxed::solve`]), then, if that
    /// converged, at most `passes` shifted passes towards Coulomb's solution (module docs),
    /// each of at most `max_iterations` steps, until the exact conditions hold to
    /// `accept_v` [m/s]. The rows and `state` receive the pass of least exact residual.
    pub fn solve(
        &mut self,
        rows: &mut [Row],
        state: &mut Velocities,
        tol_v: f64,
        max_iterations: u32,
        passes: u32,
        accept_v: f64,
    ) -> CoulombOutcome {
        let first = self.relaxed.solve(rows, state, tol_v, max_iterations, &[]);
        let exact = direct::worst(rows, state);
        let mut outcome = CoulombOutcome {
            relaxed: first,
            passes: 0,
            iterations: first.iterations,
            relaxed_exact: exact,
            exact,
        };
        if !first.converged || passes == 0 || outcome.exact <= accept_v {
            return outcome;
        }
        self.save(rows, state);
        let mut best = outcome.exact;
        let mut last = best;
        let mut saved_is_current = true;
        let mut inner_factor = INNER;
        for _ in 0..passes {
            if best <= accept_v || !last.is_finite() {
                break;
            }
            self.shift.clear();
            self.shift.extend(rows.iter().map(|row| {
                let [_, v1, v2] = direct::relative(row, state);
                row.mu * (v1 * v1 + v2 * v2).sqrt()
            }));
            let inner = tol_v.max(inner_factor * last);
            let pass = self
                .relaxed
                .solve(rows, state, inner, max_iterations, &self.shift);
            outcome.passes += 1;
            outcome.iterations += pass.iterations;
            let exact = direct::worst(rows, state);
            if exact > SLOW * last {
                inner_factor = INNER_SLOW;
            }
            last = exact;
            if last < best {
                best = last;
                self.save(rows, state);
                saved_is_current = true;
            } else {
                saved_is_current = false;
            }
        }
        if !saved_is_current {
            for (row, &(pn, pt)) in rows.iter_mut().zip(&self.impulses) {
                row.accept(pn, pt);
            }
            state.velocity.clone_from(&self.velocity);
            state.angular.clone_from(&self.angular);
        }
        outcome.exact = best;
        outcome
    }

    /// Keeps the rows' impulses and the bodies' velocities.
    fn save(&mut self, rows: &[Row], state: &Velocities) {
        self.impulses.clear();
        self.impulses.extend(rows.iter().map(|r| (r.pn, r.pt)));
        self.velocity.clone_from(&state.velocity);
        self.angular.clone_from(&state.angular);
    }
}
