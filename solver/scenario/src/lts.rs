//! The `lts:` section of a scenario: settings of the local time stepping integrators
//! (seed 004; `integrator: local_time_stepping` and `global_adaptive`). Every key is
//! optional. The section belongs to those two integrators, like `picard:` belongs to the
//! implicit ones: `explicit` validates and ignores both (so one `integrator:` line switches
//! a scene between explicit, implicit and local time stepping), an implicit integrator
//! refuses `lts:` at the key (`file:line:column`), and the local time stepping ones refuse
//! `picard:` (see `implicit`).
//!
//! `interval_s` is the synchronisation interval (clusters never step past it; frames and
//! checkpoints see synchronised states). Absent, it is `time.dt`, so a scenario written
//! before the key keeps its meaning; present, `time.dt` stays the step of the other
//! integrators and `time.output_every` keeps counting steps of `time.dt`: the frames'
//! spacing `output_every · dt` must be a whole number of intervals (checked at the key).
//!
//! ```yaml
//! lts:
//!   interval_s: 1.0e-3            # synchronisation interval [s] (default time.dt)
//!   min_step_s: 1.0e-9            # floor of a cluster's time step size [s]
//!   max_sweeps_per_interval: 100000
//!   span_memory: 0.5              # C of eq. (3): weight of time.dt in a particle's span
//!   impulse:                      # sequential impulses (seed 004 §6); solver defaults
//!     max_iterations: 200
//!     tolerance: 1.0e-9
//!     relaxation: 1.0
//!     separation_fraction: 0.5
//!     fallback_iterations: 20000  # convex-relaxation fallback (0: off)
//! ```

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::integrator::IntegratorSpec;
use crate::{names, values};

/// Settings of the sequential-impulse solver as written; `None` keeps the solver's default.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ImpulseParams {
    /// Most Picard sweeps over the contact points per cluster.
    #[serde(
        default,
        deserialize_with = "some_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_iterations: Option<u32>,
    /// Relative tolerance of the accumulated normal impulses.
    #[serde(
        default,
        deserialize_with = "some_positive",
        skip_serializing_if = "Option::is_none"
    )]
    pub tolerance: Option<f64>,
    /// Under-relaxation ω in (0, 1].
    #[serde(
        default,
        deserialize_with = "some_fraction_open",
        skip_serializing_if = "Option::is_none"
    )]
    pub relaxation: Option<f64>,
    /// Fraction in [0, 1] of the halo violation removed per collision.
    #[serde(
        default,
        deserialize_with = "some_fraction",
        skip_serializing_if = "Option::is_none"
    )]
    pub separation_fraction: Option<f64>,
    /// Most steps of the collision solve's fallback (the convex relaxation of the Coulomb
    /// problem by accelerated projected gradients, issue 12); 0 switches it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_iterations: Option<u32>,
}

/// Settings of the local time stepping integrators (pure data).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LtsParams {
    /// Synchronisation interval \[s\] (seed 004 §2: the local steps of one solver step
    /// stay inside it); `None`: `time.dt`. See [`LtsParams::interval`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// Floor of a cluster's time step size \[s\]: a cluster whose narrowed step falls below
    /// it stops the run with an error naming its particles and the time.
    pub min_step_s: f64,
    /// Most sweeps per synchronisation interval (`time.dt`) before the run stops.
    pub max_sweeps_per_interval: u32,
    /// `C` of seed 004 eq. (3): a particle's span is `C·dt + (1 − C)·(t − t⁻)`.
    pub span_memory: f64,
    /// Sequential-impulse settings.
    pub impulse: ImpulseParams,
}

impl Default for LtsParams {
    fn default() -> Self {
        LtsParams {
            interval_s: None,
            min_step_s: 1e-9,
            max_sweeps_per_interval: 100_000,
            span_memory: 0.5,
            impulse: ImpulseParams::default(),
        }
    }
}

fn default_min_step() -> f64 {
    LtsParams::default().min_step_s
}
fn default_max_sweeps() -> u32 {
    LtsParams::default().max_sweeps_per_interval
}
fn default_span_memory() -> f64 {
    LtsParams::default().span_memory
}

fn some_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    values::count(d).map(Some)
}
fn some_positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    values::positive(d).map(Some)
}
fn fraction<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = values::finite(d)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format_args!(
            "must be in [0, 1], got {}",
            values::show(v)
        )))
    }
}
fn some_fraction<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fraction(d).map(Some)
}
fn some_fraction_open<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = fraction(d)?;
    if v > 0.0 {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom("must be in (0, 1], got 0"))
    }
}

