//! `ring:` generator — a tower of rings of particles, e.g. cubes laid like bricks
//! (seed 004 §8.2, the tower setup): `layers` rings `layer_m` above each other, each of
//! `count` particles on a circle of radius `radius_m` about the vertical axis through
//! `center`, every particle turned about z to face outwards. With `stagger` (default true)
//! every other ring is turned by half a place, like courses of bricks.
//!
//! ```yaml
//! - ring: { shape: cube, material: brick, count: 32, layers: 4, center: [0, 0, 0.051],
//!           radius_m: 0.6, layer_m: 0.102 }
//! ```

use serde::de::{self, MapAccess};
use serde::{Deserialize, Serialize};

use crate::{names, values};

fn yes() -> bool {
    true
}

/// `ring:` generator (see the module docs). Particles come ring by ring, bottom first,
/// counter-clockwise from +x.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RingSpec {
    /// Shape name.
    #[serde(deserialize_with = "names::shape_ref")]
    pub shape: String,
    /// Material name.
    #[serde(deserialize_with = "names::material_ref")]
    pub material: String,
    /// Particles per ring, ≥ 1.
    #[serde(deserialize_with = "values::count")]
    pub count: u32,
    /// Rings, ≥ 1.
    #[serde(deserialize_with = "values::count")]
    pub layers: u32,
    /// Centre of the bottom ring (the height of its particles' centres of mass) \[m\].
    #[serde(deserialize_with = "values::vec3")]
    pub center: [f64; 3],
    /// Radius of the circle through the centres of mass \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub radius_m: f64,
    /// Vertical distance between consecutive rings \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub layer_m: f64,
    /// Turn every other ring by half a place (default true).
    #[serde(default = "yes")]
    pub stagger: bool,
}

impl RingSpec {
    /// Particles generated: `count·layers`.
    pub fn total(&self) -> u64 {
        u64::from(self.count) * u64::from(self.layers)
    }
}

/// Reads a `ring:` body and adds its particles to the scenario's running total.
pub(crate) fn next_ring<'de, A: MapAccess<'de>>(map: &mut A) -> Result<RingSpec, A::Error> {
    let spec: RingSpec = map.next_value()?;
    names::add_particles(spec.total()).map_err(de::Error::custom)?;
    Ok(spec)
}
