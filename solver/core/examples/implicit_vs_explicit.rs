//! Issue 19 benchmark: implicit time stepping against explicit Euler on the staircase and
//! the hopper (seed 004 §8.3 scenes, `pipelines/staircase.yaml`, `pipelines/hopper.yaml`).
//!
//! Meshes and trees are generated from the pipeline files into
//! `target/implicit_vs_explicit/<scene>/` (trees kept while their meshes do not change);
//! no frames, no VTK. Every run goes to the same end time: explicit Euler at the
//! scenario's `dt`, then `implicit_multiscale` at 1×, 5×, 10× and 20× that `dt` with the
//! scenario's `picard:` settings (or the overrides below). Each run steps on its own
//! one-thread rayon pool and is timed by that thread's CPU time
//! (`/proc/thread-self/schedstat`), so other load on the machine does not count; the
//! wall time is printed beside it.
//!
//! Per run: steps, steps that did not converge at the full `dt` (split into substeps,
//! `picard.on_no_convergence: substep`) and their substeps, mean / max Picard iterations
//! per step, solver CPU and wall time, and the outcome — for the staircase particles on the
//! stairs / on the ground (centre below z = −2.4 m: the lowest tread is at −2.28 m), for
//! the hopper particles through its outlet (centre below z = 0.3 m) — plus the mean final
//! position, the kinetic energy at the end and the mechanical energy (kinetic + potential)
//! dissipated by then. With `--seeds N` every run is repeated for N perturbed placements
//! (scenario `seed` + 0 … N−1) and the spread (min … max) of the explicit runs is printed
//! beside the implicit ones. Last line: `implicit_speedup_10x = X`, the explicit CPU time
//! over the implicit one at 10× on the staircase (first seed, first scheme).
//!
//! ```text
//! cargo run --release -p msdem-solver --example implicit_vs_explicit -- \
//!     [--end-s 4] [--scenes staircase,hopper] [--factors 1,5,10,20] [--seeds 1] \
//!     [--schemes euler,midpoint,theta,split] [--theta 0.55] [--acceleration newton|aitken|piecewise_linear|linearised] [--max-iterations 50] \
//!     [--max-substep-levels 4] [--contact-points seed|patches] [--surface facets|smooth]
//!     [--jobs 1]
//! ```
//!
//! `--surface` sets `surface:` of every material of the scene (docs/design.md §3, *Smooth
//! surfaces*), for the explicit and the implicit runs alike.
//!
//! `--jobs J` runs J configurations at a time (each still on one thread; CPU times stay
//! comparable, wall times do not).

#[path = "support/pipeline_scene.rs"]
mod pipeline_scene;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use msdem_solver::model::ContactPoints;
use msdem_solver::motion::energy::observables;
use msdem_solver::params::{
    IntegratorChoice, PicardAcceleration, PicardParams, PicardScheme, PicardVariant,
};
use msdem_solver::run::Stepper;
use msdem_solver::scenario::SurfaceSpec;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

fn thread_cpu_seconds() -> f64 {
    msdem_benchkit::thread_cpu_s().unwrap_or(f64::NAN)
}

#[derive(Clone, Debug)]
struct Options {
    end_s: Option<f64>,
    scenes: Vec<String>,
    factors: Vec<u32>,
    seeds: u64,
    schemes: Vec<PicardScheme>,
    acceleration: Option<PicardAcceleration>,
    max_iterations: Option<u32>,
    max_substep_levels: Option<u32>,
    theta: Option<f64>,
    contact_points: Option<ContactPoints>,
    surface: Option<SurfaceSpec>,
    jobs: usize,
}

