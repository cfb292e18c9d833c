//! Seed 000 §6.7 grid benchmark (Table 9): N = n_x·n_y·n_z noisy spheres of 1,280
//! triangles on a Cartesian lattice whose neighbours' halos barely overlap, no gravity,
//! initially at rest (or with small seeded random velocities, `--speed`). One mesh and
//! one surrogate tree are shared by every particle (instanced geometry).
//!
//! From the same initial state it runs explicit steps (Alg. 1 + Alg. 5), implicit
//! surrogate-within-Picard steps (§5.2) and implicit multiscale Picard steps (Alg. 6, the
//! variant the targets are about), and prints setup time, wall and CPU time per step,
//! Picard iterations, contacts, checks per level, phase times and resident memory: the
//! peak per variant from `VmHWM`, reset between variants where Linux allows it.
//!
//! Targets of the issue: ≤ 1 s per implicit step on 2 cores (seed: 213 core-seconds per
//! step) and ≤ 0.5 GiB peak memory with shared geometry (seed: 3.87 GiB).
//!
//! ```text
//! cargo run --release -p msdem-solver --example grid -- [--n-side 32 32 24] [--steps 2]
//! ```
//!
//! Measured at the default full size (24,576 particles, 71,168 touching pairs) on the
//! shared 2-core development machine, multiscale alone (`--variants multiscale --steps
//! 25`). History: first step 135 s and 30 CPU-s per later step, 8.9 GiB (active sets
//! unfolded from the roots, kept in full); then seeded from one full descent, separation
//! certificates, compact sets: first step 18.0 s, later steps 1.03 s (0.77–0.81 s at rest,
//! 4 iterations; 2.9 s at step 17, where contacts release and 13 iterations were needed),
//! 385 MiB. Now, with local updates (particles within half the tolerance keep their
//! wrench, pairs of unmoved particles keep their contacts) and a seed that only runs the
//! SIMD separating-axis screen (certificates from its bound, surrogate pairs it does not
//! separate unfolded without a kernel call), measured the same day as the previous
//! binary (which then needed 17.9 s and 1.10 s): first step 5.3 s wall / 10.4 CPU-s,
//! steps 2–25 0.82 s wall / 1.46 CPU-s on average (0.72–0.90 s at rest; step 17: 10
//! iterations in 1.05 s), 376 MiB peak with 103·10⁶ active element pairs.

#[path = "support/grid_world.rs"]
mod grid_world;
#[path = "support/proc_stats.rs"]
mod proc_stats;

use std::time::Instant;

use anyhow::Result;
use clap::{Parser, ValueEnum};
use grid_world::{build_grid, Grid, GridSpec};
use msdem_solver::detect::{CertificateSkin, Detector};
use msdem_solver::frames::StepStats;
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::integrator::implicit::{ImplicitEuler, PicardParams, PicardVariant};
use msdem_solver::params::KernelChoice;
use msdem_solver::state::Body;
use msdem_solver::world::World;
use proc_stats::{cpu_seconds, mib, peak, reset_peak, rss};

/// Time-stepping variant to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Variant {
    /// Implicit Euler, multiscale Picard (Alg. 6).
    Multiscale,
    /// Implicit Euler, surrogate within Picard (§5.2).
    Surrogate,
    /// Explicit Euler with the multiresolution detection (Alg. 1, Alg. 5).
    Explicit,
}

/// Triangle kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Kernel {
    /// Iterative with exact fallback on the finest level.
    Hybrid,
    /// Comparison-based exact distance.
    Exact,
}

