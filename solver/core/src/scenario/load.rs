//! Reading a scenario file: version first, then the full schema, then name references.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use super::names::{self, Known};
use super::{Scenario, SCENARIO_VERSION};
use crate::error::SolverError;

/// Reads and validates the scenario at `path` (see the schema in [`crate::scenario`]).
///
/// Errors are one line, `FILE:LINE:COLUMN: key.path: message`.
pub fn load_scenario(path: &Path) -> Result<Scenario, SolverError> {
    let text = std::fs::read_to_string(path).map_err(|source| SolverError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_scenario(&text, path)
}

/// Parses scenario text; `file` names the file in errors and anchors relative paths.
pub fn parse_scenario(text: &str, file: &Path) -> Result<Scenario, SolverError> {
    let located = |e: serde_norway::Error| locate(file, e);
    // 1. The version, before anything else: a file of another version may use other keys.
    let probe: VersionProbe = serde_norway::from_str(text).map_err(located)?;
    if probe.version.is_none() {
        return Err(SolverError::Scenario {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            message: format!(
                "missing `version` (this build reads scenario files with `version: {SCENARIO_VERSION}`)"
            ),
        });
    }
    // 2. The whole schema; references to shapes and materials are not checked yet.
    let first: Scenario = serde_norway::from_str(text).map_err(located)?;
    // 3. Again with the defined names (and the integrator) installed, so that an unknown
    //    name, or a detection mode that contradicts the integrator, is reported where it is
    //    written.
    let known = Known {
        shapes: first.shapes.keys().cloned().collect(),
        materials: first.materials.keys().cloned().collect(),
        integrator: first.integrator,
    };
    let mut scenario: Scenario =
        names::with_known(known, || serde_norway::from_str(text)).map_err(located)?;
    scenario.file = file.to_path_buf();
    Ok(scenario)
}

/// Turns a YAML error into `FILE:LINE:COLUMN: message` (or `FILE: message` without position).
fn locate(file: &Path, err: serde_norway::Error) -> SolverError {
    let text = err.to_string();
    match err.location() {
        Some(loc) => {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            let message = text.replacen(&suffix, "", 1);
            SolverError::Scenario {
                file: file.to_path_buf(),
                line: loc.line(),
                column: loc.column(),
                message,
            }
        }
        None => SolverError::ScenarioUnlocated {
            file: file.to_path_buf(),
            message: text,
        },
    }
}

/// Only the `version` key; everything else is ignored in this pass.
#[derive(Deserialize)]
#[serde(expecting = "a scenario: a mapping with `version: 1`, `name`, `time`, ...")]
struct VersionProbe {
    #[serde(default, deserialize_with = "version")]
    version: Option<u32>,
}

fn version<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = Option<u32>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "the scenario format version {SCENARIO_VERSION}")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<u32>, E> {
            if v == u64::from(SCENARIO_VERSION) {
                Ok(Some(SCENARIO_VERSION))
            } else {
                Err(E::custom(format_args!(
                    "unsupported scenario version {v} (this build reads version {SCENARIO_VERSION})"
                )))
            }
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<u32>, E> {
            Err(E::custom(format_args!(
                "unsupported scenario version {v} (this build reads version {SCENARIO_VERSION})"
            )))
        }
    }
    d.deserialize_u64(V)
}