impl LtsParams {
    /// The synchronisation interval \[s\] of a scenario whose step is `dt` \[s\]:
    /// `interval_s`, or `dt` where it is absent.
    pub fn interval(&self, dt: f64) -> f64 {
        self.interval_s.unwrap_or(dt)
    }

    /// `time.output_every` (steps of `dt`) as a number of intervals: the frames' spacing
    /// `output_every · dt` over [`LtsParams::interval`], rounded (the scenario check makes
    /// it a whole number ≥ 1 within 10⁻⁹).
    pub fn output_every_intervals(&self, dt: f64, output_every: u32) -> u32 {
        match self.interval_s {
            None => output_every,
            Some(interval) => {
                let n = (f64::from(output_every) * dt / interval).round();
                if n >= 1.0 && n <= f64::from(u32::MAX) {
                    n as u32
                } else {
                    output_every
                }
            }
        }
    }
}

/// `lts.interval_s`: positive, and where the scenario's `time` is known (second parsing
/// pass) the frames' spacing `time.output_every · time.dt` a whole number of intervals;
/// checked inside the scalar's visitor, so an error carries the value's line and column.
fn interval<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct IntervalVisitor;

    impl Visitor<'_> for IntervalVisitor {
        type Value = f64;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a finite number > 0 (seconds)")
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            let interval = values::positive_value::<E>(v)?;
            if let Some((dt, every)) = names::time_known() {
                let spacing = f64::from(every) * dt;
                let n = spacing / interval;
                if n.round() < 1.0 || (n - n.round()).abs() > 1e-9 * n.max(1.0) {
                    return Err(E::custom(format_args!(
                        "the frames' spacing time.output_every × time.dt = {} s must be a \
                         whole number of intervals, got {} intervals of {} s",
                        values::show(spacing),
                        values::show(n),
                        values::show(interval)
                    )));
                }
            }
            Ok(interval)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }
    }

    d.deserialize_f64(IntervalVisitor).map(Some)
}

/// The `lts:` keys as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LtsFields {
    #[serde(default, deserialize_with = "interval")]
    interval_s: Option<f64>,
    #[serde(default = "default_min_step", deserialize_with = "values::positive")]
    min_step_s: f64,
    #[serde(default = "default_max_sweeps", deserialize_with = "values::count")]
    max_sweeps_per_interval: u32,
    #[serde(default = "default_span_memory", deserialize_with = "fraction")]
    span_memory: f64,
    #[serde(default)]
    impulse: ImpulseParams,
}

/// The `lts:` mapping; refused where the scenario's integrator is an implicit one (known
/// in the second parsing pass); `explicit` validates and ignores it.
pub(crate) fn lts<'de, D: Deserializer<'de>>(d: D) -> Result<LtsParams, D::Error> {
    struct LtsVisitor;

    impl<'de> Visitor<'de> for LtsVisitor {
        type Value = LtsParams;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping of local time stepping settings (min_step_s, impulse, ...)")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LtsParams, A::Error> {
            if let Some(integrator) = names::integrator_known() {
                if integrator.picard_variant().is_some() {
                    return Err(de::Error::custom(format_args!(
                        "`lts:` holds the settings of `integrator: local_time_stepping` and \
                         `global_adaptive`; `integrator: {}` does not use it — remove it \
                         (its settings are under `picard:`)",
                        integrator.key()
                    )));
                }
            }
            let f = LtsFields::deserialize(de::value::MapAccessDeserializer::new(map))?;
            Ok(LtsParams {
                interval_s: f.interval_s,
                min_step_s: f.min_step_s,
                max_sweeps_per_interval: f.max_sweeps_per_interval,
                span_memory: f.span_memory,
                impulse: f.impulse,
            })
        }
    }

    d.deserialize_map(LtsVisitor)
}

/// The step a run of `integrator` takes \[s\] and its frames' spacing in those steps:
/// `(dt, output_every)` as written, for the local time stepping integrators
/// `(`[`LtsParams::interval`]`, `[`LtsParams::output_every_intervals`]`)`.
pub fn run_step(
    integrator: IntegratorSpec,
    lts: &LtsParams,
    dt: f64,
    output_every: u32,
) -> (f64, u32) {
    if integrator.is_local_time_stepping() {
        (
            lts.interval(dt),
            lts.output_every_intervals(dt, output_every),
        )
    } else {
        (dt, output_every)
    }
}

/// Whether `integrator` is one of the local time stepping integrators.
pub fn is_lts(integrator: IntegratorSpec) -> bool {
    integrator.is_local_time_stepping()
}
