//! `treebuild` — pipeline stage 2: surrogate-tree builder (docs/cli.md). Thin: parses the
//! arguments, calls [`msdem_tree::run_treebuild`], prints the summary.

use anyhow::Result;
use clap::Parser;
use msdem_cli::{clap_one_line, one_line};
use msdem_tree::{run_treebuild, BuildParams, TreebuildJob, TreebuildOutcome};
use std::path::PathBuf;

/// Builds the surrogate tree of a mesh (k-means splitting, eq. (6) fit, conservative
/// offsets, inner distance), validates it, writes it atomically and prints a per-level
/// summary.
#[derive(Parser, Debug)]
#[command(name = "treebuild", version)]
struct Cli {
    /// Mesh file (.ply, .obj or .stl).
    mesh: PathBuf,
    /// Output tree file.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Children per internal node (N_surrogate, ≥ 2).
    #[arg(long, default_value_t = 8)]
    branching: u32,
    /// Nodes with more triangles than this are split (≥ 1).
    #[arg(long = "leaf-size", default_value_t = 8)]
    leaf_size: u32,
    /// Seed of the k-means initialisation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Iteration budget of the eq. (6) minimiser per surrogate (≥ 1).
    #[arg(long = "fit-iterations", default_value_t = BuildParams::default().fit_iterations)]
    fit_iterations: u32,
    /// Iteration budget per start of the second fitting stage that minimises each
    /// surrogate's halo directly; 0 keeps the plain eq. (6) fit.
    #[arg(long = "refine-iterations", default_value_t = BuildParams::default().refine_iterations)]
    refine_iterations: u32,
    /// Most real triangles / distinct vertices one surrogate's fit sees; larger nodes are
    /// represented by an even stride of them (0 = all).
    #[arg(long = "fit-samples", default_value_t = BuildParams::default().fit_samples)]
    fit_samples: u32,
    /// Relative decrease of the objective below which a fit stops early, in [0, 1).
    #[arg(long = "fit-tolerance", default_value_t = BuildParams::default().fit_tolerance)]
    fit_tolerance: f64,
    /// Accept open meshes (static obstacles).
    #[arg(long)]
    obstacle: bool,
    /// No progress bar, no summary.
    #[arg(long)]
    quiet: bool,
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("treebuild: {} (see treebuild --help)", clap_one_line(&e));
            std::process::exit(2);
        }
    };
    if let Err(e) = run(cli) {
        eprintln!("treebuild: {}", one_line(&e));
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    // Writing the tree over its own mesh would destroy the input.
    msdem_mesh::refuse_output_equal_to_input(&cli.mesh, &cli.out)?;
    let job = TreebuildJob {
        mesh: cli.mesh,
        out: cli.out,
        params: BuildParams {
            branching: cli.branching,
            leaf_size: cli.leaf_size,
            seed: cli.seed,
            fit_iterations: cli.fit_iterations,
            refine_iterations: cli.refine_iterations,
            fit_samples: cli.fit_samples,
            fit_tolerance: cli.fit_tolerance,
            ..BuildParams::default()
        },
        obstacle: cli.obstacle,
        progress: !cli.quiet,
    };
    match run_treebuild(&job)? {
        TreebuildOutcome::UpToDate => println!("{}: up to date", job.out.display()),
        TreebuildOutcome::Built(summary) => {
            if !cli.quiet {
                print!("{}", summary.table());
            }
            println!("{}: written", job.out.display());
        }
    }
    Ok(())
}
