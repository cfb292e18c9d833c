//! `solver SCENARIO.yaml -o RUNDIR [--threads N] [--quiet] [--restart]
//! [--checkpoint-every-steps N] [--checkpoint-every-wall-s T]` — pipeline stage 3.
//!
//! Reads the scenario, loads the prebuilt trees, runs the simulation and writes the run
//! folder (see `docs/cli.md`). Errors: one line on stderr, exit code 1, nothing written.
//!
//! Built with the feature `mpi`, `mpirun -np N solver …` runs the scenario over N ranks
//! (`msdem_solver::distributed`); without it, a start by an MPI launcher with more than
//! one rank is refused in one line.

use msdem_cli::{clap_one_line, one_line};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use msdem_solver::run::checkpoint::CadenceFlags;
use msdem_solver::run::{solve, RunOptions};

/// Multiresolution DEM solver (pipeline stage 3): runs a scenario and writes
/// RUNDIR/run.msdem, RUNDIR/frames/frame_NNNNNN.msdem and RUNDIR/stats.msdem.
#[derive(Parser, Debug)]
#[command(name = "solver", version)]
struct Args {
    /// Scenario file (YAML, `version: 1`); relative paths inside it are resolved against
    /// its folder.
    scenario: PathBuf,
    /// Run folder to write (created; a previous run's files in it are replaced).
    #[arg(short = 'o', long = "out", value_name = "RUNDIR")]
    out: PathBuf,
    /// Worker threads, 1 to 1024 (default: one per core).
    #[arg(long, value_name = "N", value_parser = threads)]
    threads: Option<u16>,
    /// No progress bar and no summary.
    #[arg(long)]
    quiet: bool,
    /// Continue a killed run from RUNDIR's checkpoint (frames after it are rewritten);
    /// without a checkpoint the run starts from step 0.
    #[arg(long)]
    restart: bool,
    /// Write a checkpoint every N steps (0: no step cadence); overrides the scenario's
    /// `checkpoint.every_steps` (default 0).
    #[arg(long, value_name = "N")]
    checkpoint_every_steps: Option<u64>,
    /// Write a checkpoint once T seconds of wall time passed since the last (0: none);
    /// overrides the scenario's `checkpoint.every_wall_s` (default 60).
    #[arg(long, value_name = "T", value_parser = seconds)]
    checkpoint_every_wall_s: Option<f64>,
    /// Allow a run of up to N steps (end/dt); overrides the scenario's `limits.max_steps`
    /// (default 1e8). Accepts `1e9`.
    #[arg(long, value_name = "N", value_parser = step_cap)]
    max_steps: Option<u64>,
    /// Distributed runs (`mpirun`): every rank prints its communication counters at the
    /// end (bytes sent per step, ghosts, migrations, rebalances, load imbalance).
    #[arg(long)]
    traffic: bool,
}

fn step_cap(s: &str) -> Result<u64, String> {
    let whole = |x: f64| x.fract() == 0.0 && (1.0..1.8e19).contains(&x);
    match (s.parse::<u64>(), s.parse::<f64>()) {
        (Ok(n), _) if n >= 1 => Ok(n),
        (Err(_), Ok(x)) if whole(x) => Ok(x as u64),
        _ => Err("expected a whole number of steps ≥ 1".to_owned()),
    }
}

fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err("expected a finite number of seconds ≥ 0".to_owned()),
    }
}

/// The most worker threads `--threads` accepts: far above any core count this solver
/// scales to, and starting them takes milliseconds (65 535 took minutes).
const MAX_THREADS: u16 = 1024;

fn threads(s: &str) -> Result<u16, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=u64::from(MAX_THREADS)).contains(&n) => Ok(n as u16),
        _ => Err(format!("expected a whole number from 1 to {MAX_THREADS}")),
    }
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("error: {} (see solver --help)", clap_one_line(&e));
            return ExitCode::from(2);
        }
    };
    if let Some(size) = msdem_solver::distributed::launch_env::launched_size_here() {
        #[cfg(feature = "mpi")]
        {
            let _ = size;
            return distributed(&args);
        }
        #[cfg(not(feature = "mpi"))]
        if let Some(line) = msdem_solver::distributed::launch_env::refuse_without_mpi(Some(size)) {
            eprintln!("error: {line}");
            return ExitCode::FAILURE;
        }
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

fn worker_threads(args: &Args) -> anyhow::Result<()> {
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(n))
            .build_global()
            .context("--threads: cannot start the worker pool")?;
    }
    Ok(())
}

fn options(args: &Args) -> RunOptions {
    RunOptions {
        quiet: args.quiet,
        restart: args.restart,
        checkpoint_flags: CadenceFlags {
            every_steps: args.checkpoint_every_steps,
            every_wall_s: args.checkpoint_every_wall_s,
        },
        max_steps: args.max_steps,
        ..RunOptions::default()
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    worker_threads(args)?;
    // Held until the run ends, so that no second run (a `pipeline` on the same folder, a
    // second solver) writes into this one (issue 16).
    let _lock = msdem_frames::lock::lock_folder(&args.out, "solver")?;
    let summary = solve(&args.scenario, &args.out, &options(args))?;
    if !args.quiet {
        println!("{summary}");
    }
    Ok(())
}

/// One rank of `mpirun -np N solver …` (rank 0 takes the folder lock and writes the run).
#[cfg(feature = "mpi")]
fn distributed(args: &Args) -> ExitCode {
    use msdem_solver::distributed::launch::{report, solve, with_mpi, Outcome};
    if let Err(e) = worker_threads(args) {
        eprintln!("error: {}", one_line(&e));
        return ExitCode::FAILURE;
    }
    let ran = with_mpi(|| match solve(&args.scenario, &args.out, &options(args)) {
        Ok(outcome) => {
            let traffic = match &outcome {
                Outcome::Root(summary, t) => {
                    if !args.quiet {
                        println!("{summary}");
                    }
                    t
                }
                Outcome::Follower(t) => t,
            };
            if args.traffic {
                let steps = traffic.steps.max(1) as f64;
                let line = format!(
                    "traffic: rank {} of {}: {:.0} bytes sent per step ({:.0} of them the gather \
                     to rank 0), {:.1} ghosts per step, {} migrations, {} rebalances, \
                     imbalance {:.4}\n",
                    traffic.rank,
                    traffic.ranks,
                    traffic.bytes_sent as f64 / steps,
                    traffic.bytes_gathered as f64 / steps,
                    traffic.ghosts as f64 / steps,
                    traffic.migrated,
                    traffic.rebalances,
                    traffic.imbalance
                );
                // One write, so that the ranks' lines do not interleave.
                let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            report(&failure);
            ExitCode::FAILURE
        }
    });
    ran.unwrap_or_else(|| {
        eprintln!("error: started by an MPI launcher, but MPI could not be initialised");
        ExitCode::FAILURE
    })
}