#[derive(Parser, Debug)]
#[command(about = "Seed 000 §6.7 grid benchmark: time and memory per step")]
struct Args {
    /// Particles per axis: one value (cube) or three (x y z); 32 32 24 = 24,576.
    #[arg(long, num_args = 1..=3, default_values_t = [32, 32, 24])]
    n_side: Vec<u32>,
    /// Multiscale Picard steps (the first unfolds the active sets from the roots, later
    /// steps start from the kept sets).
    #[arg(long, default_value_t = 2)]
    steps: u32,
    /// Surrogate-within-Picard steps.
    #[arg(long, default_value_t = 1)]
    surrogate_steps: u32,
    /// Explicit steps.
    #[arg(long, default_value_t = 2)]
    explicit_steps: u32,
    /// Variants, in the order they run. Memory freed by one variant may stay resident
    /// (allocator), so the default runs the leanest first and multiscale last: each
    /// variant's peak is then its own.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "explicit,surrogate,multiscale"
    )]
    variants: Vec<Variant>,
    /// Base radius r of the noisy sphere [m] (vertex radii in [r, η_r·r]).
    #[arg(long, default_value_t = 0.5)]
    radius: f64,
    /// Radius ratio η_r of the noise.
    #[arg(long, default_value_t = 1.1)]
    eta: f64,
    /// Icosphere subdivisions (3: 1,280 triangles).
    #[arg(long, default_value_t = 3)]
    subdivisions: u32,
    /// Seed of the mesh noise and the initial velocities.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Starting surface distance of neighbours as a fraction of the margin 2ε (moved
    /// closer until the pair is in contact).
    #[arg(long, default_value_t = 0.9)]
    gap: f64,
    /// Largest initial velocity component [m/s]; 0 = at rest (seed 000 §6.7).
    #[arg(long, default_value_t = 0.0)]
    speed: f64,
    /// Time step [s]; default: the explicit stability estimate.
    #[arg(long)]
    dt: Option<f64>,
    /// Triangle kernel.
    #[arg(long, value_enum, default_value_t = Kernel::Hybrid)]
    kernel: Kernel,
    /// Print every Picard iteration.
    #[arg(long)]
    iterations: bool,
    /// Lower bound of the adaptive Picard relaxation weight ω (`picard.min_relaxation`);
    /// default: the solver's.
    #[arg(long)]
    min_relaxation: Option<f64>,
    /// Certificate skin of the explicit steps' kept sets, `κ` or `κ:steps` (base skin
    /// relative to the pair's margin, refresh period; `detect::CertificateSkin`); default:
    /// the explicit integrator's.
    #[arg(long)]
    explicit_skin: Option<CertificateSkin>,
    /// Relax every particle in every Picard iteration and detect every pair again
    /// (`picard.local_updates: false`).
    #[arg(long)]
    no_local_updates: bool,
}

/// Wall and CPU seconds of one step plus its statistics.
struct Measured {
    wall: f64,
    cpu: f64,
    stats: StepStats,
}

fn print_step(label: &str, k: u32, m: &Measured, extra: &str) {
    let s = &m.stats;
    let w = &s.wall;
    eprintln!(
        "  {label} step {k}: {:.3} s wall, {:.3} CPU-s, {} it{}, {} pairs, {} contacts, \
         checks/level {:?} (fallbacks {}), broad {:.3} narrow {:.3} forces {:.3} \
         integrate {:.3} s{extra}",
        m.wall,
        m.cpu,
        s.iterations,
        if s.converged { "" } else { " (NOT converged)" },
        s.candidate_pairs,
        s.contacts,
        s.checks_per_level,
        s.fallbacks,
        w.broad,
        w.narrow,
        w.forces,
        w.integrate,
    );
}

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64, f64)> {
    let c0 = cpu_seconds().unwrap_or(f64::NAN);
    let t = Instant::now();
    let out = f()?;
    let wall = t.elapsed().as_secs_f64();
    Ok((out, wall, cpu_seconds().unwrap_or(f64::NAN) - c0))
}

