//! One time step of the run's integrator, with the run's one detector (the kept active
//! sets persist between steps).

use crate::detect::Detector;
use crate::error::StepError;
use crate::integrator::{for_params, Integrator, Stepped};
use crate::model::Model;
use crate::params::Params;
use crate::state::State;

/// The run loop's integrator and detector.
#[derive(Debug)]
pub struct Stepper {
    detector: Detector,
    integrator: Box<dyn Integrator>,
}

impl Stepper {
    /// The integrator and detector `params` select.
    pub fn new(params: &Params) -> Self {
        Self::with(Detector::new(params), for_params(params))
    }

    /// A given detector and integrator.
    pub fn with(detector: Detector, integrator: Box<dyn Integrator>) -> Self {
        Stepper {
            detector,
            integrator,
        }
    }

    /// The detector (e.g. for the kept sets' size).
    pub fn detector(&self) -> &Detector {
        &self.detector
    }

    /// The integrator.
    pub fn integrator(&self) -> &dyn Integrator {
        self.integrator.as_ref()
    }

    /// The detector's and the integrator's carried state for a checkpoint.
    pub fn snapshot(&self) -> (Vec<u8>, Vec<u8>) {
        (self.detector.snapshot(), self.integrator.snapshot())
    }

    /// Restores a [`Stepper::snapshot`].
    pub fn restore(&mut self, detector: &[u8], integrator: &[u8]) -> Result<(), String> {
        self.detector.restore(detector)?;
        self.integrator.restore(integrator)
    }

    /// Tells the integrator whether a checkpoint follows the next step
    /// ([`Integrator::checkpoint_follows`]).
    pub fn checkpoint_follows(&mut self, due: bool) {
        self.integrator.checkpoint_follows(due);
    }

    /// Advances `state` by one step of the integrator.
    pub fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        self.integrator
            .step(model, state, &mut self.detector, record_contacts)
    }
}
