//! Errors reading or writing run-output files.

/// Errors reading or writing run-output files.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: std::path::PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file does not start with the expected magic (or is shorter than the 12-byte
    /// header).
    #[error("{path}: not a msdem {what} file (wrong magic)")]
    Magic {
        /// File concerned.
        path: std::path::PathBuf,
        /// Expected kind of file.
        what: &'static str,
    },
    /// The file has another format version.
    #[error("{path}: format version {found}, this build reads version {expected}")]
    Version {
        /// File concerned.
        path: std::path::PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The body could not be decoded (truncated or corrupt).
    #[error("{path}: corrupt or truncated {what} file: {detail}")]
    Corrupt {
        /// File concerned.
        path: std::path::PathBuf,
        /// Kind of file.
        what: &'static str,
        /// Decoder message.
        detail: String,
    },
}