/// Runs `steps` steps of `variant` on a copy of `base`; returns the measured steps.
fn run_variant(base: &World, variant: Variant, steps: u32, args: &Args) -> Result<Vec<Measured>> {
    let mut world = base.clone();
    let mut params = PicardParams::default();
    if let Some(w) = args.min_relaxation {
        params.min_relaxation = w;
    }
    params.local_updates = !args.no_local_updates;
    let mut out = Vec::new();
    let label = format!("{variant:?}").to_lowercase();
    // One detector for the variant's run (it keeps the active sets between steps).
    let mut det = Detector::new(&world.params);
    match variant {
        Variant::Explicit => {
            let mut ex = ExplicitEuler::new(&world.params);
            if let Some(skin) = args.explicit_skin {
                ex.set_skin(skin);
            }
            for k in 1..=steps {
                let (o, wall, cpu) =
                    timed(|| Ok(ex.advance(&world.model, &mut world.state, &mut det, false)?))?;
                let m = Measured {
                    wall,
                    cpu,
                    stats: o.stats,
                };
                print_step(&label, k, &m, "");
                out.push(m);
            }
        }
        Variant::Multiscale | Variant::Surrogate => {
            let v = if variant == Variant::Multiscale {
                PicardVariant::Multiscale
            } else {
                PicardVariant::Surrogate
            };
            let (dt, gravity) = (world.params.dt, world.params.gravity);
            let mut im = ImplicitEuler::with(dt, gravity, &params, v);
            for k in 1..=steps {
                let (o, wall, cpu) =
                    timed(|| Ok(im.advance(&world.model, &mut world.state, &mut det, false)?))?;
                let extra = format!(
                    ", unfolds {} narrows {}, skipped {}, active element pairs {} in {} \
                     (active sets), RSS {}",
                    o.unfolds,
                    o.narrows,
                    o.skipped,
                    det.active_pairs(),
                    mib(Some(det.active_bytes() as u64)),
                    mib(rss())
                );
                let m = Measured {
                    wall,
                    cpu,
                    stats: o.stats,
                };
                print_step(&label, k, &m, &extra);
                if args.iterations {
                    for (i, it) in o.per_iteration.iter().enumerate() {
                        eprintln!(
                            "    iteration {i}: checks/level {:?}, {} skipped, {} certificate \
                             distances, {} pairs refreshed, {} contacts, {} coarse, \
                             {} unfolds, {} narrows, {} moved, {} pairs kept, residual {:.2e}, ω {:.2}",
                            it.checks_per_level,
                            it.skipped,
                            it.bounds,
                            it.refreshed,
                            it.contacts,
                            it.coarse_contacts,
                            it.unfolds,
                            it.narrows,
                            it.moved,
                            it.kept,
                            it.residual,
                            it.relaxation
                        );
                    }
                }
                out.push(m);
            }
        }
    }
    let speed = world
        .state
        .bodies
        .iter()
        .map(|b| b.velocity.norm())
        .fold(0.0, f64::max);
    eprintln!("  {label}: largest speed after the steps {speed:.3e} m/s");
    // FNV-1a over the bits of every body's pose and velocities: equal hashes, same state.
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for b in &world.state.bodies {
        let q = b.orientation.coords;
        let values = [&b.position, &b.velocity, &b.angular_velocity]
            .into_iter()
            .flat_map(|v| [v.x, v.y, v.z])
            .chain([q.x, q.y, q.z, q.w]);
        for v in values {
            for byte in v.to_bits().to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    eprintln!("  {label}: final state hash {hash:016x}");
    Ok(out)
}

fn describe(grid: &Grid, spec: &GridSpec) {
    let w = &grid.world;
    let tree = w.model.shapes[0]
        .geometry
        .tree()
        .expect("the grid's shape is a mesh");
    let n = w.state.bodies.len();
    let tree_bytes = tree.nodes.len() * std::mem::size_of::<msdem_tree::Node>()
        + tree.soup.len() * std::mem::size_of::<msdem_geom::math::Tri>()
        + tree.source.len() * 4;
    let levels = tree.nodes.iter().map(|x| x.level).max().unwrap_or(0) + 1;
    eprintln!(
        "grid: {}×{}×{} = {n} particles, {} triangles each, η_r = {}, r = {} m, \
         bounding radius {:.4} m, ε = {:.4e} m (margin 2ε = {:.4e} m)",
        spec.n[0],
        spec.n[1],
        spec.n[2],
        grid.mesh.triangles.len(),
        spec.eta,
        spec.radius,
        w.model.shapes[0].radius,
        grid.epsilon,
        2.0 * grid.epsilon
    );
    eprintln!(
        "shared tree: {} nodes, {} soup triangles, {levels} levels, {:.1} KiB (one Arc for \
         all particles); bodies {} B each, {:.1} MiB in all",
        tree.nodes.len(),
        tree.soup.len(),
        tree_bytes as f64 / 1024.0,
        std::mem::size_of::<Body>(),
        (n * std::mem::size_of::<Body>()) as f64 / 1048576.0
    );
    for (a, name) in ["x", "y", "z"].iter().enumerate() {
        let gap = grid.spacing[a] - grid.extent[a];
        eprintln!(
            "spacing {name}: {:.5} m (mesh extent {:.5} m; extent-based gap {:.3e} m = {:.2}·2ε)",
            grid.spacing[a],
            grid.extent[a],
            gap,
            gap / (2.0 * grid.epsilon)
        );
    }
    let [t_mesh, t_tree, t_spacing, t_place] = grid.times;
    eprintln!(
        "setup: mesh {t_mesh:.3} s, tree {t_tree:.3} s, spacing search {t_spacing:.3} s, \
         placement {t_place:.3} s; dt = {:.4e} s; initial velocities: {}",
        w.params.dt,
        if spec.speed > 0.0 {
            format!(
                "uniform in ±{} m/s per component (seed {})",
                spec.speed, spec.seed
            )
        } else {
            "none (at rest, as seed 000 §6.7)".into()
        }
    );
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        f64::NAN
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let n = match args.n_side.as_slice() {
        [a] => [*a; 3],
        [a, b, c] => [*a, *b, *c],
        _ => anyhow::bail!("--n-side takes one or three values"),
    };
    let spec = GridSpec {
        n,
        radius: args.radius,
        subdivisions: args.subdivisions,
        eta: args.eta,
        seed: args.seed,
        gap_fraction: args.gap,
        speed: args.speed,
        kernel: match args.kernel {
            Kernel::Hybrid => KernelChoice::Hybrid,
            Kernel::Exact => KernelChoice::Exact,
        },
        dt: args.dt,
    };
    eprintln!(
        "machine: {} rayon threads, {} CPUs available, load average {}",
        rayon::current_num_threads(),
        std::thread::available_parallelism().map_or(0, |p| p.get()),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let t = Instant::now();
    let grid = build_grid(&spec)?;
    let setup = t.elapsed().as_secs_f64();
    describe(&grid, &spec);
    eprintln!(
        "setup total {setup:.3} s; memory after setup: RSS {}, peak {}",
        mib(rss()),
        mib(peak())
    );

    let mut summary = Vec::new();
    for &variant in &args.variants {
        let resets = reset_peak();
        let before = rss();
        let steps = match variant {
            Variant::Multiscale => args.steps,
            Variant::Surrogate => args.surrogate_steps,
            Variant::Explicit => args.explicit_steps,
        };
        let measured = run_variant(&grid.world, variant, steps, &args)?;
        let walls: Vec<f64> = measured.iter().map(|m| m.wall).collect();
        let cpus: Vec<f64> = measured.iter().map(|m| m.cpu).collect();
        let its: Vec<f64> = measured
            .iter()
            .map(|m| f64::from(m.stats.iterations))
            .collect();
        // Steps after the first: multiscale keeps its active sets between steps.
        let later = if walls.len() > 1 { 1 } else { 0 };
        let line = format!(
            "{variant:?}: first step {:.3} s ({:.0} it), later steps {:.3} s wall / {:.3} CPU-s \
             per step ({:.1} it), peak RSS {}{} (RSS before {}, after {})",
            walls.first().copied().unwrap_or(f64::NAN),
            its.first().copied().unwrap_or(f64::NAN),
            mean(&walls[later..]),
            mean(&cpus[later..]),
            mean(&its[later..]),
            mib(peak()),
            if resets { "" } else { " (since start)" },
            mib(before),
            mib(rss()),
        );
        eprintln!("{line}");
        summary.push((variant, mean(&walls[later..]), line));
    }
    eprintln!("summary ({} particles):", grid.world.state.bodies.len());
    for (_, _, line) in &summary {
        eprintln!("  {line}");
    }
    let time_of = |v| summary.iter().find(|s| s.0 == v).map(|s| s.1);
    if let (Some(m), Some(e)) = (time_of(Variant::Multiscale), time_of(Variant::Explicit)) {
        eprintln!("  ratio multiscale / explicit per step: {:.2}", m / e);
    }
    if let (Some(m), Some(s)) = (time_of(Variant::Multiscale), time_of(Variant::Surrogate)) {
        eprintln!("  ratio surrogate / multiscale per step: {:.2}", s / m);
    }
    Ok(())
}
