//! `checkpoint:` — how often the solver writes a checkpoint of the run (issue 16).
//!
//! `checkpoint: { every_steps: N, every_wall_s: T }`: a checkpoint after every `N` steps
//! and/or once `T` seconds of wall time passed since the last one; 0 switches that cadence
//! off. An absent key leaves the solver's default (no step cadence, 60 s of wall time); the
//! solver's `--checkpoint-every-steps` / `--checkpoint-every-wall-s` flags override the
//! scenario's values. The cadence decides only when checkpoints are taken, never what a run
//! computes: a resumed run's frames and statistics are the same whatever the cadence, and
//! changing it does not make a checkpoint one "of another run".

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Serialize};

use crate::values;

/// `checkpoint:` section; `None`: the solver's default for that cadence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSpec {
    /// Steps between two checkpoints, ≥ 0 (0: no step cadence).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_steps"
    )]
    pub every_steps: Option<u64>,
    /// Wall time between two checkpoints \[s\], finite and ≥ 0 (0: no wall-time cadence).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_non_negative"
    )]
    pub every_wall_s: Option<f64>,
}

/// A present key's value: a finite number `≥ 0` (the message of [`values::non_negative`]).
fn some_non_negative<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    values::non_negative(d).map(Some)
}

/// A present key's value: a whole number of steps `≥ 0`.
fn some_steps<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a whole number of steps ≥ 0")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| {
                E::custom(format_args!(
                    "invalid value {v}, expected a whole number of steps ≥ 0"
                ))
            })
        }
    }
    d.deserialize_i64(V).map(Some)
}
