//! `stack:` placement (seed 004 §8.2): stacks on a Cartesian layout, layer `k` of a stack
//! shifted by `k·slant` along x, the slant linear from the first to the last stack of a row.

use msdem_geom::math::{Quat, Vec3};

use super::placed::Placed;
use crate::scenario::StackSpec;

/// The particles of `spec`, stack by stack (x fastest), bottom to top, at rest.
pub fn place(spec: &StackSpec) -> Vec<Placed> {
    let [nx, ny] = spec.stacks;
    let origin = Vec3::from(spec.origin);
    let mut out = Vec::with_capacity(usize::try_from(spec.total()).unwrap_or(0));
    for iy in 0..ny {
        for ix in 0..nx {
            let t = if nx > 1 {
                f64::from(ix) / f64::from(nx - 1)
            } else {
                0.0
            };
            let slant = spec.slant_m[0] + t * (spec.slant_m[1] - spec.slant_m[0]);
            let base = origin
                + Vec3::new(
                    f64::from(ix) * spec.pitch_m[0],
                    f64::from(iy) * spec.pitch_m[1],
                    0.0,
                );
            for k in 0..spec.count {
                let k = f64::from(k);
                out.push(Placed {
                    position: base + Vec3::new(k * slant, 0.0, k * spec.layer_m),
                    orientation: Quat::identity(),
                    velocity: Vec3::zeros(),
                });
            }
        }
    }
    out
}
