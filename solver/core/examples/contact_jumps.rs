//! Issue 19 diagnosis: where the contact law's force is not continuous in the poses.
//!
//! Implicit steps iterate on the poses; a contact force that *jumps* between two guesses
//! a fraction of a micrometre apart converges under no update (docs/design.md §6). This
//! example runs the scene explicitly (`pipelines/staircase.yaml` or `--scene hopper`)
//! and, every `--every` steps, scans each body pair in contact: `--probes` times, particle
//! `a` alone is shifted (even probes) or turned by `s/r` (odd probes) along a random
//! direction, `s ∈ [0, --span-m]`, velocities unchanged, and the pair's contact force (sum
//! over its contacts, force on `a`) is compared at the ends. While it changes by more than
//! `--ratio`·`n·k·Δs` (`k` the pair's spring stiffness, `n` its contact count) the
//! interval is bisected; one shorter than `--h-m` that still does holds a *jump* (a
//! Lipschitz-continuous law never gets there). Each jump is classified by what changed
//! across it:
//!
//! * `count`: the number of merged contacts of the pair (a fine pair entering or leaving a
//!   seed-point cluster, a floor ↔ quadrature switch, a contact appearing at a finite
//!   force);
//! * `point`: same count, but a contact point moved by more than 10³·Δs (the floor's
//!   deepest point jumping to another feature);
//! * `spring`: neither, and the force jumps with the velocities set to zero (a spring
//!   weight or distance that jumps);
//! * `velocity`: only with the velocities (dashpot or friction).
//!
//! Per class: the count, the largest ratio `|ΔF|/(k·Δs)` and the largest jump \[N\],
//! each with the pair and time where it happened.
//!
//! ```text
//! cargo run --release -p msdem-solver --example contact_jumps -- \
//!     [--scene staircase] [--end-s 1] [--every 400] [--probes 4] [--span-m 1e-3] [--h-m 1e-9] [--ratio 50] \
//!     [--contact-points seed|patches] [--surface facets|smooth]
//! ```

#[path = "support/pipeline_scene.rs"]
mod pipeline_scene;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use msdem_geom::math::{Quat, Vec3};
use msdem_solver::contact::force::accumulate_forces;
use msdem_solver::contact::pair::PairParams;
use msdem_solver::contact::Contact;
use msdem_solver::detect::{Detector, Search};
use msdem_solver::model::{ContactPoints, Model, Other};
use msdem_solver::params::{IntegratorChoice, Params};
use msdem_solver::run::Stepper;
use msdem_solver::scenario::SurfaceSpec;
use msdem_solver::setup::build_world;
use msdem_solver::state::{Body, State};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Body-pair key: particle `a`, other body (0 = particle, 1 = obstacle, index).
type Key = (u32, u8, u32);

fn key(a: u32, b: Other) -> Key {
    match b {
        Other::Particle(j) => (a, 0, j),
        Other::Obstacle(o) => (a, 1, o),
    }
}

/// A body pair's contacts and force at one state.
#[derive(Clone, Debug, Default)]
struct PairSample {
    force: Vec3,
    /// Torque on `a` about its centre of mass [N·m].
    torque: Vec3,
    points: Vec<Vec3>,
}

fn pair_samples(
    model: &Model,
    state: &State,
    params: &Params,
) -> Result<(BTreeMap<Key, PairSample>, Vec<Contact>)> {
    let search = Search::Roots(params.detection);
    let dt = params.dt;
    let mut detector = Detector::new(params);
    let (contacts, _) = detector
        .contacts(model, state, search)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut wrenches = vec![Default::default(); state.bodies.len()];
    let mut records = Vec::new();
    accumulate_forces(
        model,
        &state.bodies,
        &contacts,
        dt,
        &mut wrenches,
        Some(&mut records),
    );
    let mut out: BTreeMap<Key, PairSample> = BTreeMap::new();
    for (c, r) in contacts.iter().zip(&records) {
        let s = out.entry(key(c.a, c.b)).or_default();
        s.force += Vec3::from(r.force);
        s.torque += (c.point - state.bodies[c.a as usize].position).cross(&Vec3::from(r.force));
        s.points.push(c.point);
    }
    Ok((out, contacts))
}

fn still(state: &State) -> State {
    let mut s = state.clone();
    for b in &mut s.bodies {
        b.velocity = Vec3::zeros();
        b.angular_velocity = Vec3::zeros();
    }
    s
}

fn unit(rng: &mut Xoshiro256PlusPlus) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

