//! The certificate skin of the kept active sets (`detect::CertificateSkin`: base skin κ
//! relative to the pair's margin, refresh period of a moving pair in steps) on the
//! pipelines' scenes: explicit runs (or implicit ones, `--implicit-factor`) at several
//! skins, interleaved (`--reps` rounds over the skins), each on its own one-thread rayon
//! pool timed by that thread's CPU time; per skin the median / min / max solver CPU, the
//! kernel checks and contacts summed over the steps, the largest memory of the kept sets,
//! and a hash of the final state (bits of every position, orientation, velocity and
//! angular velocity): the skin decides which certified pairs are stored and when they are
//! renewed, never a contact, so the hashes must agree.
//!
//! Meshes and trees are generated from `pipelines/<scene>.yaml` into
//! `target/explicit_skin/<scene>/` (as `examples/implicit_vs_explicit.rs` does).
//!
//! ```text
//! cargo run --release -p msdem-solver --example explicit_skin -- \
//!     [--scenes staircase,hopper] [--end-s 4,2] [--skins 0.25:10,0.25:100,2:10] [--reps 3] \
//!     [--implicit-factor 10]
//! ```
//!
//! `--end-s` gives one end time per scene (the scenario's `time.end` where left out).
//! `--implicit-factor F` runs the linearised θ-method at F× the scenario's `dt` instead of
//! explicit Euler, with the skin as the implicit detection's base (before its widening
//! with the step).

#[path = "support/pipeline_scene.rs"]
mod pipeline_scene;

use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Parser;
use msdem_solver::detect::{CertificateSkin, Detector};
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::integrator::for_params;
use msdem_solver::params::{IntegratorChoice, PicardAcceleration, PicardScheme, PicardVariant};
use msdem_solver::run::Stepper;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

#[derive(Parser, Debug)]
#[command(about = "Kept sets' certificate skin: solver CPU and state per skin")]
struct Args {
    /// Pipelines (`pipelines/<name>.yaml`).
    #[arg(long, value_delimiter = ',', default_value = "staircase,hopper")]
    scenes: Vec<String>,
    /// End time per scene \[s\] (the scenario's where left out).
    #[arg(long, value_delimiter = ',')]
    end_s: Vec<f64>,
    /// Certificate skins, `κ:steps` (base skin relative to the pair's margin, refresh
    /// period of a moving pair in steps) or `κ` (10 steps).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.25:10,0.25:100,0.25:1000,2:10"
    )]
    skins: Vec<CertificateSkin>,
    /// Rounds over the skins.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Implicit (linearised θ-method) at this multiple of the scenario's `dt`.
    #[arg(long)]
    implicit_factor: Option<u32>,
}

/// What one run measured.
#[derive(Clone, Debug, Default)]
struct Measured {
    cpu_s: f64,
    checks: u64,
    contacts: u64,
    set_bytes: usize,
    active: usize,
    hash: u64,
}

fn fnv(hash: &mut u64, x: f64) {
    for b in x.to_bits().to_le_bytes() {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn run_one(
    world: &World,
    skin: CertificateSkin,
    end: f64,
    implicit: Option<u32>,
) -> Result<Measured> {
    let mut w = world.clone();
    if let Some(f) = implicit {
        w.params.dt *= f64::from(f);
        w.params.integrator = IntegratorChoice::Implicit(PicardVariant::Multiscale);
        w.params.picard.scheme = PicardScheme::Theta;
        w.params.picard.acceleration = PicardAcceleration::Linearised;
    } else {
        w.params.integrator = IntegratorChoice::Explicit;
    }
    let steps = (end / w.params.dt).round() as u64;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    pool.install(|| -> Result<Measured> {
        let mut det = Detector::new(&w.params);
        det.set_skin(skin);
        let mut stepper = match implicit {
            Some(_) => Stepper::with(det, for_params(&w.params)),
            None => {
                let mut ex = ExplicitEuler::new(&w.params);
                ex.set_skin(skin);
                Stepper::with(det, Box::new(ex))
            }
        };
        let mut m = Measured::default();
        let c0 = msdem_benchkit::thread_cpu_s().unwrap_or(f64::NAN);
        for _ in 0..steps {
            let out = stepper.step(&w.model, &mut w.state, false)?;
            let cl = &out.stats.checks_per_level;
            m.checks += cl[..cl.len().saturating_sub(1)].iter().sum::<u64>();
            m.contacts += u64::from(out.stats.contacts);
            m.set_bytes = m.set_bytes.max(stepper.detector().active_bytes());
            m.active = m.active.max(stepper.detector().active_pairs());
        }
        m.cpu_s = msdem_benchkit::thread_cpu_s().unwrap_or(f64::NAN) - c0;
        let mut h = 0xcbf2_9ce4_8422_2325_u64;
        for b in &w.state.bodies {
            for x in b.position.iter().chain(b.velocity.iter()) {
                fnv(&mut h, *x);
            }
            for x in b.orientation.coords.iter().chain(b.angular_velocity.iter()) {
                fnv(&mut h, *x);
            }
        }
        m.hash = h;
        Ok(m)
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    let args = Args::parse();
    let skins = args.skins.clone();
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = root.join("target/explicit_skin");
    for (i, name) in args.scenes.iter().enumerate() {
        let pipeline = root.join(format!("pipelines/{name}.yaml"));
        let scenario = pipeline_scene::scenario_from_pipeline(&pipeline, &cache.join(name))
            .with_context(|| format!("scene {name}"))?;
        let end = args.end_s.get(i).copied().unwrap_or(scenario.time.end);
        let world = build_world(&scenario).with_context(|| format!("scene {name}"))?;
        let mut runs: Vec<Vec<Measured>> = vec![Vec::new(); skins.len()];
        for _ in 0..args.reps {
            for (k, &skin) in skins.iter().enumerate() {
                let m = run_one(&world, skin, end, args.implicit_factor)?;
                eprintln!("{name} skin {skin}: {:.2} s", m.cpu_s);
                runs[k].push(m);
            }
        }
        let kind = match args.implicit_factor {
            Some(f) => format!("implicit θ at {f}× dt"),
            None => "explicit".into(),
        };
        println!(
            "\n{name}: {} particles, {kind}, end {end} s, {} rounds",
            world.state.bodies.len(),
            args.reps
        );
        println!(
            "| skin κ:steps | solver CPU median [min … max] | checks | contacts \
             | kept sets' peak | active pairs peak | state hash |"
        );
        println!("|---|---|---|---|---|---|---|");
        for (k, skin) in skins.iter().enumerate() {
            let mut cpu: Vec<f64> = runs[k].iter().map(|m| m.cpu_s).collect();
            let (lo, hi) = (
                cpu.iter().copied().fold(f64::INFINITY, f64::min),
                cpu.iter().copied().fold(0.0, f64::max),
            );
            let m = &runs[k][0];
            println!(
                "| {skin} | {:.2} s [{lo:.2} … {hi:.2}] | {:.3e} | {} | {:.1} MiB | {} \
                 | {:016x} |",
                median(&mut cpu),
                m.checks as f64,
                m.contacts,
                m.set_bytes as f64 / (1 << 20) as f64,
                m.active,
                m.hash
            );
        }
        let same = runs.iter().flatten().all(|m| m.hash == runs[0][0].hash);
        println!("same final state at every skin: {same}");
    }
    Ok(())
}
