//! The `integrator:` value of a scenario.

use serde::{Deserialize, Serialize};

use crate::picard::PicardVariant;

/// `integrator:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorSpec {
    /// Explicit Euler (seed 000 Alg. 1).
    #[default]
    Explicit,
    /// Implicit Euler, Picard iterations with flat detection in every iteration (Alg. 3).
    ImplicitFlat,
    /// Implicit Euler, *surrogate within Picard* (§5.2): Alg. 5 from the roots in every
    /// iteration.
    ImplicitSurrogate,
    /// Implicit Euler, *multiscale Picard* (Alg. 6): active sets unfolded one level per
    /// iteration.
    ImplicitMultiscale,
    /// Local time stepping with clusters, space-time narrowing and sequential impulses
    /// (seed 004).
    LocalTimeStepping,
    /// The baseline of seed 004 §8: the same code with the global earliest collision (2)
    /// applied to every cluster (adaptive global time steps).
    GlobalAdaptive,
}

impl IntegratorSpec {
    /// The Picard variant of an implicit integrator, `None` for `explicit` and the local time
    /// stepping integrators.
    pub fn picard_variant(self) -> Option<PicardVariant> {
        match self {
            IntegratorSpec::Explicit
            | IntegratorSpec::LocalTimeStepping
            | IntegratorSpec::GlobalAdaptive => None,
            IntegratorSpec::ImplicitFlat => Some(PicardVariant::Flat),
            IntegratorSpec::ImplicitSurrogate => Some(PicardVariant::Surrogate),
            IntegratorSpec::ImplicitMultiscale => Some(PicardVariant::Multiscale),
        }
    }

    /// The value as written in a scenario.
    pub fn key(self) -> &'static str {
        match self {
            IntegratorSpec::Explicit => "explicit",
            IntegratorSpec::ImplicitFlat => "implicit_flat",
            IntegratorSpec::ImplicitSurrogate => "implicit_surrogate",
            IntegratorSpec::ImplicitMultiscale => "implicit_multiscale",
            IntegratorSpec::LocalTimeStepping => "local_time_stepping",
            IntegratorSpec::GlobalAdaptive => "global_adaptive",
        }
    }

    /// True for `local_time_stepping` and `global_adaptive` (seed 004).
    pub fn is_local_time_stepping(self) -> bool {
        matches!(
            self,
            IntegratorSpec::LocalTimeStepping | IntegratorSpec::GlobalAdaptive
        )
    }
}