fn parse_args() -> Result<Options> {
    let mut o = Options {
        end_s: None,
        scenes: vec!["staircase".into(), "hopper".into()],
        factors: vec![1, 5, 10, 20],
        seeds: 1,
        schemes: vec![PicardScheme::Euler, PicardScheme::Midpoint],
        acceleration: None,
        max_iterations: None,
        max_substep_levels: None,
        theta: None,
        contact_points: None,
        surface: None,
        jobs: 1,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args
            .get(i + 1)
            .with_context(|| format!("{} needs a value", args[i]))?;
        let list = || value.split(',').map(str::trim).filter(|s| !s.is_empty());
        match args[i].as_str() {
            "--end-s" => o.end_s = Some(value.parse().context("--end-s: seconds")?),
            "--theta" => {
                let t: f64 = value.parse().context("--theta: a number")?;
                if !(t > 0.5 && t <= 1.0) {
                    bail!("--theta: {t} is not in (0.5, 1]");
                }
                o.theta = Some(t);
            }
            "--scenes" => o.scenes = list().map(String::from).collect(),
            "--factors" => {
                o.factors = list()
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .context("--factors: comma-separated integers")?
            }
            "--seeds" => o.seeds = value.parse().context("--seeds: a count")?,
            "--schemes" => {
                o.schemes = list()
                    .map(|s| match s {
                        "euler" => Ok(PicardScheme::Euler),
                        "midpoint" => Ok(PicardScheme::Midpoint),
                        "theta" => Ok(PicardScheme::Theta),
                        "split" => Ok(PicardScheme::Split),
                        other => bail!("--schemes: unknown scheme {other}"),
                    })
                    .collect::<Result<_>>()?
            }
            "--acceleration" => {
                o.acceleration = Some(match value.as_str() {
                    "newton" => PicardAcceleration::Newton,
                    "aitken" => PicardAcceleration::Aitken,
                    "piecewise_linear" => PicardAcceleration::PiecewiseLinear,
                    "linearised" => PicardAcceleration::Linearised,
                    other => bail!("--acceleration: unknown {other}"),
                })
            }
            "--max-iterations" => {
                o.max_iterations = Some(value.parse().context("--max-iterations")?)
            }
            "--max-substep-levels" => {
                o.max_substep_levels = Some(value.parse().context("--max-substep-levels")?)
            }
            "--contact-points" => {
                o.contact_points = Some(match value.as_str() {
                    "seed" => ContactPoints::Seed,
                    "patches" => ContactPoints::Patches,
                    other => bail!("--contact-points: unknown {other}"),
                })
            }
            "--surface" => {
                o.surface = Some(match value.as_str() {
                    "facets" => SurfaceSpec::Facets,
                    "smooth" => SurfaceSpec::Smooth,
                    other => bail!("--surface: unknown {other}"),
                })
            }
            "--jobs" => o.jobs = value.parse::<usize>().context("--jobs")?.max(1),
            other => bail!("unknown argument {other} (see the example's documentation)"),
        }
        i += 2;
    }
    Ok(o)
}

/// One configuration to run.
#[derive(Clone, Debug)]
struct Config {
    scene: usize,
    seed: u64,
    /// `None`: explicit.
    implicit: Option<(u32, PicardScheme)>,
}

impl Config {
    fn label(&self) -> String {
        match self.implicit {
            None => "explicit, 1×".into(),
            Some((f, PicardScheme::Euler)) => format!("implicit Euler, {f}×"),
            Some((f, PicardScheme::Midpoint)) => format!("implicit midpoint, {f}×"),
            Some((f, PicardScheme::Theta)) => format!("implicit θ-method, {f}×"),
            Some((f, PicardScheme::Split)) => format!("implicit split, {f}×"),
        }
    }
}

/// What one run measured.
#[derive(Clone, Debug, Default)]
struct Measured {
    steps: u64,
    split_steps: u64,
    substeps: u64,
    iterations: u64,
    iterations_max: u32,
    cpu_s: f64,
    wall_s: f64,
    /// Staircase: on stairs / on ground; hopper: through / above the outlet.
    counts: [u32; 2],
    mean_position: [f64; 3],
    kinetic_j: f64,
    /// Mechanical energy lost by the end \[J\].
    dissipated: f64,
    /// Wall time by phase \[s\]: broad, narrow, forces, integration.
    phases: [f64; 4],
    /// Triangle-pair checks (all levels, fine–fine) and contacts, summed over the steps.
    checks: [u64; 3],
    failure: Option<String>,
}

