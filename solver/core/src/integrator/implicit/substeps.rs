//! Adaptive substeps of an implicit step that does not converge (issue 19,
//! `picard.on_no_convergence: substep`): the step of Δt is retried as two steps of Δt/2,
//! each split again while it does not converge, at most
//! [`PicardParams::max_substep_levels`] halvings deep. One copy for the one-process
//! integrator ([`super::ImplicitEuler`]) and the distributed one
//! (`crate::distributed::implicit`, feature `mpi`).

use crate::detect::Detector;
use crate::error::StepError;
use crate::model::Model;
use crate::params::PicardParams;
use crate::state::State;

/// What [`split`] needs of an implicit integrator.
pub(crate) trait Substeps {
    /// The integrator's per-step tally.
    type Tally;

    /// One attempt at a (sub)step of `dt` \[s\] from `state` (Picard iterations of seed
    /// 000 Alg. 3); whether it converged. `state.bodies` then hold the last guess.
    fn attempt_step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Self::Tally,
    ) -> Result<bool, StepError>;

    /// The Picard settings.
    fn picard(&self) -> &PicardParams;

    /// Counts one converged substep in `tally`.
    fn count_substep(tally: &mut Self::Tally);

    /// The largest relative update of the last iteration of the last attempt [-].
    fn residual(tally: &Self::Tally) -> f64;
}

/// Replaces the step of `dt` \[s\] from `state` by two steps of `dt/2`, each split again
/// while it does not converge; `level` is the halving depth of `dt` (1 for the first
/// split). Fails with [`not_converged`] below [`PicardParams::max_substep_levels`].
pub(crate) fn split<S: Substeps>(
    s: &mut S,
    model: &Model,
    state: &mut State,
    detector: &mut Detector,
    dt: f64,
    level: u32,
    tally: &mut S::Tally,
) -> Result<(), StepError> {
    if level > s.picard().max_substep_levels {
        return Err(not_converged(
            s.picard(),
            state,
            S::residual(tally),
            level - 1,
        ));
    }
    let h = 0.5 * dt;
    for _ in 0..2 {
        let begin = state.bodies.clone();
        if s.attempt_step(model, state, detector, h, tally)? {
            S::count_substep(tally);
        } else {
            state.bodies = begin;
            split(s, model, state, detector, h, level + 1, tally)?;
        }
    }
    Ok(())
}

/// [`StepError::NotConverged`] for the step after `state` with the last `residual`, after
/// `levels` halvings of its time step.
pub(crate) fn not_converged(
    params: &PicardParams,
    state: &State,
    residual: f64,
    levels: u32,
) -> StepError {
    StepError::NotConverged {
        step: state.step + 1,
        time: state.time,
        iterations: params.max_iterations,
        residual,
        tolerance: params.tolerance,
        levels,
    }
}
