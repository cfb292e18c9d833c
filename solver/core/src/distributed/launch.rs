//! `mpirun -np N solver SCENARIO.yaml -o RUNDIR`: every rank builds the same world from
//! the scenario (meshes, trees and obstacles are replicated read-only), the ranks agree
//! that setup succeeded, then rank 0 runs the ordinary run loop ([`crate::run`]) with the
//! distributed integrator ([`super::integrators`]) and writes the run folder, while the
//! other ranks take the same steps.
//!
//! Errors: a setup error (scenario, more ranks than particles, a domain left empty, an
//! integrator that has no distributed form) is agreed on by all ranks and printed once by
//! rank 0, and every rank exits with status 1; an error during the run is printed by the
//! rank that found it, which then aborts all ranks (`MPI_Abort`). Frames and statistics
//! written so far stay intact (atomic files, checksummed chunks).
//!
//! Checkpoints and `--restart` work as in one process, at any rank count, for the explicit
//! and the implicit integrators: rank 0 writes the checkpoint one process writes and a run
//! resumed on any number of ranks continues byte for byte ([`super::explicit::restart`],
//! [`super::implicit::restart`]).

use std::path::Path;

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::exchange::exchange;
use super::explicit::{restart, Traffic};
use super::integrators::DistributedIntegrator;
use crate::detect::Detector;
use crate::error::SolverError;
use crate::integrator::Integrator;
use crate::params::IntegratorChoice;
use crate::run::{solve_with, step_count, RunOptions, RunSummary, Stepper};
use crate::scenario::DEFAULT_REBALANCE_IMBALANCE;
use crate::world::World;

/// What a rank reports when its part of a distributed run ends.
#[derive(Debug)]
pub enum Outcome {
    /// Rank 0: the run's summary and its own traffic.
    Root(RunSummary, Traffic),
    /// Another rank: its traffic.
    Follower(Traffic),
}

/// Why a distributed run stopped.
#[derive(Debug)]
pub enum Failure {
    /// All ranks agreed to stop at setup; rank 0 prints the message, the others print
    /// nothing; every rank exits with status 1.
    Setup {
        /// The message of the lowest failing rank (with its rank when not 0).
        message: String,
    },
    /// This rank failed during the run: it prints the message and aborts all ranks.
    Run {
        /// The error.
        message: String,
    },
}

fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

/// All ranks learn whether every rank's setup succeeded; the error is that of the lowest
/// failing rank.
fn agree(local: Result<(), String>) -> Result<(), String> {
    let comm = world();
    let size = comm.size() as usize;
    let mine = postcard::to_allocvec(&local.err()).unwrap_or_default();
    let got = exchange(&comm, &vec![mine; size], &mut 0)?;
    for (rank, m) in got.iter().enumerate() {
        let theirs: Option<String> =
            postcard::from_bytes(m).map_err(|e| format!("setup status of rank {rank}: {e}"))?;
        if let Some(message) = theirs {
            return Err(match rank {
                0 => message,
                r => format!("rank {r}: {message}"),
            });
        }
    }
    Ok(())
}

/// The distributed integrator of this rank for `world`, or why there is none.
fn integrator(
    world: &World,
    rank: u32,
    size: u32,
    rebalance_imbalance: f64,
) -> Result<DistributedIntegrator, String> {
    DistributedIntegrator::for_world(world, rank, size, rebalance_imbalance)
}

/// Initialises MPI, runs `f` and finalises MPI; `None` when MPI cannot be initialised
/// (already initialised, or no launcher environment it can use).
pub fn with_mpi<T>(f: impl FnOnce() -> T) -> Option<T> {
    let universe = mpi::initialize()?;
    let out = f();
    drop(universe);
    Some(out)
}

/// Runs the scenario at `scenario` on all ranks of `MPI_COMM_WORLD` into `out_dir` (see
/// the module docs). Call between MPI initialisation and finalisation.
pub fn solve(scenario: &Path, out_dir: &Path, options: &RunOptions) -> Result<Outcome, Failure> {
    let comm = world();
    let (rank, size) = (comm.rank() as u32, comm.size() as u32);
    if rank == 0 {
        root(scenario, out_dir, options, size)
    } else {
        follower(scenario, rank, size)
    }
}