/// `state` with particle `i` moved by `s` along `dir` (translation) or, with `turn`,
/// turned by `s/r` about `dir`.
fn moved(state: &State, i: usize, dir: &Vec3, s: f64, turn: bool) -> State {
    let mut out = state.clone();
    let b = &mut out.bodies[i];
    if turn {
        b.orientation = Quat::from_scaled_axis(dir * (s / b.radius.max(1e-12))) * b.orientation;
    } else {
        b.position += s * dir;
    }
    out
}

/// One end of a bisection interval: path parameter \[m\] and the pair's sample there.
type End = (f64, PairSample);

/// Change of a pair's wrench between two samples: `|ΔF| + |Δτ|/r` \[N\].
fn change(x: &PairSample, y: &PairSample, r: f64) -> f64 {
    (x.force - y.force).norm() + (x.torque - y.torque).norm() / r
}

/// Follows the half of `[x, y]` whose wrench changes more down to an interval of `h_min`
/// and returns its two ends: across a jump the change stays finite, for a continuous law it
/// shrinks like the interval.
fn bisect(
    eval: &mut dyn FnMut(f64) -> Result<PairSample>,
    mut x: End,
    mut y: End,
    r: f64,
    h_min: f64,
) -> Result<(End, End)> {
    while y.0 - x.0 > h_min {
        let m = 0.5 * (x.0 + y.0);
        let mid = (m, eval(m)?);
        if change(&x.1, &mid.1, r) >= change(&mid.1, &y.1, r) {
            y = mid;
        } else {
            x = mid;
        }
    }
    Ok((x, y))
}

#[derive(Default)]
struct Class {
    count: u64,
    worst_ratio: f64,
    worst_ratio_at: String,
    worst_jump_n: f64,
    worst_jump_at: String,
}

fn pair_label(model: &Model, bodies: &[Body], k: Key) -> String {
    let shape = |i: u32| {
        let b = &bodies[i as usize];
        format!(
            "{}#{i}",
            model
                .materials
                .get(b.material as usize)
                .map_or("?", |m| m.name.as_str())
        )
    };
    match k.1 {
        0 => format!("{}–{}", shape(k.0), shape(k.2)),
        _ => format!(
            "{}–{}",
            shape(k.0),
            model
                .obstacles
                .get(k.2 as usize)
                .map_or("obstacle".to_string(), |o| format!("{:?}", o.name))
        ),
    }
}

