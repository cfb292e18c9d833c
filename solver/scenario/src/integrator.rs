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
}

impl IntegratorSpec {
    /// The Picard variant of an implicit integrator, `None` for `explicit`.
    pub fn picard_variant(self) -> Option<PicardVariant> {
        match self {
            IntegratorSpec::Explicit => None,
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
        }
    }
}
