//! `pipeline` — runs meshgen → treebuild → solver → export for one pipeline file, skipping
//! the stages whose inputs are unchanged (thin binary over `msdem_pipeline`).
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use msdem_pipeline::{run_pipeline, RunOptions};

/// Run a pipeline file: stage binaries are taken from this executable's folder, results go
/// to out/NAME/ (meshes/, trees/, scenario.yaml, run/ with the exporter's vtk/, ply/, plots/).
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The pipeline file (YAML, `version: 1`), e.g. pipelines/staircase.yaml.
    pipeline: PathBuf,
    /// Run every selected stage even when its inputs are unchanged.
    #[arg(long)]
    force: bool,
    /// Run only one kind of stage (mesh, tree, solve, export) or one stage (tree:grain).
    #[arg(long, value_name = "STAGE")]
    only: Option<String>,
    /// Continue a killed run: stages up to date are skipped, a solver stage killed after a
    /// checkpoint of the same run continues from it (`solver --restart`).
    #[arg(long)]
    resume: bool,
    /// Output folder instead of out/NAME.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run the solve stage on N MPI ranks (`mpirun -np N solver …`, a solver built with
    /// the feature `mpi`), each with cores/N threads; the results are those of one
    /// process, so the rank count does not invalidate the stage.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    ranks: Option<u32>,
}

fn run(args: Args) -> anyhow::Result<()> {
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot locate the pipeline executable: {e}"))?;
    let bin_dir = exe
        .parent()
        .context("the pipeline executable has no parent folder")?
        .to_owned();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ranks = match args.ranks {
        Some(n) => msdem_pipeline::ranks::ranks(n, std::env::var_os("PATH").as_deref(), cores)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        None => None,
    };
    let opts = RunOptions {
        pipeline: args.pipeline,
        out_dir: args.out,
        bin_dir,
        force: args.force,
        only: args.only,
        resume: args.resume,
        command: std::env::args().collect(),
        ranks,
    };
    // The library's messages already carry their causes: no error chain on top.
    run_pipeline(&opts, &mut std::io::stdout()).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // One line, like every other error of the pipeline binaries.
            let text = e.to_string();
            let message: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| {
                    !["Usage:", "tip:", "For more information"]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .filter(|l| !l.is_empty())
                .collect();
            eprintln!("{} (see pipeline --help)", message.join(" "));
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
