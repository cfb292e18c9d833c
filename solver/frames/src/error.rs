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
    /// The file does not start with the expected magic.
    #[error("{path}: not a msdem {what} file (wrong magic)")]
    Magic {
        /// File concerned.
        path: std::path::PathBuf,
        /// Expected kind of file.
        what: &'static str,
    },
    /// The file has another format version.
    #[error(
        "{path}: format version {found}, this build reads version {expected}; {}",
        version_hint(*found, *expected)
    )]
    Version {
        /// File concerned.
        path: std::path::PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The file is shorter than its header says (or than the header itself): typically a
    /// copy that did not finish.
    #[error("{path}: truncated {what} file: {found} bytes, expected {expected}")]
    Truncated {
        /// File concerned.
        path: std::path::PathBuf,
        /// Kind of file.
        what: &'static str,
        /// Size of the file \[bytes\].
        found: u64,
        /// Size the header announces (the header's size when the header itself is cut).
        expected: u64,
    },
    /// The body's SHA-256 differs from the one in the header: the file was altered or
    /// damaged after it was written.
    #[error("{path}: checksum mismatch: the {what} file was altered or damaged after the solver wrote it")]
    Checksum {
        /// File concerned.
        path: std::path::PathBuf,
        /// Kind of file.
        what: &'static str,
    },
    /// The body has the right length and checksum but does not decode as the record (a
    /// file made by another program), or the file is longer than its header says.
    #[error("{path}: corrupt {what} file: {detail}")]
    Corrupt {
        /// File concerned.
        path: std::path::PathBuf,
        /// Kind of file.
        what: &'static str,
        /// Decoder message.
        detail: String,
    },
}

/// What to do about a file of another format version.
fn version_hint(found: u32, expected: u32) -> &'static str {
    if found < expected {
        "rerun the solver to write it again"
    } else {
        "it was written by a newer msdem: export it with that build"
    }
}
