//! Reading a scenario file: version first, then the full schema, then name references.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::names::{self, Known};
use crate::yaml::{self, YamlLimitError};
use crate::{Scenario, ScenarioError, SCENARIO_VERSION};

/// Reads and validates the scenario file at `path` (see the schema in [`crate`]).
///
/// Errors are one line, `FILE:LINE:COLUMN: key.path: message`. A file larger than
/// [`yaml::MAX_YAML_BYTES`] is refused before it is read.
pub fn load_scenario(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = yaml::read_yaml_file(path).map_err(|e| limit_error(path, e))?;
    parse_scenario(&text, path)
}

/// A refusal of [`yaml`] as a scenario error naming `file`.
fn limit_error(file: &Path, e: YamlLimitError) -> ScenarioError {
    match e {
        YamlLimitError::Io(source) => ScenarioError::Io {
            path: file.to_path_buf(),
            source,
        },
        YamlLimitError::TooDeep { line, column } => ScenarioError::Located {
            file: file.to_path_buf(),
            line,
            column,
            message: e.message(),
        },
        YamlLimitError::TooLarge { .. } => ScenarioError::Unlocated {
            file: file.to_path_buf(),
            message: e.message(),
        },
    }
}

/// Parses scenario-file text; `file` names the file in errors and anchors relative paths.
pub fn parse_scenario(text: &str, file: &Path) -> Result<Scenario, ScenarioError> {
    let located = |e: serde_norway::Error| ScenarioError::from_yaml(file, e);
    // 0. Size and nesting depth before the parser sees the text (a leading byte-order
    //    mark is dropped), then duplicate keys anywhere (serde would keep the last).
    let text = yaml::check_yaml_text(text).map_err(|e| limit_error(file, e))?;
    yaml::check_duplicate_keys(text).map_err(located)?;
    // 1. The version, before anything else: a file of another version may use other keys.
    let probe: VersionProbe = serde_norway::from_str(text).map_err(located)?;
    if probe.version.is_none() {
        return Err(ScenarioError::Located {
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
    //    `name` is optional in the shared schema (a pipeline's scenario has none).
    let _: NameProbe = serde_norway::from_str(text).map_err(located)?;
    // 3. Again with the defined names (and the integrator) installed, so that an unknown
    //    name, or a detection mode that contradicts the integrator, is reported where it is
    //    written.
    let known = Known::of(&first);
    let mut scenario: Scenario =
        names::with_known(known, || serde_norway::from_str(text)).map_err(located)?;
    scenario.file = file.to_path_buf();
    Ok(scenario)
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

/// Only the `name` key, required in a scenario file.
#[derive(Deserialize)]
struct NameProbe {
    #[serde(rename = "name")]
    _name: de::IgnoredAny,
}
