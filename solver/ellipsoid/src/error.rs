//! The crate's error type.

use crate::math::Real;

/// Errors of the ellipsoid library: bad shape or material input, reported with the value
/// that was wrong. Nothing is built or changed when one is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EllipsoidError {
    /// A semi-axis is not finite or not strictly positive.
    #[error("ellipsoid radius {axis} (semi-axis {name}) is {value} m; it must be finite and > 0")]
    BadRadius {
        /// Index of the semi-axis (0 = a along body x, 1 = b along y, 2 = c along z).
        axis: usize,
        /// Letter of the semi-axis (`a`, `b` or `c`).
        name: char,
        /// The value given \[m\].
        value: Real,
    },
    /// A density is not finite or not strictly positive.
    #[error("density is {0} kg/m^3; it must be finite and > 0")]
    BadDensity(Real),
    /// A plane normal is not finite or has zero length.
    #[error("plane normal ({0}, {1}, {2}) is not a finite non-zero vector")]
    BadNormal(Real, Real, Real),
    /// A random-set specification that cannot be generated (the message names it).
    #[error("bad random ellipsoid set: {0}")]
    BadWorkload(String),
    /// The broad phase rejected the bodies' bounding spheres (its message names the body).
    #[error("broad phase: {0}")]
    BroadPhase(#[from] msdem_broadphase::BroadPhaseError),
}
