//! Issue 19 profile: where the Picard iterations of implicit steps go on the staircase
//! (`pipelines/staircase.yaml`, or `--scene hopper`), per multiple of the explicit `dt`.
//!
//! Steps `implicit_multiscale` directly ([`ImplicitEuler::advance`]) and reads every
//! iteration's statistics. Per run: mean iterations per step; the share of iterations that
//! widened a surrogate pair (`unfolds > 0`) and of those that only widened (residual
//! already within the tolerance); the mean share of particles still updating per
//! iteration (`moved`); and the iterations of steps by the size of the largest cluster of
//! touching particles at the accepted state (union–find over particle–particle contacts;
//! a particle touching only obstacles is a cluster of one, a free flyer is counted apart);
//! the narrow-phase time of two-iteration steps and of each further iteration, and the
//! phase times. `--trace on` prints every step of 15 iterations or more, per iteration:
//! `residual/unfolds/moved/contacts/r(efreshed pairs)/c(hecks)/k(ept pairs)`.
//! `--probe STEP` replays step STEP (1 = the first; e.g. one that stopped a run) from its
//! start with budgets of 2, 3, … 60 iterations and no substeps, printing the largest
//! relative update after each budget: the residual sequence of the full-Δt attempt.
//!
//! ```text
//! cargo run --release -p msdem-solver --example implicit_profile -- \
//!     [--scene staircase] [--end-s 1] [--factors 1,5,10,20] [--acceleration aitken|newton] \
//!     [--contact-points seed|patches] [--surface facets|smooth] [--trace on] [--probe STEP]
//! ```
//!
//! `--surface` sets `surface:` of every material of the scene (docs/design.md §3).

#[path = "support/pipeline_scene.rs"]
mod pipeline_scene;

use std::path::Path;

