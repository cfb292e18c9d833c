//! `limits:` — caps that refuse a scenario before the solver allocates for it.
//!
//! The particle count of a scenario (listed particles plus every generator's count,
//! counted in `u64`, so `lattice: { count: [65536, 65536, 1] }` is 2³² and not 0) must not
//! exceed [`LimitsSpec::max_particles`]; the generator count that crosses it is refused at
//! its own `line:column` while parsing (see `names`), and the solver checks the total
//! again before it places anything.
//!
//! Run length and resources (issue 16, "limits up front"): the step count `end/dt` must not
//! exceed [`LimitsSpec::max_steps`] (default [`DEFAULT_MAX_STEPS`]; the solver's
//! `--max-steps` overrides it), and the memory and disk the solver estimates for the
//! scenario must fit [`LimitsSpec::memory_bytes`] / [`LimitsSpec::disk_bytes`] when given,
//! as well as what the machine has; the solver checks all of it before it allocates or
//! writes anything.

use serde::{Deserialize, Serialize};

use crate::values;

/// The default run-length cap \[steps\]: 10⁸ explicit steps of a small scene take days;
/// a longer run says so in its scenario (`limits.max_steps`) or with `--max-steps`.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

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
    /// The most time steps (`end/dt`, rounded up) the run may take, ≥ 1 (default
    /// [`DEFAULT_MAX_STEPS`]).
    #[serde(default = "default_max_steps", deserialize_with = "values::count_u64")]
    pub max_steps: u64,
    /// Cap on the solver's estimated memory \[bytes\] (default: none beyond what the
    /// machine has available).
    #[serde(
        default,
        deserialize_with = "some_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub memory_bytes: Option<u64>,
    /// Cap on the estimated size of the run's output \[bytes\] (default: none beyond the
    /// free space of the output folder's file system).
    #[serde(
        default,
        deserialize_with = "some_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub disk_bytes: Option<u64>,
}

fn some_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    values::count_u64(d).map(Some)
}

fn default_max_particles() -> u64 {
    DEFAULT_MAX_PARTICLES
}

fn default_max_steps() -> u64 {
    DEFAULT_MAX_STEPS
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            max_particles: DEFAULT_MAX_PARTICLES,
            max_steps: DEFAULT_MAX_STEPS,
            memory_bytes: None,
            disk_bytes: None,
        }
    }
}

/// The particles of `count` along x, y, z of a lattice (`None` beyond `u64`).
pub fn lattice_total(count: [u32; 3]) -> Option<u64> {
    count
        .iter()
        .try_fold(1u64, |n, &c| n.checked_mul(u64::from(c)))
}

/// `x` in short scientific form for messages (issue 16: no numbers with hundreds of
/// digits): `2.4e10`, `1.0e8`, `inf`.
pub fn short(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1e}")
    } else {
        format!("{x}")
    }
}
