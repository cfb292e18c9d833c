//! `pairs:` generator — particle pairs on a head-on collision course (seed 004 §8.1, the
//! particle-pairs setup): two columns along z, one particle of every pair in each; pair
//! `i` sits at height `origin.z + i·pitch_m`, its two particles `separation_m` apart along
//! x, each moving towards its partner with its own speed drawn uniformly from
//! `speed_m_s: [min, max]`. Every pair moves on its own horizontal line, so without gravity
//! it collides once, head-on, and never meets another pair.
//!
//! ```yaml
//! - pairs: { shape: ball, material: rock, count: 64, origin: [0, 0, 0], pitch_m: 0.1,
//!            separation_m: 0.5, speed_m_s: [0.5, 2.0] }
//! ```

use serde::de::{self, MapAccess};
use serde::{Deserialize, Serialize};

use crate::{names, values};

/// `pairs:` generator (see the module docs). Particles come pair by pair, the one at
/// smaller x first.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PairsSpec {
    /// Shape name.
    #[serde(deserialize_with = "names::shape_ref")]
    pub shape: String,
    /// Material name.
    #[serde(deserialize_with = "names::material_ref")]
    pub material: String,
    /// Number of pairs, ≥ 1 (2·count particles).
    #[serde(deserialize_with = "values::count")]
    pub count: u32,
    /// Midpoint of the first pair's centres \[m\].
    #[serde(deserialize_with = "values::vec3")]
    pub origin: [f64; 3],
    /// Vertical distance between consecutive pairs \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub pitch_m: f64,
    /// Initial distance between the centres of a pair, along x \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub separation_m: f64,
    /// Range `[min, max]` of the speeds towards the partner [m/s], `0 < min ≤ max`.
    pub speed_m_s: [f64; 2],
}

/// Reads a `pairs:` body, checking the speed range and adding the particles to the
/// scenario's running total.
pub(crate) fn next_pairs<'de, A: MapAccess<'de>>(map: &mut A) -> Result<PairsSpec, A::Error> {
    let spec: PairsSpec = map.next_value()?;
    let [lo, hi] = spec.speed_m_s;
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo <= hi) {
        return Err(de::Error::custom(format_args!(
            "pairs speed_m_s must be [min, max] with 0 < min ≤ max, got [{}, {}]",
            values::show(lo),
            values::show(hi)
        )));
    }
    names::add_particles(2 * u64::from(spec.count)).map_err(de::Error::custom)?;
    Ok(spec)
}
