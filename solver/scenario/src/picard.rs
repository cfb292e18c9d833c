//! Parameters of the implicit Euler (seed 000 Alg. 3 / Alg. 6, §6.1): the `picard:` section
//! of a scenario and the variant its `integrator:` chooses. Pure data, used by the solver's
//! `implicit` module.

use serde::{Deserialize, Serialize};

/// Which contact detection runs inside the Picard iterations (seed 000 §5.2–5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicardVariant {
    /// Flat detection (every real triangle against every real triangle, Alg. 2) in every
    /// Picard iteration.
    Flat,
    /// *Surrogate within Picard* (§5.2): the multiresolution traversal of Alg. 5 from the
    /// roots in every iteration; same answers as [`PicardVariant::Flat`] (Cor. 5.5).
    Surrogate,
    /// *Multiscale Picard* (Alg. 6): active sets per particle pair kept across the
    /// iterations, at most one tree level unfolded per iteration, narrowing with a memory
    /// set (remark 5) and damped coarse-level force estimates.
    Multiscale,
}

/// The time discretisation the Picard iterations solve (seed 000 §2 uses implicit Euler).
///
/// Both move every particle with one wrench `W` over the step: `v' = v + Δt·(W/M + g)`
/// (the angular velocity alike), and both are implicit in `W`:
///
/// * implicit Euler: `W = F(x', v')`, positions `x' = x + Δt·v'` (Euler–Cromer order);
/// * implicit midpoint: `W = F(x_m, v_m)` at the midpoint state `x_m = (x + x')/2`,
///   `v_m = (v + v')/2` (orientation turned halfway), positions `x' = x + Δt·v_m`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PicardScheme {
    /// Implicit Euler (seed 000 Alg. 3): first order, L-stable; damps contact
    /// oscillations that the time step does not resolve (numerical dissipation that grows
    /// with Δt: restitution falls towards 0 once a contact lasts only a few steps).
    #[default]
    Euler,
    /// Implicit midpoint rule: second order, symplectic, conserves the energy of an
    /// undamped linear spring for every Δt, so the restitution of the contact law survives
    /// larger steps. (The trapezoidal rule, the same for linear forces, carries the force
    /// of the start of a step into it and so pumps energy into contacts that open within
    /// a step; the midpoint rule evaluates forces only where the step is.)
    Midpoint,
    /// The θ-method with θ = [`PicardParams::theta`] (default [`THETA`] = 0.55), slightly
    /// above the midpoint rule's ½:
    /// `W = F(x_θ, v_θ)` at `x_θ = x + θ·(x' − x)`, `v_θ = (1 − θ)·v + θ·v'`, positions
    /// `x' = x + Δt·v_θ`. First order; its numerical damping (none for θ = ½, all of
    /// implicit Euler's for θ = 1) takes out of an impact that lasts one or two steps
    /// roughly what the midpoint rule's non-L-stable dashpot fails to absorb. Under
    /// [`PicardAcceleration::Linearised`] the linear law's spring acts with the blend
    /// `(2 − 2θ)·(discrete gradient) + (2θ − 1)·(end-of-step force)`, which is `k·δ_θ`
    /// while a contact stays closed and never gains energy when it opens or closes.
    Theta,
    /// The midpoint rule for the conservative forces, implicit Euler for the dissipative
    /// ones: positions and orientations as under [`PicardScheme::Midpoint`] (forces at the
    /// midpoint pose, the linear law's spring with its discrete gradient under
    /// [`PicardAcceleration::Linearised`]), but the velocities the force law sees are the
    /// end-of-step ones, so the dashpot and friction act implicitly (L-stable) on the
    /// velocity they damp. An impact that lasts one or two steps then rebounds with about
    /// the law's restitution whatever the step (the elastic spring keeps its energy, the
    /// dashpot cannot overshoot), with no tuning constant. Meant for
    /// [`PicardAcceleration::Linearised`].
    Split,
}

/// The default θ of [`PicardScheme::Theta`] ([`PicardParams::theta`]) [-]: the 1-D impact model
/// (`tools/models/discrete_impact.py`) rebounds a restitution-0.4 impact with
/// 0.43 (mean over the entry phase within a step) at ten times the explicit step, where
/// the midpoint rule gives 0.59 and implicit Euler 0.03.
pub const THETA: f64 = 0.55;