/// Grid intervals of a scan, and how many of those whose wrench changes most are bisected.
const GRID: usize = 32;
const FOLLOWED: usize = 4;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut scene = "staircase".to_string();
    let (mut end_s, mut every, mut probes, mut h, mut ratio) = (1.0, 400u64, 4usize, 1e-9, 50.0);
    let mut span = 1e-3;
    let (mut points, mut surface) = (None, None);
    for pair in args.chunks(2) {
        let value = pair.get(1).context("every option needs a value")?;
        match pair[0].as_str() {
            "--scene" => scene = value.clone(),
            "--end-s" => end_s = value.parse().context("--end-s")?,
            "--every" => every = value.parse::<u64>().context("--every")?.max(1),
            "--probes" => probes = value.parse().context("--probes")?,
            "--h-m" => h = value.parse().context("--h-m")?,
            "--span-m" => span = value.parse().context("--span-m")?,
            "--ratio" => ratio = value.parse().context("--ratio")?,
            "--contact-points" => {
                points = Some(match value.as_str() {
                    "seed" => ContactPoints::Seed,
                    "patches" => ContactPoints::Patches,
                    other => bail!("--contact-points: unknown {other}"),
                })
            }
            "--surface" => {
                surface = Some(match value.as_str() {
                    "facets" => SurfaceSpec::Facets,
                    "smooth" => SurfaceSpec::Smooth,
                    other => bail!("--surface: unknown {other}"),
                })
            }
            other => bail!("unknown option {other}"),
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
    let mut w = build_world(&scenario)?;
    if let Some(p) = points {
        w.model.contact_points = p;
    }
    w.params.integrator = IntegratorChoice::Explicit;
    let dt = w.params.dt;
    let steps = (end_s / dt).round() as u64;
    let mut stepper = Stepper::new(&w.params);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(19);
    let names = ["count", "point", "spring", "velocity"];
    let mut classes: [Class; 4] = Default::default();
    let (mut scans, mut states) = (0u64, 0u64);
    let empty = PairSample::default();
    for step in 1..=steps {
        stepper
            .step(&w.model, &mut w.state, false)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if step % every != 0 {
            continue;
        }
        states += 1;
        let (base, _) = pair_samples(&w.model, &w.state, &w.params)?;
        let pairs: Vec<Key> = base.keys().copied().collect();
        for k in pairs {
            let b_other = if k.1 == 0 {
                Other::Particle(k.2)
            } else {
                Other::Obstacle(k.2)
            };
            let stiffness = PairParams::of(&w.model, &w.state.bodies, k.0, b_other).stiffness();
            for probe in 0..probes {
                scans += 1;
                let dir = unit(&mut rng);
                let turn = probe % 2 == 1;
                let i = k.0 as usize;
                let model = &w.model;
                let (state, params) = (&w.state, &w.params);
                let mut eval = |s: f64| -> Result<PairSample> {
                    let (m, _) = pair_samples(model, &moved(state, i, &dir, s, turn), params)?;
                    Ok(m.get(&k).cloned().unwrap_or_default())
                };
                let radius = state.bodies[i].radius;
                let mut grid: Vec<End> = Vec::with_capacity(GRID + 1);
                grid.push((0.0, base.get(&k).cloned().unwrap_or_default()));
                for g in 1..=GRID {
                    let s = span * g as f64 / GRID as f64;
                    grid.push((s, eval(s)?));
                }
                let mut order: Vec<usize> = (0..GRID).collect();
                order.sort_by(|&u, &v| {
                    change(&grid[v].1, &grid[v + 1].1, radius).total_cmp(&change(
                        &grid[u].1,
                        &grid[u + 1].1,
                        radius,
                    ))
                });
                let mut found = None;
                for &g in order.iter().take(FOLLOWED) {
                    let (x, y) =
                        bisect(&mut eval, grid[g].clone(), grid[g + 1].clone(), radius, h)?;
                    let n = x.1.points.len().max(y.1.points.len()).max(1) as f64;
                    if change(&x.1, &y.1, radius) > ratio * n * stiffness * (y.0 - x.0) {
                        found = Some((x, y));
                        break;
                    }
                }
                let Some((x, y)) = found else {
                    continue;
                };
                let jump = change(&x.1, &y.1, radius);
                let class = if x.1.points.len() != y.1.points.len() {
                    0
                } else if x
                    .1
                    .points
                    .iter()
                    .zip(&y.1.points)
                    .any(|(p, q)| (p - q).norm() > 1e3 * (y.0 - x.0))
                {
                    1
                } else {
                    let still_at = |s: f64| -> Result<PairSample> {
                        let (m, _) =
                            pair_samples(model, &still(&moved(state, i, &dir, s, turn)), params)?;
                        Ok(m.get(&k).cloned().unwrap_or_else(|| empty.clone()))
                    };
                    let (xs, ys) = (still_at(x.0)?, still_at(y.0)?);
                    if change(&xs, &ys, radius) > 0.5 * jump {
                        2
                    } else {
                        3
                    }
                };
                let at = format!(
                    "t = {:.4} s, {} ({} at {:.3e} m: {} → {} contacts, |F| {:.4} → {:.4} N)",
                    step as f64 * dt,
                    pair_label(&w.model, &w.state.bodies, k),
                    if turn { "turn" } else { "shift" },
                    x.0,
                    x.1.points.len(),
                    y.1.points.len(),
                    x.1.force.norm(),
                    y.1.force.norm()
                );
                let r = jump / (stiffness * (y.0 - x.0));
                let c = &mut classes[class];
                c.count += 1;
                if r > c.worst_ratio {
                    c.worst_ratio = r;
                    c.worst_ratio_at = at.clone();
                }
                if jump > c.worst_jump_n {
                    c.worst_jump_n = jump;
                    c.worst_jump_at = at;
                }
            }
        }
    }
    println!(
        "{scene}: contact points {:?}, surface {:?}, {states} states, {scans} scans of {span:e} m (shift or turn of particle a), bisected to {h:e} m; jumps (|ΔF| + |Δτ|/r > {ratio}·n·k·Δs across Δs = {h:e} m):",
        w.model.contact_points,
        w.model.materials.iter().map(|m| m.surface).collect::<Vec<_>>()
    );
    for (name, c) in names.iter().zip(&classes) {
        println!(
            "  {name:<8} {:>6}  worst ratio {:.3e} at {}; worst jump {:.3} N at {}",
            c.count, c.worst_ratio, c.worst_ratio_at, c.worst_jump_n, c.worst_jump_at
        );
    }
    Ok(())
}
