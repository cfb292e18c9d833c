//! Pipeline stage 2 as a library call: what the `treebuild` binary runs (docs/cli.md).

use crate::build::build_tree_with_progress;
use crate::error::TreeError;
use crate::format::{read_tree, write_tree};
use crate::params::BuildParams;
use crate::stats::{summary, TreeSummary};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use msdem_mesh::check::{validate_mesh_in, Role};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Meshes with at least this many triangles get a progress bar (on a terminal).
pub const PROGRESS_MIN_TRIANGLES: usize = 2000;

/// Inputs of one `treebuild` run.
#[derive(Clone, Debug)]
pub struct TreebuildJob {
    /// Mesh file (PLY, OBJ or STL).
    pub mesh: PathBuf,
    /// Tree file to write.
    pub out: PathBuf,
    /// Builder parameters.
    pub params: BuildParams,
    /// Accept open meshes (obstacles); otherwise the mesh must be a closed, outward particle.
    pub obstacle: bool,
    /// Show a progress bar on stderr when it is a terminal and the mesh is large.
    pub progress: bool,
}

/// What a `treebuild` run did.
#[derive(Clone, Debug, PartialEq)]
pub enum TreebuildOutcome {
    /// `out` already held a valid tree of the same mesh bytes and parameters; nothing
    /// was written.
    UpToDate,
    /// A tree was built, validated and written; its per-level summary.
    Built(TreeSummary),
}

/// Reads and checks the mesh, returns early when `out` is up to date, otherwise builds,
/// validates and atomically writes the tree.
pub fn run_treebuild(job: &TreebuildJob) -> Result<TreebuildOutcome, TreeError> {
    job.params.validate()?;
    // The source map names faces and vertices by their line in the file.
    let (mesh, map, hash) = msdem_mesh::read_mesh_source(&job.mesh)?;
    let role = if job.obstacle {
        Role::Obstacle
    } else {
        Role::Particle
    };
    validate_mesh_in(&mesh, role, &job.mesh, &map)?;
    if job.out.exists() {
        if let Ok((old, _)) = read_tree(&job.out) {
            if old.mesh_hash == hash && old.params_hash == job.params.hash() {
                return Ok(TreebuildOutcome::UpToDate);
            }
        }
    }
    let bar = if job.progress
        && mesh.triangles.len() >= PROGRESS_MIN_TRIANGLES
        && std::io::stderr().is_terminal()
    {
        let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("fitting surrogates {bar:40} {pos}/{len} [{elapsed}]")
        {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let report = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let tree = build_tree_with_progress(&mesh, hash, &job.params, &report)?;
    bar.finish_and_clear();
    // `build_tree_with_progress` has validated the tree.
    write_tree(&job.out, &tree, &job.params)?;
    Ok(TreebuildOutcome::Built(summary(&tree)))
}
