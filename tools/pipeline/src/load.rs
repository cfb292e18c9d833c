//! Reading a pipeline file: version first, then the typed schema, then the references.

use std::path::{Path, PathBuf};

use msdem_scenario::yaml::{self, YamlLimitError};
use serde::Deserialize;

use crate::error::PipelineError;
use crate::names::{with_known, Known};
use crate::spec::{PipelineSpec, PIPELINE_VERSION};

/// Just the version key, read before anything else so that a file of another version gets
/// a version error rather than a list of schema differences.
#[derive(Deserialize)]
struct VersionProbe {
    #[serde(rename = "version")]
    _version: SupportedVersion,
}

/// A `version` value equal to [`PIPELINE_VERSION`].
struct SupportedVersion;

impl<'de> Deserialize<'de> for SupportedVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Checked inside the visitor so that the error points at the value.
        struct VersionVisitor;
        impl VersionVisitor {
            fn check<E: serde::de::Error>(
                found: impl std::fmt::Display,
            ) -> Result<SupportedVersion, E> {
                let found = found.to_string();
                if found == PIPELINE_VERSION.to_string() {
                    Ok(SupportedVersion)
                } else {
                    Err(E::custom(format!(
                        "unsupported pipeline version {found}, this runner reads version {PIPELINE_VERSION}"
                    )))
                }
            }
        }
        impl serde::de::Visitor<'_> for VersionVisitor {
            type Value = SupportedVersion;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "version {PIPELINE_VERSION}")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<SupportedVersion, E> {
                Self::check(v)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<SupportedVersion, E> {
                Self::check(v)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<SupportedVersion, E> {
                Self::check(format!("{v:?}"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SupportedVersion, E> {
                Self::check(format!("`{v}`"))
            }
        }
        d.deserialize_any(VersionVisitor)
    }
}

/// Reads and checks the pipeline file at `path` (at most
/// [`msdem_scenario::yaml::MAX_YAML_BYTES`], refused before it is read).
pub fn load_pipeline(path: &Path) -> Result<PipelineSpec, PipelineError> {
    let text = yaml::read_yaml_file(path).map_err(|e| limit_error(path, e))?;
    parse_pipeline(&text, path)
}

/// A refusal of [`msdem_scenario::yaml`] as a pipeline error naming `path`.
fn limit_error(path: &Path, e: YamlLimitError) -> PipelineError {
    match e {
        YamlLimitError::Io(source) => PipelineError::Read {
            path: path.to_owned(),
            source,
        },
        YamlLimitError::TooDeep { line, column } => PipelineError::Parse {
            path: path.to_owned(),
            line,
            column,
            message: e.message(),
        },
        YamlLimitError::TooLarge { .. } => PipelineError::ParseUnplaced {
            path: path.to_owned(),
            message: e.message(),
        },
    }
}

/// Parses pipeline text; `path` names the file in messages, and `import:` files are
/// resolved against its folder, where they must exist.
pub fn parse_pipeline(text: &str, path: &Path) -> Result<PipelineSpec, PipelineError> {
    let yaml_err = |e: serde_norway::Error| yaml_error(path, e);
    // Size and nesting depth before parsing (a byte-order mark is dropped), then duplicate
    // keys anywhere in the file, the scenario section included.
    let text = yaml::check_yaml_text(text).map_err(|e| limit_error(path, e))?;
    yaml::check_duplicate_keys(text).map_err(yaml_err)?;
    let _: VersionProbe = serde_norway::from_str(text).map_err(yaml_err)?;
    // Pass 1: the schema, references unchecked; pass 2: the references (meshes here, the
    // scenario's trees, shapes and materials and its integrator in msdem_scenario).
    let first: PipelineSpec = serde_norway::from_str(text).map_err(yaml_err)?;
    let import_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let known = Known {
        meshes: first.meshes.names(),
        import_dir: Some(import_dir),
    };
    let scenario_known = msdem_scenario::Known {
        trees: first.trees.names(),
        ..msdem_scenario::Known::of(&first.scenario)
    };
    let mut spec: PipelineSpec = with_known(known, || {
        msdem_scenario::with_known(scenario_known, || serde_norway::from_str(text))
    })
    .map_err(yaml_err)?;
    spec.scenario.name = spec.name.to_string();
    Ok(spec)
}

/// `FILE:LINE:COL: message` from a YAML error (the position moved out of the message).
fn yaml_error(path: &Path, e: serde_norway::Error) -> PipelineError {
    let text = e.to_string();
    match e.location() {
        Some(loc) => {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            let message = match text.find(&suffix) {
                Some(at) => format!("{}{}", &text[..at], &text[at + suffix.len()..]),
                None => text,
            };
            PipelineError::Parse {
                path: PathBuf::from(path),
                line: loc.line(),
                column: loc.column(),
                message,
            }
        }
        None => PipelineError::ParseUnplaced {
            path: path.to_owned(),
            message: text,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = include_str!("../../../tests/pipelines/tiny.yaml");

    #[test]
    fn a_leading_byte_order_mark_is_accepted() {
        let plain = parse_pipeline(TINY, Path::new("p.yaml")).unwrap();
        let bom = parse_pipeline(&format!("\u{feff}{TINY}"), Path::new("p.yaml")).unwrap();
        assert_eq!(plain, bom);
    }

    #[test]
    fn nesting_100k_levels_deep_is_refused_in_well_under_a_second() {
        let n = 100_000;
        let text = format!("{TINY}\nextra: {}{}\n", "[".repeat(n), "]".repeat(n));
        let start = std::time::Instant::now();
        let e = parse_pipeline(&text, Path::new("p.yaml")).unwrap_err();
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        assert!(
            e.to_string()
                .ends_with(": collections nested more than 64 levels deep"),
            "{e}"
        );
    }
}