impl PicardScheme {
    /// The implicitness θ of the scheme: how much of a wrench change reaches the state
    /// where forces are evaluated (1 for Euler, ½ for the midpoint, the default [`THETA`]
    /// for the θ-method; a run takes [`PicardParams::implicitness`]) [-].
    pub fn theta(self) -> f64 {
        match self {
            PicardScheme::Euler => 1.0,
            PicardScheme::Midpoint => 0.5,
            PicardScheme::Theta => THETA,
            PicardScheme::Split => 0.5,
        }
    }
}

/// How an iteration moves the wrench towards the forces it computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PicardAcceleration {
    /// Relaxed fixed point `W ← W + ω·(F − W)` with the adaptive Aitken ω (seed 000 §6.1):
    /// its contraction worsens with `Δt²·k/M`. The default: on the staircase and the hopper
    /// it needs fewer iterations than [`PicardAcceleration::Newton`] at every Δt measured
    /// (docs/performance.md), where contacts opening and closing between guesses, not the
    /// stiffness, drive the iteration count.
    #[default]
    Aitken,
    /// Damped semi-smooth Newton update of forces and torques: the contact law linearised
    /// per contact (`θ²·Δt²·k + θ·Δt·c` along its normal, 6-DOF rows) over the contact
    /// graph, solved by preconditioned conjugate gradients in a fixed order, from a
    /// linearly implicit first guess. Converges an isolated stiff impact in a few
    /// iterations at any Δt (4 instead of Aitken's 40 at 10× the explicit step).
    Newton,
    /// Active-set Newton update with a piecewise-linear contact model: every contact seen
    /// at this step's guesses is a candidate whose normal force `max(0, φ − s·J·q)` opens
    /// and closes *within* the update, solved exactly by an inner semi-smooth Newton loop
    /// over the model (no narrow phase); the outer iteration backtracks to the last guess
    /// whose residual did not grow. Single process only, like `newton`.
    PiecewiseLinear,
    /// Contacts linearised once per step (Moreau–Jean style): the contacts detected at the
    /// start of the step keep their normals and world lever arms, their gaps follow the
    /// guess linearly (`g₀ + n·(u_a − u_b)`), and the step's system `W = F(v'(W))` is
    /// solved by the piecewise-linear update with no narrow phase inside the iteration.
    /// One detection at the end state (which the next step reuses) checks the result: a
    /// real contact whose overlap differs from its prediction by more than 5 % of the
    /// margin adds the missed contact and solves again, or splits the step. The midpoint
    /// rule applies the spring with its discrete gradient over the step (energy-consistent).
    /// Single process only.
    Linearised,
}

/// What a step does when its iterations use up [`PicardParams::max_iterations`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoConvergence {
    /// Retry the step from its start state as two steps of `Δt/2`, recursively, at most
    /// [`PicardParams::max_substep_levels`] halvings deep; a step that still does not
    /// converge stops the run. The substeps are counted in the step's statistics.
    #[default]
    Substep,
    /// Stop the run with a message naming the step and its residual.
    Stop,
}

