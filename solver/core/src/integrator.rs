//! Time integrators as peers behind one trait. Each owns its settings and buffers and
//! borrows the model, the state and the run's [`Detector`] per step, so a new integrator
//! (local time stepping, seed 004) is a new file here and one arm in [`for_params`]; the
//! existing integrators do not change.
//!
//! * [`explicit::ExplicitEuler`] — explicit Euler, Euler–Cromer order (seed 000 Alg. 1);
//! * [`implicit::ImplicitEuler`] — implicit Euler by Picard iterations with flat,
//!   surrogate or multiscale detection (seed 000 Alg. 3 / Alg. 6);
//! * [`lts::LocalTimeStepping`] — local time stepping with clusters and sequential
//!   impulses, and its globally adaptive baseline (seed 004).

pub mod explicit;
pub mod implicit;
pub mod lts;

use crate::contact::force::Wrench;
use crate::detect::Detector;
use crate::error::StepError;
use crate::frames::lts::{LtsPhaseTimes, LtsStepStats};
use crate::frames::{ContactRecord, StepStats};
use crate::model::Model;
use crate::params::{IntegratorChoice, Params};
use crate::state::State;

/// What one step of any integrator reports to the run loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Stepped {
    /// Step statistics (`iterations` = Picard iterations, `converged` false when an
    /// iterative integrator ran out of iterations).
    pub stats: StepStats,
    /// Contacts with their forces (empty unless requested).
    pub contacts: Vec<ContactRecord>,
    /// Force and torque of exactly these contacts on every particle, indexed by particle
    /// id (empty unless contacts were requested).
    pub wrenches: Vec<Wrench>,
    /// Largest relative force/torque update of the last iteration [-] (0 for explicit
    /// steps).
    pub residual: f64,
}

/// A time integrator: advances a [`State`] of a [`Model`] by one step, detecting
/// contacts through the run's [`Detector`].
pub trait Integrator: std::fmt::Debug + Send {
    /// The scenario name of the integrator (`explicit`, `implicit_multiscale`, …).
    fn name(&self) -> &'static str;

    /// Advances `state` by one step and returns its statistics, plus the contacts with
    /// their forces when `record_contacts` is set. On error the step is not counted
    /// (time and step count unchanged); the caller stops the run.
    fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError>;

    /// The local time stepping statistics and phase times of the last step (seed 004;
    /// `None` for the other integrators).
    fn lts_stats(&self) -> Option<(LtsStepStats, LtsPhaseTimes)> {
        None
    }

    /// The state this integrator carries from one step into the next beyond the
    /// [`State`] (warm starts, a kept evaluation), as bytes for a checkpoint; a resumed
    /// run restores it with [`Integrator::restore`] so that it continues byte for byte as
    /// the uninterrupted run. The default: nothing carried (every buffer is scratch).
    fn snapshot(&self) -> Vec<u8> {
        Vec::new()
    }

    /// Told by the run loop before every step whether it writes a checkpoint after that
    /// step ([`crate::run::checkpoint`]). An integrator whose state is spread over
    /// processes (a distributed run) gathers it during that step, so that its
    /// [`Integrator::snapshot`] and the [`State`] hold the whole run; the default ignores it.
    fn checkpoint_follows(&mut self, _due: bool) {}

    /// Restores a [`Integrator::snapshot`] of the same integrator and scenario; an error
    /// says what did not decode. The default accepts only the empty snapshot.
    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} carries no state, but the checkpoint holds {} bytes for it",
                self.name(),
                bytes.len()
            ))
        }
    }
}

/// [`StepError::NonFinite`] for the first particle of `state` whose state is NaN or
/// infinite (the step that found it is the next one).
pub fn check_finite(state: &State) -> Result<(), StepError> {
    match crate::motion::first_non_finite(&state.bodies) {
        None => Ok(()),
        Some((particle, quantity)) => Err(StepError::NonFinite {
            step: state.step + 1,
            particle,
            quantity,
        }),
    }
}

/// The integrator `params` select, with its settings from `params`.
pub fn for_params(params: &Params) -> Box<dyn Integrator> {
    match params.integrator {
        IntegratorChoice::Explicit => Box::new(explicit::ExplicitEuler::new(params)),
        IntegratorChoice::Implicit(variant) => {
            Box::new(implicit::ImplicitEuler::new(params, variant))
        }
        IntegratorChoice::Lts(mode) => Box::new(lts::LocalTimeStepping::new(params, mode)),
    }
}

/// One step of local time stepping = one synchronisation interval (seed 004; see
/// [`lts`]). `stats.iterations` counts the interval's sweeps.
impl Integrator for lts::LocalTimeStepping {
    fn name(&self) -> &'static str {
        lts::LocalTimeStepping::name(self)
    }

    fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        _detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        let (lts, wall) = self.advance_interval(model, state)?;
        let (contacts, wrenches) = if record_contacts {
            self.contact_records(&state.bodies)
        } else {
            (Vec::new(), Vec::new())
        };
        let obs = crate::motion::energy::observables(&state.bodies, &self.gravity());
        let stats = StepStats {
            step: state.step,
            time: state.time,
            contacts: lts.contacts.min(u32::MAX as u64) as u32,
            kinetic_energy: obs.kinetic,
            potential_energy: obs.potential,
            linear_momentum: obs.linear_momentum.into(),
            angular_momentum: obs.angular_momentum.into(),
            iterations: lts.sweeps,
            converged: lts.impulse_unconverged == 0,
            wall: crate::frames::PhaseTimes {
                broad: wall.broad,
                narrow: wall.step_size + wall.narrow,
                forces: wall.collision,
                integrate: wall.clustering + wall.roll_over,
            },
            ..StepStats::default()
        };
        Ok(Stepped {
            stats,
            contacts,
            wrenches,
            residual: 0.0,
        })
    }

    fn lts_stats(&self) -> Option<(LtsStepStats, LtsPhaseTimes)> {
        self.last_stats().cloned()
    }

    /// The particles' previous snapshots (span memory, seed 004 eq. (3)) and the kept
    /// contact points ([`lts::carry`]).
    fn snapshot(&self) -> Vec<u8> {
        self.carried()
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.resume_from(bytes)
    }
}
