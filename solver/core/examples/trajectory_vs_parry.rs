//! The trajectory query of issue #15: every step of the `particle_pair` collision
//! (`pipelines/particle_pair.yaml`, seed 000 §6.1) in which the broad phase pairs the two
//! noisy spheres, queried for every triangle pair within the margin `ε_a + ε_b` —
//!
//! * ours: the solver's explicit-step detection on the kept active sets with separation
//!   certificates (`Search::Kept`, seed 000 Alg. 6 with remarks 4–6, through
//!   `detect::dispatch::kept_pair`), cold at the first step;
//! * parry3d 0.31: `contact_manifolds` with one persistent workspace and manifold vector
//!   (its contact-manifold cache) along the trajectory, cold at the first step.
//!
//! The poses come from a solver run of the pipeline's scenario (meshes and trees generated
//! into a cache folder). Before anything is timed, both sides are stepped along the whole
//! trajectory and every step's pair set is checked against the exact `f64` oracle of
//! `msdem-tree`'s `vs_parry` bench (ours must miss nothing; parry's misses are reported).
//! For reference, a third side runs our descent from the roots (seed 000 Alg. 5) at every
//! step, as a cold query would, and a fourth the pair-set query on kept sets
//! (`detect::dispatch::kept_pair_set`): as the first, but a real pair found in contact
//! is held without a kernel call while its in-margin slack certifies it (it answers
//! which triangles touch, without their closest points; checked against the oracle too),
//! and a fifth the event-driven pair-set query (`detect::dispatch::event_pair_set`: every
//! pair stored with the accumulated motion at which its certificate expires, only the
//! expired ones checked; its pairs must equal the fourth side's at every step). Timing:
//! thread-CPU time of whole passes over the trajectory, the sides interleaved pass by
//! pass (the first side rotates), medians of `--passes` passes each.
//!
//! ```text
//! cargo run --release -p msdem-solver --example trajectory_vs_parry
//! ```
//!
//! Last line: `trajectory_ratio_vs_parry = X` (parry's median pass over ours).

#[path = "support/pipeline_scene.rs"]
mod pipeline_scene;
#[path = "support/trajectory.rs"]
mod trajectory;

#[path = "../../tree/benches/vs_parry/oracle.rs"]
mod oracle;
#[path = "../../tree/benches/vs_parry/parry_side.rs"]
mod parry_side;
#[path = "../../tree/benches/vs_parry/timing.rs"]
#[allow(dead_code)] // the pass timing uses the clock and the median only
mod timing;

use anyhow::{Context, Result};
use clap::Parser;
use msdem_solver::detect::dispatch::{roots_pair, RootsScratches};
use msdem_solver::detect::PairSides;
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_solver::setup::build_world;
use msdem_tree::traverse::LevelStats;
use std::path::PathBuf;
use trajectory::{Ours, PAIR};