/// Settings of the Picard iterations.
///
/// **Relaxation (§6.1).** The wrench `W_k` that moves the guess is the weighted average
/// `W_k = ω·F_k + (1 − ω)·W_{k−1}` of the freshly computed forces `F_k` and the previous
/// wrench, per particle. ω adapts per particle with Aitken's Δ² rule
/// `ω_k = −ω_{k−1}·r_{k−1}·(r_k − r_{k−1}) / |r_k − r_{k−1}|²` on the residuals
/// `r_k = F_k − W_{k−1}` (in acceleration units): when the forces keep pulling in one
/// direction the updates grow (ω increases, up to [`PicardParams::max_relaxation`]), when
/// they oscillate ω shrinks and the oscillation dies out — the behaviour §6.1 describes.
/// Where a particle's rule gives ω ≤ 0 (its residual grew along its previous direction,
/// driven by its neighbours), it takes the weight the same rule gives for the residuals of
/// all particles stacked into one vector instead of the lower bound (see `relax.rs`).
/// The first iteration is the plain explicit guess of Alg. 3 (`W_0 = F_0`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PicardParams {
    /// Relative convergence threshold on every particle's force and torque update
    /// (seed 000 §6.1: 1 %) [-].
    pub tolerance: f64,
    /// Iteration budget per step; a step that uses it up is retried with smaller steps or
    /// stops the run ([`PicardParams::on_no_convergence`]).
    pub max_iterations: u32,
    /// Initial relaxation weight ω of the second iteration [-].
    pub relaxation: f64,
    /// Lower bound of the adaptive ω [-].
    pub min_relaxation: f64,
    /// Upper bound of the adaptive ω (> 1 allows acceleration) [-].
    pub max_relaxation: f64,
    /// Absolute floor of the convergence test, relative to a particle's force scale
    /// `K_s·sqrt(M) + M·|g|` [-]: updates below `tolerance · floor` count as converged, so
    /// free or resting particles with vanishing forces converge. The torque floor is the
    /// force floor times the particle's bounding radius.
    pub force_floor: f64,
    /// Multiscale only: factor in `[0, 1]` on the force estimates of surrogate-level
    /// contacts (remark 5: "artificially reduce the force contributions from coarse
    /// surrogate levels") [-].
    pub coarse_force_damping: f64,
    /// Multiscale only: keep each particle pair's active set from one time step to the
    /// next (default; §6.5: the multiscale version "starts from a certain resolution")
    /// instead of restarting from the roots every step (Alg. 6 line 1 read literally,
    /// which costs one Picard iteration per tree level in every step, even without
    /// contact). Memory sets and vetoes are reset at every step either way.
    pub keep_active_sets: bool,
    /// Local updates: a particle whose force and torque updates are already within the
    /// tolerance keeps its wrench for the next guess (its guess does not move), and
    /// multiscale Picard detects contacts again only for particle pairs with a moved
    /// particle (the others' contacts are those of the previous iteration, bit for bit).
    /// The convergence test still covers every particle in every iteration. Off: every
    /// particle is relaxed in every iteration (Alg. 3 read literally).
    pub local_updates: bool,
    /// Time discretisation ([`PicardScheme`]).
    pub scheme: PicardScheme,
    /// θ of [`PicardScheme::Theta`], in `(½, 1]` [-]. A scenario may write it only with
    /// `scheme: theta` (other schemes ignore it); written out only where it is not the
    /// default [`THETA`], so that a scenario written from these parameters reads back.
    #[serde(skip_serializing_if = "is_default_theta")]
    pub theta: f64,
    /// Update of the wrench between iterations ([`PicardAcceleration`]).
    pub acceleration: PicardAcceleration,
    /// What a step that does not converge does ([`NoConvergence`]).
    pub on_no_convergence: NoConvergence,
    /// Most halvings of Δt for one step under [`NoConvergence::Substep`] (4: down to
    /// Δt/16) [-].
    pub max_substep_levels: u32,
}

/// Whether `theta` is the default [`THETA`] (not written out, [`PicardParams::theta`]).
fn is_default_theta(theta: &f64) -> bool {
    *theta == THETA
}

/// Largest [`PicardParams::max_substep_levels`] (Δt/2²⁰) [-].
pub const MAX_SUBSTEP_LEVELS: u32 = 20;

impl Default for PicardParams {
    fn default() -> Self {
        PicardParams {
            tolerance: 0.01,
            max_iterations: 50,
            relaxation: 1.0,
            min_relaxation: 0.01,
            max_relaxation: 1.5,
            force_floor: 1e-3,
            coarse_force_damping: 0.5,
            keep_active_sets: true,
            local_updates: true,
            scheme: PicardScheme::Euler,
            theta: THETA,
            acceleration: PicardAcceleration::Aitken,
            on_no_convergence: NoConvergence::Substep,
            max_substep_levels: 4,
        }
    }
}

/// A [`PicardParams`] value out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("picard parameter {field} = {value}: {reason}")]
pub struct PicardParamError {
    /// Name of the field.
    pub field: &'static str,
    /// Offending value.
    pub value: f64,
    /// What is required.
    pub reason: &'static str,
}

