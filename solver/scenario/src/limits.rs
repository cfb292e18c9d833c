//! `limits:` — caps that refuse a scenario before the solver allocates for it.
//!
//! The particle count of a scenario (listed particles plus every generator's count,
//! counted in `u64`, so `lattice: { count: [65536, 65536, 1] }` is 2³² and not 0) must not
//! exceed [`LimitsSpec::max_particles`]; the generator count that crosses it is refused at
//! its own `line:column` while parsing (see `names`), and the solver checks the total
//! again before it places anything.

use serde::{Deserialize, Serialize};

use crate::values;

/// The default particle cap: 10⁷ particles take a few GB of state and hours of set-up with
/// random placement; a deliberate larger run raises it in its scenario.
pub const DEFAULT_MAX_PARTICLES: u64 = 10_000_000;

/// `limits:` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// The most particles the scenario may have, ≥ 1 (default [`DEFAULT_MAX_PARTICLES`]).
    #[serde(
        default = "default_max_particles",
        deserialize_with = "values::count_u64"
    )]
    pub max_particles: u64,
}

fn default_max_particles() -> u64 {
    DEFAULT_MAX_PARTICLES
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            max_particles: DEFAULT_MAX_PARTICLES,
        }
    }
}

/// The particles of `count` along x, y, z of a lattice (`None` beyond `u64`).
pub fn lattice_total(count: [u32; 3]) -> Option<u64> {
    count
        .iter()
        .try_fold(1u64, |n, &c| n.checked_mul(u64::from(c)))
}