fn run_one(world: &World, factor: Option<(u32, PicardScheme)>, end: f64, o: &Options) -> Measured {
    let mut w = world.clone();
    if let Some(points) = o.contact_points {
        w.model.contact_points = points;
    }
    if let Some((f, scheme)) = factor {
        w.params.dt *= f64::from(f);
        w.params.integrator = IntegratorChoice::Implicit(PicardVariant::Multiscale);
        w.params.picard = PicardParams {
            scheme,
            acceleration: o.acceleration.unwrap_or(w.params.picard.acceleration),
            max_iterations: o.max_iterations.unwrap_or(w.params.picard.max_iterations),
            max_substep_levels: o
                .max_substep_levels
                .unwrap_or(w.params.picard.max_substep_levels),
            theta: o.theta.unwrap_or(w.params.picard.theta),
            ..w.params.picard.clone()
        };
    } else {
        w.params.integrator = IntegratorChoice::Explicit;
    }
    let g = w.params.gravity;
    let dt = w.params.dt;
    let steps = (end / dt).round() as u64;
    let e0 = {
        let obs = observables(&w.state.bodies, &g);
        obs.kinetic + obs.potential
    };
    let mut m = Measured::default();
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(p) => p,
        Err(e) => {
            m.failure = Some(e.to_string());
            return m;
        }
    };
    pool.install(|| {
        let mut stepper = Stepper::new(&w.params);
        let (c0, t0) = (thread_cpu_seconds(), Instant::now());
        for _ in 0..steps {
            match stepper.step(&w.model, &mut w.state, false) {
                Ok(out) => {
                    m.steps += 1;
                    m.iterations += u64::from(out.stats.iterations);
                    m.iterations_max = m.iterations_max.max(out.stats.iterations);
                    let cl = &out.stats.checks_per_level;
                    m.checks[0] += cl.iter().sum::<u64>();
                    m.checks[1] += cl.last().copied().unwrap_or(0);
                    m.checks[2] += u64::from(out.stats.contacts);
                    let p = &out.stats.wall;
                    for (acc, t) in
                        m.phases
                            .iter_mut()
                            .zip([p.broad, p.narrow, p.forces, p.integrate])
                    {
                        *acc += t;
                    }
                    if out.stats.substeps > 0 {
                        m.split_steps += 1;
                        m.substeps += u64::from(out.stats.substeps);
                    }
                }
                Err(e) => {
                    m.failure = Some(e.to_string());
                    break;
                }
            }
        }
        m.cpu_s = thread_cpu_seconds() - c0;
        m.wall_s = t0.elapsed().as_secs_f64();
    });
    let obs = observables(&w.state.bodies, &g);
    m.kinetic_j = obs.kinetic;
    m.dissipated = e0 - obs.kinetic - obs.potential;
    let n = w.state.bodies.len().max(1) as f64;
    for b in &w.state.bodies {
        for k in 0..3 {
            m.mean_position[k] += b.position[k] / n;
        }
    }
    let staircase = w.model.name.contains("staircase");
    for b in &w.state.bodies {
        let low = if staircase {
            b.position.z < -2.4
        } else {
            b.position.z < 0.3
        };
        // Staircase: [on stairs, on ground]; hopper: [through, not through].
        let index = match (staircase, low) {
            (true, false) | (false, true) => 0,
            _ => 1,
        };
        m.counts[index] += 1;
    }
    m
}

fn print_row(label: &str, seed: u64, m: &Measured, staircase: bool, explicit_cpu: f64) {
    let outcome = if staircase {
        format!("{:>2} / {:>2}", m.counts[0], m.counts[1])
    } else {
        format!("{:>2} through", m.counts[0])
    };
    let mean = if m.steps > 0 {
        m.iterations as f64 / m.steps as f64
    } else {
        0.0
    };
    let speedup = if m.cpu_s > 0.0 {
        explicit_cpu / m.cpu_s
    } else {
        0.0
    };
    println!(
        "| {label:<22} | {seed:>4} | {:>7} | {:>5} / {:>6} | {:>5.2} / {:>3} | {:>8.2} s | {:>8.2} s | {:>5.2} | {outcome} | ({:>6.3}, {:>6.3}, {:>6.3}) | {:>9.3e} J | {:>9.3e} J |{}",
        m.steps,
        m.split_steps,
        m.substeps,
        mean,
        m.iterations_max,
        m.cpu_s,
        m.wall_s,
        speedup,
        m.mean_position[0],
        m.mean_position[1],
        m.mean_position[2],
        m.kinetic_j,
        m.dissipated,
        m.failure
            .as_deref()
            .map(|f| format!(" stopped: {f}"))
            .unwrap_or_default()
    );
}