impl PicardParams {
    /// Checks every field's range (for the scenario loader; the solver's `implicit_step`
    /// clamps out-of-range values instead of failing).
    pub fn validate(&self) -> Result<(), PicardParamError> {
        let bad = |field, value: f64, reason| {
            Err(PicardParamError {
                field,
                value,
                reason,
            })
        };
        let pos = |x: f64| x.is_finite() && x > 0.0;
        if !pos(self.tolerance) {
            return bad("tolerance", self.tolerance, "must be finite and > 0");
        }
        if self.max_iterations < 1 {
            return bad(
                "max_iterations",
                f64::from(self.max_iterations),
                "must be at least 1",
            );
        }
        if !pos(self.min_relaxation) || self.min_relaxation > self.max_relaxation {
            return bad(
                "min_relaxation",
                self.min_relaxation,
                "must be > 0 and ≤ max_relaxation",
            );
        }
        if !(self.max_relaxation.is_finite() && self.max_relaxation < 2.0) {
            return bad("max_relaxation", self.max_relaxation, "must be < 2");
        }
        if !(self.relaxation >= self.min_relaxation && self.relaxation <= self.max_relaxation) {
            return bad(
                "relaxation",
                self.relaxation,
                "must lie in [min_relaxation, max_relaxation]",
            );
        }
        if !(self.force_floor.is_finite() && self.force_floor >= 0.0) {
            return bad("force_floor", self.force_floor, "must be finite and ≥ 0");
        }
        if !(0.0..=1.0).contains(&self.coarse_force_damping) {
            return bad(
                "coarse_force_damping",
                self.coarse_force_damping,
                "must lie in [0, 1]",
            );
        }
        if !(self.theta > 0.5 && self.theta <= 1.0) {
            return bad("theta", self.theta, "must lie in (0.5, 1]");
        }
        if self.max_substep_levels > MAX_SUBSTEP_LEVELS {
            return bad(
                "max_substep_levels",
                f64::from(self.max_substep_levels),
                "must be at most 20",
            );
        }
        Ok(())
    }

    /// The implicitness θ of the step ([`PicardScheme::theta`], [`PicardParams::theta`]
    /// for the θ-method) [-].
    pub fn implicitness(&self) -> f64 {
        match self.scheme {
            PicardScheme::Theta => self.theta,
            s => s.theta(),
        }
    }

    /// A copy with every field forced into its valid range.
    pub fn clamped(&self) -> PicardParams {
        let fin = |x: f64, d: f64| if x.is_finite() { x } else { d };
        let max_relaxation = fin(self.max_relaxation, 1.5).clamp(1e-3, 1.99);
        let min_relaxation = fin(self.min_relaxation, 0.01).clamp(1e-6, max_relaxation);
        PicardParams {
            tolerance: fin(self.tolerance, 0.01).max(1e-15),
            max_iterations: self.max_iterations.max(1),
            relaxation: fin(self.relaxation, 1.0).clamp(min_relaxation, max_relaxation),
            min_relaxation,
            max_relaxation,
            force_floor: fin(self.force_floor, 1e-3).max(0.0),
            coarse_force_damping: fin(self.coarse_force_damping, 0.5).clamp(0.0, 1.0),
            keep_active_sets: self.keep_active_sets,
            local_updates: self.local_updates,
            scheme: self.scheme,
            theta: if self.theta > 0.5 && self.theta <= 1.0 {
                self.theta
            } else {
                THETA
            },
            acceleration: self.acceleration,
            on_no_convergence: self.on_no_convergence,
            max_substep_levels: self.max_substep_levels.min(MAX_SUBSTEP_LEVELS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert_eq!(PicardParams::default().validate(), Ok(()));
        let p = PicardParams {
            tolerance: -1.0,
            ..PicardParams::default()
        };
        let e = p.validate().unwrap_err();
        assert_eq!(e.field, "tolerance");
        assert!(e.to_string().contains("-1"));
        assert_eq!(p.clamped().validate(), Ok(()));
        let q = PicardParams {
            max_iterations: 0,
            coarse_force_damping: 3.0,
            max_relaxation: f64::NAN,
            ..PicardParams::default()
        };
        assert!(q.validate().is_err());
        assert_eq!(q.clamped().validate(), Ok(()));
        let t = PicardParams {
            scheme: PicardScheme::Theta,
            theta: 0.5,
            ..PicardParams::default()
        };
        assert_eq!(t.validate().unwrap_err().field, "theta");
        assert_eq!(t.clamped().implicitness(), THETA);
        let t = PicardParams { theta: 0.8, ..t };
        assert_eq!((t.validate(), t.implicitness()), (Ok(()), 0.8));
    }
}