#[derive(Parser, Debug)]
#[command(about = "Trajectory query: kept active sets vs parry3d's persistent contact manifolds")]
struct Args {
    /// Pipeline file of a two-particle collision.
    #[arg(long, default_value = "pipelines/particle_pair.yaml")]
    pipeline: PathBuf,
    /// Folder for the generated meshes and trees.
    #[arg(long, default_value = "target/trajectory_vs_parry")]
    cache: PathBuf,
    /// Steps of the run (default: the scenario's end time over dt).
    #[arg(long)]
    steps: Option<u64>,
    /// Triangle kernel of our side: `exact` or `hybrid` (default: the scenario's).
    #[arg(long)]
    kernel: Option<String>,
    /// Timed passes per side (medians; at least 1).
    #[arg(long, default_value_t = 21)]
    passes: usize,
    /// Profiling: time only the event-driven query, this many passes (after the checks),
    /// and stop.
    #[arg(long)]
    events_only: Option<usize>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let at_root = |p: &PathBuf| if p.exists() { p.clone() } else { root.join(p) };
    let scenario = pipeline_scene::scenario_from_pipeline(&at_root(&args.pipeline), &args.cache)?;
    let mut world = build_world(&scenario)?;
    let steps = args
        .steps
        .unwrap_or((world.params.end / world.params.dt).round() as u64);
    let start = world.clone();
    let traj = trajectory::record(&mut world, steps)?;
    let world = start;
    let sides = PairSides::of(&world.model, &traj.steps[0], &PAIR).context("not a mesh pair")?;
    let shapes = trajectory::Shapes::of(&sides)?;
    let margin = (sides.eps_a + sides.eps_b) as f32;
    println!(
        "{} of {} steps with the pair a candidate (from step {}), {} + {} triangles, margin {:.4} m",
        traj.steps.len(),
        traj.run_steps,
        traj.first_step,
        shapes.tris[0].len(),
        shapes.tris[1].len(),
        margin
    );
    let kernel = match args.kernel.as_deref() {
        None => world.params.kernel,
        Some("exact") => KernelChoice::Exact,
        Some("hybrid") => KernelChoice::Hybrid,
        Some(k) => anyhow::bail!("--kernel {k}: use exact or hybrid"),
    };
    let c = trajectory::check(&world, kernel, &traj, &shapes)?;
    println!(
        "oracle: {} pairs (+{} borderline) over {} touching steps; ours misses/extras {}/{}, parry misses/extras {}/{}",
        c.sure, c.band, c.touching, c.ours_wrong.0, c.ours_wrong.1, c.parry_wrong.0, c.parry_wrong.1
    );
    for (k, name) in ["steps without pairs", "steps with pairs"]
        .iter()
        .enumerate()
    {
        let r = &c.reports[k];
        println!(
            "{name}: ours {:.1} µs, {} kernel checks, {} skipped by certificates, {} screened, {} widenings, {} narrowings; parry {:.1} µs (one pass)",
            c.split_ns[k] as f64 / 1e3,
            r.stats.total(),
            r.skipped,
            r.bounds,
            r.counts.unfolds,
            r.counts.narrows,
            c.parry_split_ns[k] as f64 / 1e3
        );
    }
    println!(
        "largest active set along the trajectory: {} element pairs",
        c.max_active
    );
    println!(
        "pair-set query: misses/extras {}/{}; kernel checks {} + {} (steps without / with pairs), {} skipped or held by certificates",
        c.set_wrong.0,
        c.set_wrong.1,
        c.set_reports[0].stats.total(),
        c.set_reports[1].stats.total(),
        c.set_reports[0].skipped + c.set_reports[1].skipped
    );
    println!(
        "event-driven query: {} steps with other pairs than the pair-set query's; kernel checks {} + {}, {} pair-steps held by the directional certificates alone, {} contact slacks renewed by witness points, {} widenings ({} ahead), {} narrowings; largest set {} element pairs; steps with walks {} (pair-set query: {}, refreshes {})",
        c.event_differ,
        c.event_reports[0].stats.total(),
        c.event_reports[1].stats.total(),
        c.event_reports[0].renewed + c.event_reports[1].renewed,
        c.event_reports[0].witnessed + c.event_reports[1].witnessed,
        c.event_reports[0].counts.unfolds + c.event_reports[1].counts.unfolds,
        c.event_reports[0].ahead + c.event_reports[1].ahead,
        c.event_reports[0].counts.narrows + c.event_reports[1].counts.narrows,
        c.event_active,
        c.event_walks,
        c.set_walks,
        c.set_reports[0].refreshed + c.set_reports[1].refreshed
    );
    anyhow::ensure!(
        c.event_differ == 0,
        "the event-driven query differs from the pair-set query at {} steps",
        c.event_differ
    );
    let n_steps = traj.steps.len() as f64;
    let per_step = |r: &[msdem_solver::detect::Detection; 2]| {
        (r[0].stats.total() + r[1].stats.total()) as f64 / n_steps
    };
    println!(
        "kernel checks per step: {:.1} (kept sets, explicit step), {:.1} (pair-set query), {:.1} (event-driven)",
        per_step(&c.reports),
        per_step(&c.set_reports),
        per_step(&c.event_reports)
    );
    let poses: Vec<_> = traj
        .steps
        .iter()
        .map(|b| PairSides::of(&world.model, b, &PAIR).map(|s| parry_side::pose(&s.b_to_a())))
        .collect::<Option<_>>()
        .context("not a mesh pair")?;
    let mut ours = Ours::default();
    if let Some(passes) = args.events_only {
        let mut t = Vec::new();
        for _ in 0..passes.max(1) {
            ours.reset(&world);
            let t0 = timing::thread_cpu_ns();
            for bodies in &traj.steps {
                ours.step_events(&world, kernel, bodies);
            }
            t.push((timing::thread_cpu_ns() - t0) as f64);
        }
        println!(
            "event-driven pair-set query alone: median pass {:.3} ms over {} passes",
            timing::median(&t) / 1e6,
            t.len()
        );
        return Ok(());
    }
    let mut parry = parry_side::Query::default();
    let (mut t_ours, mut t_parry, mut t_roots, mut t_set, mut t_ev) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut roots = RootsScratches::default();
    let mut raw = Vec::new();
    let mut stats = LevelStats::default();
    for pass in 0..=args.passes.max(1) {
        for side in (0..5).map(|k| (pass + k) % 5) {
            // Each side starts cold (outside the timed span).
            ours.reset(&world);
            parry = parry_side::Query::default();
            let t = timing::thread_cpu_ns();
            let mut n = 0;
            match side {
                0 => {
                    for bodies in &traj.steps {
                        ours.step(&world, kernel, bodies);
                        n += ours.raw.len();
                    }
                }
                3 => {
                    for bodies in &traj.steps {
                        ours.step_pairs(&world, kernel, bodies);
                        n += ours.set.len();
                    }
                }
                4 => {
                    for bodies in &traj.steps {
                        ours.step_events(&world, kernel, bodies);
                        n += ours.set.len();
                    }
                }
                1 => {
                    for pos12 in &poses {
                        parry.run(pos12, &shapes.parry[0], &shapes.parry[1], margin, false);
                    }
                    n = c.ours_contacts;
                }
                _ => {
                    for bodies in &traj.steps {
                        raw.clear();
                        let h = DetectionMode::Hierarchy;
                        roots_pair(
                            &world.model,
                            bodies,
                            &PAIR,
                            h,
                            kernel,
                            &mut roots,
                            &mut raw,
                            &mut stats,
                        );
                        n += raw.len();
                    }
                }
            }
            let dt = (timing::thread_cpu_ns() - t) as f64;
            let want = if side >= 3 {
                c.set_pairs
            } else {
                c.ours_contacts
            };
            anyhow::ensure!(
                n == want,
                "pass {pass}, side {side}: {n} contacts, checked {want}"
            );
            if pass > 0 {
                [
                    &mut t_ours,
                    &mut t_parry,
                    &mut t_roots,
                    &mut t_set,
                    &mut t_ev,
                ][side]
                    .push(dt);
            }
        }
    }
    drop(parry);
    let (o, p) = (
        timing::median(&t_ours) / 1e6,
        timing::median(&t_parry) / 1e6,
    );
    let r = timing::median(&t_roots) / 1e6;
    let q = timing::median(&t_set) / 1e6;
    let e = timing::median(&t_ev) / 1e6;
    let n = traj.steps.len() as f64;
    println!("| side | median pass ms | µs per step |");
    println!("|---|---|---|");
    println!(
        "| ours, kept active sets + certificates | {o:.3} | {:.2} |",
        1e3 * o / n
    );
    println!(
        "| ours, descent from the roots every step (Alg. 5) | {r:.3} | {:.2} |",
        1e3 * r / n
    );
    println!(
        "| ours, pair-set query (kept sets + in-margin certificates) | {q:.3} | {:.2} |",
        1e3 * q / n
    );
    println!(
        "| ours, event-driven pair-set query (expiries of kept pairs) | {e:.3} | {:.2} |",
        1e3 * e / n
    );
    println!(
        "| parry3d 0.31, persistent workspace + manifolds | {p:.3} | {:.2} |",
        1e3 * p / n
    );
    println!("({} passes each, thread-CPU, interleaved)", t_ours.len());
    println!("pair-set query: parry / ours = {:.2}", p / q);
    println!("event-driven pair-set query: parry / ours = {:.2}", p / e);
    println!("trajectory_ratio_vs_parry = {:.2}", p / o);
    Ok(())
}