use anyhow::{Context, Result};
use msdem_solver::detect::Detector;
use msdem_solver::error::StepError;
use msdem_solver::integrator::implicit::ImplicitEuler;
use msdem_solver::integrator::Integrator;
use msdem_solver::model::{ContactPoints, Other};
use msdem_solver::params::{NoConvergence, PicardAcceleration, PicardParams, PicardVariant};
use msdem_solver::scenario::SurfaceSpec;
use msdem_solver::setup::build_world;

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut scene = "staircase".to_string();
    let mut end_s = 1.0;
    let mut factors = vec![1u32, 5, 10, 20];
    let mut acceleration = None;
    let mut points = None;
    let mut surface = None;
    let mut trace = false;
    let mut probe: Option<u64> = None;
    for pair in args.chunks(2) {
        let value = pair.get(1).context("every option needs a value")?;
        match pair[0].as_str() {
            "--scene" => scene = value.clone(),
            "--end-s" => end_s = value.parse().context("--end-s")?,
            "--factors" => {
                factors = value
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .context("--factors")?
            }
            "--acceleration" => {
                acceleration = Some(
                    serde_norway::from_str::<PicardAcceleration>(value)
                        .context("--acceleration")?,
                )
            }
            "--trace" => trace = value == "on",
            "--probe" => probe = Some(value.parse().context("--probe: a step number")?),
            "--contact-points" => {
                points = Some(match value.as_str() {
                    "seed" => ContactPoints::Seed,
                    _ => ContactPoints::Patches,
                })
            }
            "--surface" => {
                surface = Some(match value.as_str() {
                    "facets" => SurfaceSpec::Facets,
                    "smooth" => SurfaceSpec::Smooth,
                    other => anyhow::bail!("--surface: unknown {other}"),
                })
            }
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = root.join("target/implicit_vs_explicit").join(&scene);
    let mut scenario = pipeline_scene::scenario_from_pipeline(
        &root.join(format!("pipelines/{scene}.yaml")),
        &cache,
    )?;
    if let Some(surface) = surface {
        for m in scenario.materials.values_mut() {
            m.surface = surface;
        }
    }
    let world = build_world(&scenario)?;
    println!("| factor | steps | split | mean it. | it. widening | it. only widening | moved / n per it. | it. by largest cluster: free only / 1 / 2–4 / ≥5 (steps) |");
    println!("|---|---|---|---|---|---|---|---|");
    for f in factors {
        let mut w = world.clone();
        w.params.dt *= f64::from(f);
        if let Some(p) = points {
            w.model.contact_points = p;
        }
        if let Some(a) = acceleration {
            w.params.picard.acceleration = a;
        }
        let tol = w.params.picard.tolerance;
        let mut integrator = ImplicitEuler::new(&w.params, PicardVariant::Multiscale);
        let mut detector = Detector::new(&w.params);
        let steps = (end_s / w.params.dt).round() as u64;
        let n = w.state.bodies.len();
        let (mut iterations, mut widening, mut only_widening, mut split) = (0u64, 0u64, 0u64, 0u64);
        let mut moved_share = 0.0;
        let mut phases = [0.0f64; 4];
        // Narrow-phase time of 2-iteration steps; of longer steps and their extra iterations.
        let (mut short, mut long, mut extra) = ((0.0, 0u64), (0.0, 0u64), 0u64);
        let t0 = std::time::Instant::now();
        let mut by_cluster = [(0u64, 0u64); 4];
        let mut done = 0u64;
        let mut saved = None;
        for _ in 0..steps {
            if probe == Some(w.state.step + 1) {
                saved = Some((w.state.clone(), detector.snapshot(), integrator.snapshot()));
            }
            let out = match integrator.advance(&w.model, &mut w.state, &mut detector, false) {
                Ok(out) => out,
                Err(e) => {
                    println!("| {f}× | stopped: {e} |");
                    break;
                }
            };
            done += 1;
            let wall = &out.stats.wall;
            for (p, x) in
                phases
                    .iter_mut()
                    .zip([wall.broad, wall.narrow, wall.forces, wall.integrate])
            {
                *p += x;
            }
            let its = &out.per_iteration;
            if its.len() == 2 {
                short.0 += wall.narrow;
                short.1 += 1;
            } else if its.len() >= 8 {
                long.0 += wall.narrow;
                long.1 += 1;
                extra += its.len() as u64 - 2;
            }
            if trace && its.len() >= 15 {
                let seq: Vec<String> = its
                    .iter()
                    .map(|it| {
                        format!(
                            "{:.3}/{}/{}/{}/r{}/c{}/k{}",
                            it.residual,
                            it.unfolds,
                            it.moved,
                            it.contacts,
                            it.refreshed,
                            it.checks_per_level.iter().sum::<u64>(),
                            it.kept
                        )
                    })
                    .collect();
                eprintln!("step {} it {}: {}", w.state.step, its.len(), seq.join(" "));
            }
            iterations += its.len() as u64;
            split += u64::from(out.stats.substeps > 0);
            for (k, it) in its.iter().enumerate() {
                if it.unfolds > 0 {
                    widening += 1;
                    if k >= 1 && it.residual <= tol {
                        only_widening += 1;
                    }
                }
                moved_share += f64::from(it.moved) / n as f64;
            }
            let mut parent: Vec<usize> = (0..n).collect();
            let mut touching = vec![false; n];
            for c in integrator.contacts() {
                let a = c.a as usize;
                touching[a] = true;
                if let Other::Particle(b) = c.b {
                    let b = b as usize;
                    touching[b] = true;
                    let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
            let mut size = vec![0usize; n];
            for (i, _) in touching.iter().enumerate().filter(|(_, &t)| t) {
                let r = find(&mut parent, i);
                size[r] += 1;
            }
            let largest = size.iter().copied().max().unwrap_or(0);
            let class = match largest {
                0 => 0,
                1 => 1,
                2..=4 => 2,
                _ => 3,
            };
            by_cluster[class].0 += its.len() as u64;
            by_cluster[class].1 += 1;
        }
        if let Some((start, det, carried)) = &saved {
            let mut seq = Vec::new();
            for budget in 2..=60 {
                let picard = PicardParams {
                    max_iterations: budget,
                    on_no_convergence: NoConvergence::Stop,
                    ..w.params.picard.clone()
                };
                let mut d = Detector::new(&w.params);
                let mut im = ImplicitEuler::with(
                    w.params.dt,
                    w.params.gravity,
                    &picard,
                    PicardVariant::Multiscale,
                );
                d.restore(det).map_err(anyhow::Error::msg)?;
                im.restore(carried).map_err(anyhow::Error::msg)?;
                let mut state = start.clone();
                match im.advance(&w.model, &mut state, &mut d, false) {
                    Ok(_) => {
                        seq.push(format!("converged at {budget}"));
                        break;
                    }
                    Err(StepError::NotConverged { residual, .. }) => {
                        seq.push(format!("{residual:.3}"))
                    }
                    Err(e) => {
                        seq.push(e.to_string());
                        break;
                    }
                }
            }
            println!(
                "{f}× step {}: residual after 2, 3, … iterations: {}",
                start.step + 1,
                seq.join(" ")
            );
        }
        let base = short.0 / short.1.max(1) as f64;
        println!(
            "{f}×: narrow per 2-iteration step {:.1} µs; per extra iteration of steps with ≥ 8: {:.1} µs",
            1e6 * base,
            1e6 * (long.0 - base * long.1 as f64) / extra.max(1) as f64
        );
        println!(
            "{f}×: wall {:.2} s; broad {:.2} s, narrow {:.2} s, forces {:.2} s, integrate {:.2} s",
            t0.elapsed().as_secs_f64(),
            phases[0],
            phases[1],
            phases[2],
            phases[3]
        );
        let mean = |(it, st): (u64, u64)| {
            if st == 0 {
                "—".to_string()
            } else {
                format!("{:.1} ({st})", it as f64 / st as f64)
            }
        };
        println!(
            "| {f}× | {done} | {split} | {:.2} | {:.0} % | {:.0} % | {:.0} % | {} / {} / {} / {} |",
            iterations as f64 / done.max(1) as f64,
            100.0 * widening as f64 / iterations as f64,
            100.0 * only_widening as f64 / iterations as f64,
            100.0 * moved_share / iterations as f64,
            mean(by_cluster[0]),
            mean(by_cluster[1]),
            mean(by_cluster[2]),
            mean(by_cluster[3]),
        );
    }
    Ok(())
}