fn root(
    scenario: &Path,
    out_dir: &Path,
    options: &RunOptions,
    size: u32,
) -> Result<Outcome, Failure> {
    let run = |message: String| Failure::Run { message };
    // Read again by `solve_with`, which reports a scenario that does not load.
    let loaded = crate::scenario::load_scenario(scenario).ok();
    let rebalance = loaded.as_ref().map_or(DEFAULT_REBALANCE_IMBALANCE, |s| {
        s.distributed.rebalance_imbalance
    });
    let _lock =
        msdem_frames::lock::lock_folder(out_dir, "solver").map_err(|e| run(e.to_string()))?;
    let mut traffic = None;
    let mut began: Option<Arc<AtomicBool>> = None;
    let mut setup_failed = None;
    let result = solve_with(scenario, out_dir, options, |world| {
        if size == 1 && world.params.integrator != IntegratorChoice::Explicit {
            // One rank: the ordinary single-process run of any integrator.
            return Ok(Stepper::new(&world.params));
        }
        let made = integrator(world, 0, size, rebalance);
        let status = agree(made.as_ref().map(|_| ()).map_err(Clone::clone));
        match (made, status) {
            (Ok(integ), Ok(())) => {
                traffic = Some(integ.shared_traffic());
                began = Some(integ.shared_began());
                Ok(Stepper::with(Detector::new(&world.params), Box::new(integ)))
            }
            (_, Err(message)) => {
                setup_failed = Some(message.clone());
                Err(SolverError::InvalidWorld {
                    name: world.model.name.clone(),
                    message,
                })
            }
            (Err(message), Ok(())) => Err(SolverError::InvalidWorld {
                name: world.model.name.clone(),
                message,
            }),
        }
    });
    match (result, setup_failed) {
        (Ok(summary), _) => {
            if began.is_some_and(|b| !b.load(Ordering::Relaxed)) {
                // Resumed at the last step: the other ranks wait to be told.
                restart::release().map_err(run)?;
            }
            let t = traffic.and_then(|t| t.lock().ok().map(|t| *t));
            Ok(Outcome::Root(summary, t.unwrap_or_default()))
        }
        (Err(_), Some(message)) => Err(Failure::Setup { message }),
        (Err(e), None) => Err(run(e.to_string())),
    }
}

fn follower(scenario: &Path, rank: u32, size: u32) -> Result<Outcome, Failure> {
    let built = crate::scenario::load_scenario(scenario)
        .map_err(|e| SolverError::from(e).to_string())
        .and_then(|s| {
            let w = crate::setup::build_world(&s).map_err(|e| e.to_string())?;
            let i = integrator(&w, rank, size, s.distributed.rebalance_imbalance)?;
            Ok((w, i))
        });
    let status = agree(built.as_ref().map(|_| ()).map_err(Clone::clone));
    let (world, mut integ) = match (built, status) {
        (Ok(b), Ok(())) => b,
        (_, Err(message)) | (Err(message), Ok(())) => return Err(Failure::Setup { message }),
    };
    let World {
        model,
        mut state,
        params,
    } = world;
    let mut detector = Detector::new(&params);
    let steps = step_count(params.dt, params.end);
    let every = u64::from(params.output_every.max(1));
    let from = integ
        .begin(&mut state, &mut detector)
        .map_err(|e| Failure::Run {
            message: e.to_string(),
        })?;
    let Some(from) = from else {
        return Ok(Outcome::Follower(integ.traffic()));
    };
    for n in from + 1..=steps {
        integ
            .step(&model, &mut state, &mut detector, n % every == 0)
            .map_err(|e| Failure::Run {
                message: e.to_string(),
            })?;
    }
    Ok(Outcome::Follower(integ.traffic()))
}

/// Prints `failure` as this rank should (see [`Failure`]): after a setup failure rank 0
/// prints it and every rank returns (to finalise MPI and exit with status 1); after a run
/// failure this rank prints it and aborts all ranks (`MPI_Abort`, no return).
pub fn report(failure: &Failure) {
    let comm = world();
    match failure {
        Failure::Setup { message } => {
            if comm.rank() == 0 {
                eprintln!("error: {}", one_line(message));
            }
        }
        Failure::Run { message } => {
            eprintln!(
                "error: rank {} of {}: {}",
                comm.rank(),
                comm.size(),
                one_line(message)
            );
            comm.abort(1)
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
