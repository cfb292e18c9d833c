//! The implicit-integrator keys of a scenario: the `picard:` section and the check that
//! `detection.mode`, where written, agrees with the implicit variant.
//!
//! Both checks run inside the YAML node's own visitor, so errors carry that node's
//! `file:line:column` and key path: single-field ranges at the offending scalar, the
//! cross-field rules of [`PicardParams::validate`] at the `picard:` mapping.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use crate::picard::{NoConvergence, PicardAcceleration, PicardParams, PicardScheme, PicardVariant};
use crate::spec::DetectionModeSpec;
use crate::{names, values};

fn default_tolerance() -> f64 {
    PicardParams::default().tolerance
}
fn default_max_iterations() -> u32 {
    PicardParams::default().max_iterations
}
fn default_relaxation() -> f64 {
    PicardParams::default().relaxation
}
fn default_min_relaxation() -> f64 {
    PicardParams::default().min_relaxation
}
fn default_max_relaxation() -> f64 {
    PicardParams::default().max_relaxation
}
fn default_force_floor() -> f64 {
    PicardParams::default().force_floor
}
fn default_coarse_force_damping() -> f64 {
    PicardParams::default().coarse_force_damping
}
fn default_keep_active_sets() -> bool {
    PicardParams::default().keep_active_sets
}
fn default_local_updates() -> bool {
    PicardParams::default().local_updates
}
/// `picard.theta` where written (only `scheme: theta` takes it).
fn some_theta<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    values::theta(d).map(Some)
}
fn default_max_substep_levels() -> u32 {
    PicardParams::default().max_substep_levels
}

/// The `picard:` keys as written; every key is optional (default: [`PicardParams::default`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PicardFields {
    #[serde(default = "default_tolerance", deserialize_with = "values::positive")]
    tolerance: f64,
    #[serde(default = "default_max_iterations", deserialize_with = "values::count")]
    max_iterations: u32,
    #[serde(default = "default_relaxation", deserialize_with = "values::positive")]
    relaxation: f64,
    #[serde(
        default = "default_min_relaxation",
        deserialize_with = "values::positive"
    )]
    min_relaxation: f64,
    #[serde(
        default = "default_max_relaxation",
        deserialize_with = "values::positive"
    )]
    max_relaxation: f64,
    #[serde(
        default = "default_force_floor",
        deserialize_with = "values::non_negative"
    )]
    force_floor: f64,
    #[serde(
        default = "default_coarse_force_damping",
        deserialize_with = "values::non_negative"
    )]
    coarse_force_damping: f64,
    #[serde(default = "default_keep_active_sets")]
    keep_active_sets: bool,
    #[serde(default = "default_local_updates")]
    local_updates: bool,
    #[serde(default)]
    scheme: PicardScheme,
    #[serde(default, deserialize_with = "some_theta")]
    theta: Option<f64>,
    #[serde(default)]
    acceleration: PicardAcceleration,
    #[serde(default)]
    on_no_convergence: NoConvergence,
    #[serde(default = "default_max_substep_levels")]
    max_substep_levels: u32,
}

/// The `picard:` mapping, validated with [`PicardParams::validate`].
pub(crate) fn picard<'de, D: Deserializer<'de>>(d: D) -> Result<PicardParams, D::Error> {
    struct PicardVisitor;

    impl<'de> Visitor<'de> for PicardVisitor {
        type Value = PicardParams;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping of Picard settings (tolerance, max_iterations, ...)")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PicardParams, A::Error> {
            if let Some(integrator) = names::integrator_known() {
                if integrator.is_local_time_stepping() {
                    return Err(de::Error::custom(format_args!(
                        "`picard:` holds the settings of the implicit integrators; \
                         `integrator: {}` does not use it — remove it (its settings are \
                         under `lts:`)",
                        integrator.key()
                    )));
                }
            }
            let f = PicardFields::deserialize(de::value::MapAccessDeserializer::new(map))?;
            if f.theta.is_some() && f.scheme != PicardScheme::Theta {
                return Err(de::Error::custom(format_args!(
                    "`theta` is the implicitness of `scheme: theta`; `scheme: {}` does \
                     not use it — remove it or write `scheme: theta`",
                    scheme_key(f.scheme)
                )));
            }
            let p = PicardParams {
                tolerance: f.tolerance,
                max_iterations: f.max_iterations,
                relaxation: f.relaxation,
                min_relaxation: f.min_relaxation,
                max_relaxation: f.max_relaxation,
                force_floor: f.force_floor,
                coarse_force_damping: f.coarse_force_damping,
                keep_active_sets: f.keep_active_sets,
                local_updates: f.local_updates,
                scheme: f.scheme,
                theta: f.theta.unwrap_or(PicardParams::default().theta),
                acceleration: f.acceleration,
                on_no_convergence: f.on_no_convergence,
                max_substep_levels: f.max_substep_levels,
            };
            p.validate().map_err(|e| {
                de::Error::custom(format_args!("{} = {}: {}", e.field, e.value, e.reason))
            })?;
            Ok(p)
        }
    }

    d.deserialize_map(PicardVisitor)
}

/// The scenario's spelling of `scheme`.
fn scheme_key(scheme: PicardScheme) -> &'static str {
    match scheme {
        PicardScheme::Euler => "euler",
        PicardScheme::Midpoint => "midpoint",
        PicardScheme::Theta => "theta",
        PicardScheme::Split => "split",
    }
}

/// `detection.mode`: refused where it contradicts the implicit variant chosen by
/// `integrator:` (known in the second parsing pass, see `load`); an agreeing mode is
/// accepted, and an explicit run uses it as written.
pub(crate) fn detection_mode<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<DetectionModeSpec, D::Error> {
    struct ModeVisitor;

    impl Visitor<'_> for ModeVisitor {
        type Value = DetectionModeSpec;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("`hierarchy` or `flat`")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<DetectionModeSpec, E> {
            let mode = match v {
                "hierarchy" => DetectionModeSpec::Hierarchy,
                "flat" => DetectionModeSpec::Flat,
                _ => return Err(E::unknown_variant(v, &["hierarchy", "flat"])),
            };
            let integrator = names::integrator();
            let wanted = match integrator.picard_variant() {
                None => return Ok(mode),
                Some(PicardVariant::Flat) => DetectionModeSpec::Flat,
                Some(_) => DetectionModeSpec::Hierarchy,
            };
            if mode == wanted {
                Ok(mode)
            } else {
                Err(E::custom(format_args!(
                    "`{v}` contradicts `integrator: {}`, which chooses its own contact \
                     detection; leave `detection.mode` out for implicit integrators",
                    integrator.key()
                )))
            }
        }
    }

    d.deserialize_str(ModeVisitor)
}
