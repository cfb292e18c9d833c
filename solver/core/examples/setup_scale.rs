//! Set-up at scale (issue 16, "setup scales"): writes a scenario with a lattice of small
//! icospheres (80 triangles, one mesh and one surrogate tree shared by all) and, with
//! `--random N`, a `random_box` generator of N more, then times the whole scenario →
//! [`World`](msdem_solver::world::World) path the solver takes: YAML loading, shapes and
//! trees, placement, the initial interpenetration check (HGrid candidates, seed 001) and
//! the initial broad phase. Prints wall time, the CPU time of all threads and the peak
//! resident memory.
//!
//! Spacing `--spacing` (in bounding diameters) below 1 makes neighbouring bounding spheres
//! overlap: with `--cube` (cubes of the same bounding radius, `--spacing 0.61`: 5 % gaps)
//! every neighbour pair is a candidate that the boxes of the placed meshes then settle.
//!
//! ```text
//! cargo run --release -p msdem-solver --example setup_scale -- [--n-side 100] [--random 0]
//! ```
//!
//! The goal (issue 16): 10⁶ particles set up in ≤ 10 s on the 2-core development machine;
//! the figures are in docs/performance.md.

#[path = "support/proc_stats.rs"]
#[allow(dead_code)]
mod proc_stats;

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use msdem_mesh::generate;
use msdem_tree::BuildParams;
use proc_stats::{cpu_seconds, mib, peak};

/// Radius of the icosphere [m].
const RADIUS_M: f64 = 0.001;

#[derive(Parser, Debug)]
#[command(about = "Times the set-up of a large lattice scenario")]
struct Args {
    /// Particles per lattice axis (the lattice has n³).
    #[arg(long, default_value_t = 100)]
    n_side: u32,
    /// Lattice spacing in bounding diameters (< 1: bounding spheres overlap).
    #[arg(long, default_value_t = 1.05)]
    spacing: f64,
    /// Extra particles placed at random in a box beside the lattice.
    #[arg(long, default_value_t = 0)]
    random: u32,
    /// Axis-aligned cubes (12 triangles, same bounding radius) instead of icospheres: at
    /// spacings below 1 their bounding spheres overlap while their boxes stay apart.
    #[arg(long)]
    cube: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dir = tempfile::tempdir()?;
    let mesh_path = dir.path().join("grain.ply");
    let tree_path = dir.path().join("grain.tree");
    let mesh = match args.cube {
        true => generate::cuboid([2.0 * RADIUS_M / 3f64.sqrt(); 3], 1).context("cube")?,
        false => generate::icosphere(RADIUS_M, 1).context("icosphere")?,
    };
    msdem_mesh::write_mesh(&mesh_path, &mesh)?;
    let (read, hash) = msdem_mesh::read_mesh(&mesh_path)?;
    let params = BuildParams {
        fit_iterations: 20,
        ..BuildParams::default()
    };
    let tree = msdem_tree::build_tree(&read, hash, &params)?;
    msdem_tree::write_tree(&tree_path, &tree, &params)?;

    let n = args.n_side;
    let pitch = args.spacing * 2.0 * RADIUS_M;
    let side = f64::from(n) * pitch;
    // The random box lies beside the lattice, as long and as wide, and deep enough for
    // about 10 % packing.
    let volume = f64::from(args.random) * 4.0 / 3.0 * std::f64::consts::PI * RADIUS_M.powi(3);
    let depth = (volume / 0.1 / (side * side)).max(4.0 * RADIUS_M);
    let random = match args.random {
        0 => String::new(),
        count => format!(
            "  - random_box: {{ shape: grain, material: rock, count: {count}, \
             min: [0.0, 0.0, {z0}], max: [{side}, {side}, {z1}] }}\n",
            z0 = side + RADIUS_M,
            z1 = side + RADIUS_M + depth,
        ),
    };
    let scenario = format!(
        "version: 1\nname: setup_scale\ntime: {{ dt: 1.0e-6, end: 1.0e-6, output_every: 1 }}\n\
         materials:\n  rock: {{ density: 2500.0 }}\n\
         shapes:\n  grain: {{ mesh: grain.ply, tree: grain.tree }}\n\
         generators:\n  - lattice: {{ shape: grain, material: rock, count: [{n}, {n}, {n}], \
         origin: [0.0, 0.0, 0.0], spacing: [{pitch}, {pitch}, {pitch}] }}\n{random}"
    );
    let scenario_path = dir.path().join("scenario.yaml");
    std::fs::write(&scenario_path, scenario)?;

    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let loaded = msdem_solver::scenario::load_scenario(&scenario_path)?;
    let world = msdem_solver::setup::build_world(&loaded)?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    println!(
        "setup_scale: {} {} ({n}³ lattice at {} diameters + {} random), {} threads: \
         set-up {wall:.2} s wall, {} CPU (all threads), peak RSS {}",
        world.state.bodies.len(),
        if args.cube { "cubes" } else { "icospheres" },
        args.spacing,
        args.random,
        rayon::current_num_threads(),
        cpu.map_or("?".into(), |c| format!("{c:.2} s")),
        mib(peak()),
    );
    Ok(())
}
