//! The cost weight of a particle for the domain decomposition ([`super::rcb`]).

use crate::model::{Geometry, Model};
use crate::state::Body;

/// Cost weight of every particle [-]: the number of real triangles of its shape (the
/// narrow phase's work per contact pair grows with it), 1 for an ellipsoid (one analytic
/// distance per pair). Always ≥ 1.
pub fn particle_weights(model: &Model, bodies: &[Body]) -> Vec<f64> {
    bodies
        .iter()
        .map(|b| {
            let triangles = match model.shapes.get(b.shape as usize).map(|s| &s.geometry) {
                Some(Geometry::Mesh(m)) => m.triangles,
                _ => 1,
            };
            f64::from(triangles.max(1))
        })
        .collect()
}