fn main() -> Result<()> {
    let o = parse_args()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = root.join("target/implicit_vs_explicit");
    let mut worlds: Vec<(String, Vec<World>, f64)> = Vec::new();
    for name in &o.scenes {
        let pipeline: PathBuf = root.join(format!("pipelines/{name}.yaml"));
        let mut scenario = pipeline_scene::scenario_from_pipeline(&pipeline, &cache.join(name))
            .with_context(|| format!("scene {name}"))?;
        let end = o.end_s.unwrap_or(scenario.time.end);
        let base_seed = scenario.seed;
        if let Some(surface) = o.surface {
            for m in scenario.materials.values_mut() {
                m.surface = surface;
            }
        }
        let mut seeded = Vec::new();
        for s in 0..o.seeds {
            scenario.seed = base_seed + s;
            seeded.push(build_world(&scenario).with_context(|| format!("{name} seed {s}"))?);
        }
        worlds.push((name.clone(), seeded, end));
    }
    let mut configs = Vec::new();
    for (scene, (_, seeded, _)) in worlds.iter().enumerate() {
        for seed in 0..seeded.len() as u64 {
            configs.push(Config {
                scene,
                seed,
                implicit: None,
            });
            for &scheme in &o.schemes {
                for &f in &o.factors {
                    configs.push(Config {
                        scene,
                        seed,
                        implicit: Some((f, scheme)),
                    });
                }
            }
        }
    }
    let results: Mutex<Vec<Option<Measured>>> = Mutex::new(vec![None; configs.len()]);
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..o.jobs.min(configs.len()) {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(c) = configs.get(i) else { break };
                let (_, seeded, end) = &worlds[c.scene];
                let m = run_one(&seeded[c.seed as usize], c.implicit, *end, &o);
                eprintln!(
                    "done: {} seed {} {}: {:.2} s (phase wall: broad {:.2} s, narrow {:.2} s, forces {:.2} s, integration {:.2} s; checks all / fine, contacts summed over the steps: {:?})",
                    worlds[c.scene].0,
                    c.seed,
                    c.label(),
                    m.cpu_s, m.phases[0], m.phases[1], m.phases[2], m.phases[3], m.checks
                );
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(m);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut speedup_10x = f64::NAN;
    let mut note_10x = String::new();
    for (scene, (name, seeded, end)) in worlds.iter().enumerate() {
        let staircase = name.contains("staircase");
        let w = &seeded[0];
        println!(
            "\n{name}: {} particles, explicit dt = {:e} s, end {end} s, contact points {:?}, surface {:?}, picard: tolerance {}, max_iterations {}, acceleration {:?}",
            w.state.bodies.len(),
            w.params.dt,
            o.contact_points.unwrap_or(w.model.contact_points),
            w.model.materials.iter().map(|m| m.surface).collect::<Vec<_>>(),
            w.params.picard.tolerance,
            o.max_iterations.unwrap_or(w.params.picard.max_iterations),
            o.acceleration.unwrap_or(w.params.picard.acceleration),
        );
        println!(
            "| run | seed | steps | split / substeps | mean / max it. | solver CPU | wall | speedup | {} | mean final position [m] | kinetic at end | dissipated |",
            if staircase { "on stairs / ground" } else { "through hopper" }
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
        let mut explicit_cpu = vec![f64::NAN; seeded.len()];
        for (c, m) in configs.iter().zip(&results) {
            if c.scene != scene {
                continue;
            }
            let Some(m) = m else { continue };
            if c.implicit.is_none() {
                explicit_cpu[c.seed as usize] = m.cpu_s;
            }
            print_row(
                &c.label(),
                c.seed,
                m,
                staircase,
                explicit_cpu[c.seed as usize],
            );
            if staircase && c.seed == 0 && c.implicit == Some((10, o.schemes[0])) {
                if m.failure.is_none() {
                    speedup_10x = explicit_cpu[0] / m.cpu_s;
                } else {
                    note_10x = format!(" ({} stopped before the end)", c.label());
                }
            }
        }
        if seeded.len() > 1 {
            // Spread of the outcome over the seeds, per configuration.
            println!("\nspread over {} seeds (min … max):", seeded.len());
            let mut labels: Vec<String> = Vec::new();
            for c in configs.iter().filter(|c| c.scene == scene) {
                if !labels.contains(&c.label()) {
                    labels.push(c.label());
                }
            }
            for label in labels {
                let ms: Vec<&Measured> = configs
                    .iter()
                    .zip(&results)
                    .filter(|(c, _)| c.scene == scene && c.label() == label)
                    .filter_map(|(_, m)| m.as_ref())
                    .collect();
                let range = |f: &dyn Fn(&Measured) -> f64| {
                    let (lo, hi) = ms
                        .iter()
                        .map(|m| f(m))
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                            (a.min(x), b.max(x))
                        });
                    format!("{lo:.3} … {hi:.3}")
                };
                println!(
                    "  {label:<22} {} {}; mean x {}; mean z {}; dissipated {}; kinetic {}",
                    if staircase { "on stairs" } else { "through" },
                    range(&|m| f64::from(m.counts[0])),
                    range(&|m| m.mean_position[0]),
                    range(&|m| m.mean_position[2]),
                    range(&|m| m.dissipated),
                    range(&|m| m.kinetic_j),
                );
            }
        }
    }
    if !note_10x.is_empty() {
        println!("\nno 10× figure{note_10x}");
    }
    println!("implicit_speedup_10x = {speedup_10x:.2}");
    Ok(())
}
