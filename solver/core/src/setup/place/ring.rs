//! `ring:` placement (seed 004 §8.2, the tower): rings of particles about a vertical axis,
//! each particle turned about z by its polar angle so that one face looks outwards; with
//! `stagger` every other ring turned by half a place.

use msdem_geom::math::{Quat, Vec3};

use super::placed::Placed;
use crate::scenario::RingSpec;

/// The particles of `spec`, ring by ring from the bottom, counter-clockwise from +x, at
/// rest.
pub fn place(spec: &RingSpec) -> Vec<Placed> {
    let centre = Vec3::from(spec.center);
    let step = std::f64::consts::TAU / f64::from(spec.count);
    let mut out = Vec::with_capacity(usize::try_from(spec.total()).unwrap_or(0));
    for layer in 0..spec.layers {
        let offset = if spec.stagger && layer % 2 == 1 {
            0.5 * step
        } else {
            0.0
        };
        for j in 0..spec.count {
            let angle = f64::from(j) * step + offset;
            let radial = Vec3::new(angle.cos(), angle.sin(), 0.0);
            out.push(Placed {
                position: centre
                    + radial * spec.radius_m
                    + Vec3::new(0.0, 0.0, f64::from(layer) * spec.layer_m),
                orientation: Quat::from_axis_angle(&Vec3::z_axis(), angle),
                velocity: Vec3::zeros(),
            });
        }
    }
    out
}
