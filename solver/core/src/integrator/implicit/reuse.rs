//! Reuse of the accepted state's evaluation in the next step's first Picard iteration
//! (see the parent module's docs), and the force evaluation of one iteration.

use crate::contact::force::{accumulate_forces_calibrated, DampingCalibration, Wrench};
use crate::contact::Contact;
use crate::model::Model;
use crate::state::{Body, State};

/// The inputs of the last contact/force evaluation of a step (see the module docs). The
/// gravity, variant and coarse damping are the integrator's own and fixed.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct LastEvaluation {
    pub(super) bodies: Vec<Body>,
    pub(super) step: u64,
    pub(super) pairs: u32,
    /// Time step of the evaluation \[s\] (friction's regularisation depends on it;
    /// substeps evaluate with a smaller one).
    pub(super) dt: f64,
}

fn same_body(a: &Body, b: &Body) -> bool {
    a.shape == b.shape
        && a.material == b.material
        && a.mass == b.mass
        && a.inertia == b.inertia
        && a.inv_inertia == b.inv_inertia
        && a.epsilon == b.epsilon
        && a.radius == b.radius
        && a.position == b.position
        && a.orientation == b.orientation
        && a.velocity == b.velocity
        && a.angular_velocity == b.angular_velocity
}

impl LastEvaluation {
    /// Whether this evaluation is the one iteration 0 of a step from `state` would make.
    pub(super) fn matches(&self, state: &State, dt: f64) -> bool {
        self.step == state.step
            && self.dt == dt
            && self.bodies.len() == state.bodies.len()
            && self
                .bodies
                .iter()
                .zip(&state.bodies)
                .all(|(a, b)| same_body(a, b))
    }
}

/// Forces of `contacts` at the state `bodies` into `computed`, plus the coarse estimates
/// `coarse` damped by `damping` (remark 5; `scratch` holds their wrenches), the dashpot
/// corrected by `calibration` (the split scheme, `calibration.rs`).
#[allow(clippy::too_many_arguments)]
pub(super) fn compute_forces(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    coarse: &[Contact],
    damping: f64,
    dt: f64,
    computed: &mut Vec<Wrench>,
    scratch: &mut Vec<Wrench>,
    calibration: Option<DampingCalibration>,
) {
    let n = bodies.len();
    computed.clear();
    computed.resize(n, Wrench::default());
    accumulate_forces_calibrated(model, bodies, contacts, dt, computed, None, calibration);
    if !coarse.is_empty() && damping > 0.0 {
        scratch.clear();
        scratch.resize(n, Wrench::default());
        accumulate_forces_calibrated(model, bodies, coarse, dt, scratch, None, calibration);
        for (w, e) in computed.iter_mut().zip(scratch.iter()) {
            w.force += damping * e.force;
            w.torque += damping * e.torque;
        }
    }
}
