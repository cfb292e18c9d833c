//! Errors of the solver stage: scenario parsing, setup and the run loop.
//!
//! Every message is one line naming the file (with `line:column` for scenario errors), the
//! element concerned and the offending value, so that the `solver` binary can print it as is.

use std::path::PathBuf;

use crate::frames::FrameError;
use msdem_broadphase::BroadPhaseError;

/// Everything that can stop the solver.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A scenario error at a known position.
    #[error("{file}:{line}:{column}: {message}")]
    Scenario {
        /// Scenario file.
        file: PathBuf,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong (starts with the key path where one is known).
        message: String,
    },
    /// A scenario error without a position (the message starts with the key path).
    #[error("{file}: {message}")]
    ScenarioUnlocated {
        /// Scenario file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Setting up the world from a valid scenario failed (mesh, tree, placement,
    /// initial interpenetration); `context` names the scenario entry.
    #[error("{file}: {context}: {message}")]
    Setup {
        /// Scenario file.
        file: PathBuf,
        /// Scenario entry, e.g. `shapes.grain` or `generators[1] (random_box)`.
        context: String,
        /// What is wrong.
        message: String,
    },
    /// A surrogate tree file is missing.
    #[error(
        "{tree}: missing surrogate tree for {mesh}; build it with treebuild (pipeline stage 2)"
    )]
    MissingTree {
        /// Tree file.
        tree: PathBuf,
        /// Mesh it should be built from.
        mesh: PathBuf,
    },
    /// A surrogate tree was built from another mesh.
    #[error(
        "{tree}: stale surrogate tree (built from a different mesh than {mesh}); \
         rebuild it with treebuild (pipeline stage 2)"
    )]
    StaleTree {
        /// Tree file.
        tree: PathBuf,
        /// Mesh the scenario names.
        mesh: PathBuf,
    },
    /// Bodies interpenetrate at the start.
    #[error("{file}: initially interpenetrating bodies: {pairs}")]
    Interpenetration {
        /// Scenario file.
        file: PathBuf,
        /// The pairs, e.g. `particle 0 (particles[0]) and particle 3 (generators[0] (lattice))`.
        pairs: String,
    },
    /// The output folder cannot be used.
    #[error("{path}: {message}")]
    Output {
        /// Output folder.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A world handed to the run loop is not runnable (built by hand, not by setup).
    #[error("world `{name}`: {message}")]
    InvalidWorld {
        /// Scenario name of the world.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A non-finite value appeared during the run.
    #[error("step {step}: particle {particle}: non-finite {what}")]
    NonFinite {
        /// Step at which it was detected.
        step: u64,
        /// Particle id.
        particle: u32,
        /// Which quantity (e.g. `position`, `velocity`).
        what: String,
    },
    /// An error of the run loop ([`SolverError::NonFinite`], [`SolverError::Step`]) as
    /// [`crate::run::solve`] reports it: prefixed with the scenario file, e.g.
    /// `scenario.yaml: step 1: particle 0: non-finite position`.
    #[error("{file}: {error}")]
    InRun {
        /// Scenario file of the run.
        file: PathBuf,
        /// The run loop's error (not a `source`: the message already contains it).
        error: Box<SolverError>,
    },
    /// A step failed for another reason than a non-finite state.
    #[error(transparent)]
    Step(StepError),
    /// Writing or reading a run-output file failed.
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// Errors of one time step (any integrator). The caller stops the run.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// A particle's state became NaN or infinite (time step too large, or bad input).
    #[error("step {step}: particle {particle} has a non-finite {quantity} (time step too large?)")]
    NonFinite {
        /// Number of the step that found it (1 = the first step).
        step: u64,
        /// Particle id.
        particle: u32,
        /// Which quantity: position, orientation, velocity or angular velocity.
        quantity: &'static str,
    },
    /// A contact handed to the collision solver of local time stepping
    /// ([`crate::integrator::lts::impulse`]) names a body that does not exist or has no
    /// usable normal (a defect of the caller, reported instead of a panic).
    #[error("step {step}: contact {contact}: {message}")]
    InvalidContact {
        /// Number of the step (0 when the solver does not know it; the caller fills it in).
        step: u64,
        /// Index of the contact in the slice handed to the solver.
        contact: u32,
        /// What is wrong, with the offending value.
        message: String,
    },
    /// Local time stepping: a cluster's narrowed time step size fell below the floor
    /// `lts.min_step_s` (seed 004 Lemma 7.2 violated: time step collapse).
    #[error(
        "step {step}: time step collapse at t = {time:e} s: the cluster of particles {particles} \
         can only advance by {step_size:e} s, below lts.min_step_s = {floor:e} s"
    )]
    StepCollapse {
        /// Number of the step (synchronisation interval).
        step: u64,
        /// The cluster's time stamp \[s\].
        time: f64,
        /// Its narrowed time step size \[s\].
        step_size: f64,
        /// The floor \[s\].
        floor: f64,
        /// The cluster's particle ids, e.g. `3, 7`.
        particles: String,
    },
    /// A distributed run (feature `mpi`): an exchange between ranks failed or a message
    /// did not decode.
    #[error("step {step}: rank {rank}: {message}")]
    Distributed {
        /// Number of the step (1 = the first step).
        step: u64,
        /// The rank that found it.
        rank: u32,
        /// What failed.
        message: String,
    },
    /// Local time stepping: the interval needed more sweeps than allowed.
    #[error(
        "step {step}: {sweeps} sweeps did not reach the end of the interval (slowest particle at \
         t = {time:e} s); raise lts.max_sweeps_per_interval or lower time.dt"
    )]
    TooManySweeps {
        /// Number of the step.
        step: u64,
        /// Sweeps run.
        sweeps: u32,
        /// Smallest time stamp reached \[s\].
        time: f64,
    },
    /// Implicit integrators: a step's Picard iterations did not converge, and
    /// `picard.on_no_convergence` says to stop (or the substeps it allows did not converge
    /// either). The bodies hold the start of the step.
    #[error(
        "step {step} (t = {time:e} s): Picard iterations did not converge within {iterations} \
         iterations{}: largest relative update {residual:.3e} > picard.tolerance {tolerance:e}; \
         raise picard.max_iterations, lower time.dt{}",
        if *levels > 0 { format!(" even at Δt/{}", 1u64 << (*levels).min(63)) } else { String::new() },
        if *levels > 0 { " or raise picard.max_substep_levels" } else { " or set picard.on_no_convergence: substep" }
    )]
    NotConverged {
        /// Number of the step (1 = the first step).
        step: u64,
        /// Time at the start of the step \[s\].
        time: f64,
        /// The iteration budget `picard.max_iterations`.
        iterations: u32,
        /// Largest relative force/torque update of the last iteration [-].
        residual: f64,
        /// `picard.tolerance` [-].
        tolerance: f64,
        /// Halvings of Δt tried (0: the step was not split).
        levels: u32,
    },
    /// The integrator cannot handle the model.
    #[error("{what}")]
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// The broad phase refused its input.
    #[error("step {step}: broad phase: {source}")]
    BroadPhase {
        /// Number of the step.
        step: u64,
        /// Underlying error.
        source: BroadPhaseError,
    },
}

impl From<msdem_scenario::ScenarioError> for SolverError {
    fn from(e: msdem_scenario::ScenarioError) -> Self {
        use msdem_scenario::ScenarioError as E;
        match e {
            E::Io { path, source } => SolverError::Io { path, source },
            E::Located {
                file,
                line,
                column,
                message,
            } => SolverError::Scenario {
                file,
                line,
                column,
                message,
            },
            E::Unlocated { file, message } => SolverError::ScenarioUnlocated { file, message },
        }
    }
}
