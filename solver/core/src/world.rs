//! A whole simulation as [`crate::setup`] builds it and [`crate::run`] runs it: the
//! [`Model`] (fixed during a run), the [`State`] (advanced by the integrators) and the
//! run [`Params`], kept apart so that every stage borrows only what it reads or writes.

use crate::model::Model;
use crate::params::Params;
use crate::state::State;

/// Model, state and parameters of one simulation.
#[derive(Clone, Debug)]
pub struct World {
    /// Shapes, materials and obstacles (immutable during a run).
    pub model: Model,
    /// Bodies, time and step count.
    pub state: State,
    /// Run parameters.
    pub params: Params,
}
