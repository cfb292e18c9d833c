//! The crate's error type: every message names the file, stage or value at fault.

use std::path::PathBuf;

/// Everything that can go wrong while loading or running a pipeline.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file or folder could not be written, created, renamed or removed.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The pipeline file is not valid YAML or does not match the schema.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        /// The pipeline file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Like [`PipelineError::Parse`], for errors the YAML parser could not place.
    #[error("{}: {message}", path.display())]
    ParseUnplaced {
        /// The pipeline file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A value of the pipeline cannot be turned into a command line or a scenario.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The pipeline file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `--only` named no stage of the pipeline.
    #[error("--only {value}: no such stage (expected mesh, tree, solve or export, optionally followed by :NAME, e.g. tree:grain)")]
    UnknownStage {
        /// The value given.
        value: String,
    },
    /// A stage binary is not where the runner looks for it.
    #[error("{}: stage binary not found (build it with `cargo build --workspace --release --bins`)", path.display())]
    BinaryMissing {
        /// Where it was expected.
        path: PathBuf,
    },
    /// `--ranks N` without an `mpirun` on the `PATH`.
    #[error("--ranks {ranks}: mpirun not found on the PATH (install OpenMPI, e.g. `apt-get install openmpi-bin`, and a solver built with `--features msdem-solver/mpi`; or run without --ranks)")]
    MpirunMissing {
        /// The rank count asked for.
        ranks: u32,
    },
    /// A stage's input does not exist (only possible with `--only`).
    #[error("{stage}: input {} is missing; run the earlier stages first (without --only)", path.display())]
    InputMissing {
        /// The stage, e.g. `tree grain`.
        stage: String,
        /// The missing input.
        path: PathBuf,
    },
    /// An imported mesh file disappeared after the pipeline file was read.
    #[error("{stage}: import file {} not found", path.display())]
    ImportMissing {
        /// The stage, e.g. `mesh rock`.
        stage: String,
        /// The import file.
        path: PathBuf,
    },
    /// A stage binary could not be started.
    #[error("{stage}: cannot start {}: {source}", program.display())]
    Spawn {
        /// The stage, e.g. `tree grain`.
        stage: String,
        /// The binary.
        program: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A stage binary exited unsuccessfully; `message` is the last line it wrote to stderr.
    #[error("{stage} failed ({status}): {message}")]
    StageFailed {
        /// The stage, e.g. `tree grain`.
        stage: String,
        /// Exit status in words.
        status: String,
        /// The stage's own error message.
        message: String,
    },
    /// The output folder (or the solver's run folder in it) is locked by another run
    /// (`msdem_frames::lock`): `out/x: in use by another pipeline run (pid 1234); wait for
    /// it or stop it`.
    #[error(transparent)]
    Lock(#[from] msdem_frames::lock::LockError),
    /// A stage binary exited successfully but did not write an output it should have.
    #[error("{stage}: exited successfully but did not write {}", path.display())]
    OutputMissing {
        /// The stage, e.g. `tree grain`.
        stage: String,
        /// The missing output.
        path: PathBuf,
    },
}
