//! The crate's error: a scenario that cannot be read, with the file and, where the YAML
//! layer knows it, the `line:column` of the offending node.

use std::path::PathBuf;

/// Why a scenario was refused. Every message is one line, `FILE:LINE:COLUMN: key.path:
/// message` where the position is known.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// An error at a known position.
    #[error("{file}:{line}:{column}: {message}")]
    Located {
        /// Scenario file.
        file: PathBuf,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong (starts with the key path where one is known).
        message: String,
    },
    /// An error without a position (the message starts with the key path).
    #[error("{file}: {message}")]
    Unlocated {
        /// Scenario file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ScenarioError {
    /// Turns a YAML error into [`ScenarioError::Located`] (the position moved out of the
    /// message) or, without a position, [`ScenarioError::Unlocated`]; `file` names the file
    /// the text came from.
    pub fn from_yaml(file: &std::path::Path, err: serde_norway::Error) -> ScenarioError {
        let text = err.to_string();
        match err.location() {
            Some(loc) => {
                let suffix = format!(" at line {} column {}", loc.line(), loc.column());
                let message = text.replacen(&suffix, "", 1);
                ScenarioError::Located {
                    file: file.to_path_buf(),
                    line: loc.line(),
                    column: loc.column(),
                    message,
                }
            }
            None => ScenarioError::Unlocated {
                file: file.to_path_buf(),
                message: text,
            },
        }
    }
}
