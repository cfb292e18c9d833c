//! What a pattern generator places: one particle's position, orientation and velocity.

use msdem_geom::math::{Quat, Vec3};

/// One particle placed by a pattern generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// Centre of mass \[m\].
    pub position: Vec3,
    /// Orientation (shape axes → world).
    pub orientation: Quat,
    /// Linear velocity [m/s].
    pub velocity: Vec3,
}
