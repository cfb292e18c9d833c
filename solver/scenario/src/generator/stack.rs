//! `stack:` generator — slanted stacks of particles, e.g. cubes (seed 004 §8.2, the
//! particle-stacks setup): `stacks: [nx, ny]` stacks on a Cartesian layout `pitch_m`
//! apart, each of `count` particles `layer_m` above each other. Layer `k` of a stack is
//! shifted by `k·s` along x, the slant `s` growing linearly from `slant_m[0]` for the first
//! stack of a row to `slant_m[1]` for the last, so that (seed: "all but the left-most stacks
//! are unstable") the first stacks stand and the others topple.
//!
//! ```yaml
//! - stack: { shape: cube, material: wood, count: 20, stacks: [4, 1], origin: [0, 0, 0.051],
//!            pitch_m: [0.6, 0.6], layer_m: 0.102, slant_m: [0.0, 0.03] }
//! ```

use serde::de::{self, MapAccess};
use serde::{Deserialize, Serialize};

use crate::{names, values};

/// `stack:` generator (see the module docs). Particles come stack by stack (x fastest,
/// then y), bottom to top.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StackSpec {
    /// Shape name.
    #[serde(deserialize_with = "names::shape_ref")]
    pub shape: String,
    /// Material name.
    #[serde(deserialize_with = "names::material_ref")]
    pub material: String,
    /// Particles per stack, ≥ 1.
    #[serde(deserialize_with = "values::count")]
    pub count: u32,
    /// Stacks along x and y, each ≥ 1.
    pub stacks: [u32; 2],
    /// Centre of mass of the bottom particle of the first stack \[m\].
    #[serde(deserialize_with = "values::vec3")]
    pub origin: [f64; 3],
    /// Distance between neighbouring stacks along x and y \[m\], each > 0.
    pub pitch_m: [f64; 2],
    /// Vertical distance between the centres of consecutive layers \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub layer_m: f64,
    /// Shift per layer along x of the first and of the last stack of a row \[m\].
    #[serde(default)]
    pub slant_m: [f64; 2],
}

impl StackSpec {
    /// Particles generated: `count·nx·ny`.
    pub fn total(&self) -> u64 {
        u64::from(self.count) * u64::from(self.stacks[0]) * u64::from(self.stacks[1])
    }
}

/// Reads a `stack:` body, checking its values and adding the particles to the scenario's
/// running total.
pub(crate) fn next_stack<'de, A: MapAccess<'de>>(map: &mut A) -> Result<StackSpec, A::Error> {
    let spec: StackSpec = map.next_value()?;
    if spec.stacks.contains(&0) {
        return Err(de::Error::custom(format_args!(
            "stack stacks must be ≥ 1 along x and y, got {:?}",
            spec.stacks
        )));
    }
    if !spec.pitch_m.iter().all(|p| p.is_finite() && *p > 0.0) {
        return Err(de::Error::custom(format_args!(
            "stack pitch_m must be > 0 along x and y, got [{}, {}]",
            values::show(spec.pitch_m[0]),
            values::show(spec.pitch_m[1])
        )));
    }
    if !spec.slant_m.iter().all(|s| s.is_finite()) {
        return Err(de::Error::custom("stack slant_m must be finite"));
    }
    names::add_particles(spec.total()).map_err(de::Error::custom)?;
    Ok(spec)
}
