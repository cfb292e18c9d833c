//! The error type of the mesh crate.

use std::path::PathBuf;

/// Everything that can go wrong while reading, writing, checking or generating a mesh.
///
/// Messages name the file (or parameter) and, where there is one, the offending element
/// index or value, so that a binary can print them as a single line.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file extension names no supported mesh format.
    #[error("{}: unsupported mesh format {ext:?} (expected .ply, .obj or .stl)", path.display())]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// Its extension (empty if none).
        ext: String,
    },
    /// The file content is not a valid mesh of its format.
    #[error("{}: {format} parse error: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `"PLY"`, `"OBJ"` or `"STL"`.
        format: &'static str,
        /// What is wrong, with the element index or line where known.
        message: String,
    },
    /// The mesh breaks a topological or geometric requirement (see [`crate::check`]).
    #[error("{}: {problem}", path.display())]
    Invalid {
        /// The file (or a description of the mesh's origin).
        path: PathBuf,
        /// The first problem found, e.g. `open mesh: 3 boundary edges, first (12, 40) of triangle 7`.
        problem: String,
    },
    /// A generator parameter is out of its valid range.
    #[error("invalid parameter {name} = {value}: {reason}")]
    Parameter {
        /// Parameter name as on the command line, e.g. `--eta`.
        name: &'static str,
        /// The offending value.
        value: String,
        /// The accepted range.
        reason: String,
    },
    /// The output path names the input file (also through a link or another spelling):
    /// writing it would destroy the input.
    #[error("{}: is the input file {}; choose another output path", output.display(), input.display())]
    OutputIsInput {
        /// The output path as given.
        output: PathBuf,
        /// The input path as given.
        input: PathBuf,
    },
    /// Mass properties are undefined for this mesh or density.
    #[error("mass properties: {0}")]
    Mass(String),
}

impl MeshError {
    /// Shorthand for [`MeshError::Parameter`].
    pub fn parameter(name: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        MeshError::Parameter {
            name,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
