//! Errors of the surrogate-tree crate (one enum, messages carry path / node / value).

use std::path::PathBuf;

/// Everything that can go wrong building, validating, reading or writing a surrogate tree.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// A builder parameter is out of range.
    #[error("invalid tree-builder parameter {name} = {value}: {reason}")]
    Param {
        /// Parameter name as on the command line.
        name: &'static str,
        /// Offending value.
        value: String,
        /// What is required.
        reason: &'static str,
    },
    /// The mesh has no triangles.
    #[error("mesh has no triangles")]
    EmptyMesh,
    /// A mesh vertex is NaN or infinite.
    #[error("mesh triangle {triangle} has a non-finite vertex coordinate {value}")]
    NonFinite {
        /// Triangle index in the source mesh.
        triangle: usize,
        /// Offending coordinate.
        value: f64,
    },
    /// The mesh has more triangles than the `u32` indices of the tree format allow.
    #[error("mesh has {0} triangles, more than the tree format supports")]
    TooLarge(usize),
    /// The validator found a broken invariant.
    #[error("invalid surrogate tree: node {node}: {what}")]
    Invalid {
        /// Node index (or soup index for soup-level problems).
        node: usize,
        /// The broken invariant, with the offending values.
        what: String,
    },
    /// I/O failure.
    #[error("{}: {source}", path.display())]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file is not a tree file, is of another version, truncated or corrupt.
    #[error("{}: {what}", path.display())]
    Format {
        /// File concerned.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The tree was built from other mesh bytes than the mesh now in use.
    #[error(
        "{}: stale surrogate tree (built from mesh {found}, expected {expected}); rebuild it with `treebuild`",
        path.display()
    )]
    Stale {
        /// Tree file.
        path: PathBuf,
        /// Hex prefix of the hash stored in the file.
        found: String,
        /// Hex prefix of the hash of the mesh in use.
        expected: String,
    },
    /// The mesh could not be read or failed its checks (treebuild stage); the message
    /// names the mesh file.
    #[error(transparent)]
    Mesh(#[from] msdem_mesh::MeshError),
}

/// Hex encoding of the first `n` bytes of a hash (for messages).
pub(crate) fn hex_prefix(h: &[u8; 32], n: usize) -> String {
    h.iter().take(n).map(|b| format!("{b:02x}")).collect()
}
