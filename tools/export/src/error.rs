//! Errors of the exporter.

use std::path::PathBuf;

/// Everything that can go wrong while exporting a run folder.
///
/// Every message names the file concerned and, where it helps, the offending value.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run folder does not exist.
    #[error("{path}: run folder not found")]
    MissingRun {
        /// Run folder given.
        path: PathBuf,
    },
    /// The run folder given is a file.
    #[error("{path}: is a file, not a run folder written by solver")]
    NotARunFolder {
        /// Path given.
        path: PathBuf,
    },
    /// The output folder given is a file.
    #[error("{path}: is a file, not a folder to export into")]
    OutNotAFolder {
        /// Path given.
        path: PathBuf,
    },
    /// The run folder has no manifest (`run.msdem`): not a solver run folder, or a run
    /// that did not get past its start.
    #[error("{path}: no run.msdem in this folder: not a run folder written by solver")]
    NoManifest {
        /// Run folder given.
        path: PathBuf,
    },
    /// Reading a run-output file (manifest, frame, statistics) failed.
    #[error(transparent)]
    Frame(#[from] msdem_frames::FrameError),
    /// Reading a mesh failed (the message names the file).
    #[error(transparent)]
    Mesh(#[from] msdem_mesh::MeshError),
    /// A mesh file's SHA-256 differs from the one recorded in the manifest.
    #[error("{path}: mesh changed since the run (SHA-256 {found}, manifest records {expected})")]
    MeshHash {
        /// Mesh file.
        path: PathBuf,
        /// Hash in the manifest (hex).
        expected: String,
        /// Hash of the file now (hex).
        found: String,
    },
    /// The run folder holds no frame files.
    #[error("{path}: no frame files (frame_NNNNNN.msdem)")]
    NoFrames {
        /// The `frames` folder.
        path: PathBuf,
    },
    /// The requested preview frame does not exist.
    #[error("{path}: preview frame {index} not found")]
    NoSuchFrame {
        /// The `frames` folder.
        path: PathBuf,
        /// Requested frame index.
        index: u32,
    },
    /// A frame or manifest is inconsistent with the rest of the run.
    #[error("{path}: {detail}")]
    Inconsistent {
        /// File concerned.
        path: PathBuf,
        /// What does not match.
        detail: String,
    },
    /// I/O failure on an output or input path.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// An output path holds something of another kind than the export writes there (a
    /// folder named `preview.png`, a file named `vtk`): not replaced.
    #[error("{path}: exists and is not a {expected}; move it away to export here")]
    InTheWay {
        /// Output path.
        path: PathBuf,
        /// What the export writes there: "file" or "folder".
        expected: &'static str,
    },
    /// Swapping the new outputs in failed; the previous outputs are back in place, or,
    /// where even that failed, kept in the staging folder.
    #[error("{path}: cannot replace the previous export: {source}{}", kept_note(kept.as_deref()))]
    Swap {
        /// Output that could not be moved.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
        /// Staging folder left in place because it holds previous outputs that could not
        /// be put back.
        kept: Option<PathBuf>,
    },
    /// Drawing a plot or preview failed.
    #[error("{path}: cannot draw: {detail}")]
    Draw {
        /// Output image.
        path: PathBuf,
        /// Backend message.
        detail: String,
    },
}

impl ExportError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ExportError {
        let path = path.into();
        move |source| ExportError::Io { path, source }
    }
}

fn kept_note(kept: Option<&std::path::Path>) -> String {
    match kept {
        None => " (previous export left as it was)".to_owned(),
        Some(p) => format!(
            " (some previous outputs could not be put back: they are in {})",
            p.join("previous").display()
        ),
    }
}

/// Lower-case hex of a hash, for messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
