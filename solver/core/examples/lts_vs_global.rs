//! Seed 004 §8.1 particle-pairs benchmark: local time stepping against globally adaptive
//! time steps (the same code with constraint (2) applied to every cluster), in one process.
//!
//! N pairs of triangulated spheres (radius 5 cm, 80 triangles, ε = 1 % of the diameter)
//! on head-on collision courses along x, one pair per height, random speeds in
//! [0.5, 1.5] m/s per sphere and random collision times in [0.01, 0.35] s, so that each
//! pair collides exactly once and the collisions are not synchronised; no gravity. The
//! run covers 0.4 s in synchronisation intervals of 0.1 s. For each N the two variants
//! run interleaved on one rayon thread each; the time is the worker thread's CPU time
//! (`/proc/thread-self/schedstat`), so other load on the machine does not count. Every
//! result is checked against the analytic 1-D outcome (1e-3 relative) and total momentum
//! (1e-9 relative). Prints the phase breakdown (seed 004 §8.1 table) and, last,
//! `lts_speedup_<N> = global / local` for the largest N. With `--from-roots` a third run,
//! local time stepping whose narrowing searches start from the trees' roots (no witness of
//! the pair's previous search, `LocalTimeStepping::set_search_from_roots`), is
//! interleaved and its final state checked bit for bit against the local run.
//!
//! ```text
//! cargo run --release -p msdem-solver --example lts_vs_global -- [--pairs 64,512,2048,8192] [--local-only] [--from-roots]
//! ```

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use msdem_geom::math::{Mat3, Quat, Vec3};
use msdem_mesh::generate::icosphere;
use msdem_mesh::mass::mass_properties;
use msdem_solver::frames::lts::LtsPhaseTimes;
use msdem_solver::integrator::lts::{LocalTimeStepping, LtsMode};
use msdem_solver::model::{Geometry, HaloSpec, Material, MeshGeometry, Model, Shape};
use msdem_solver::params::{
    BroadPhaseChoice, DetectionMode, IntegratorChoice, KernelChoice, Params,
};
use msdem_solver::state::{Body, State};
use msdem_tree::{build_tree, BuildParams};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const R: f64 = 0.05;
const E: f64 = 0.8;
const DT: f64 = 0.1;
const END: f64 = 0.4;

struct Scene {
    model: Model,
    state: State,
    params: Params,
    speeds: Vec<(f64, f64)>,
}

fn scene(n: usize, shape: &Shape) -> Scene {
    let model = Model {
        name: "particle_pairs".into(),
        shapes: vec![shape.clone()],
        materials: vec![Material {
            name: "m".into(),
            density: 1000.0,
            halo: HaloSpec::Relative(0.01),
            spring: 1000.0,
            friction: 0.0,
            restitution: E,
            law: Default::default(),
            surface: Default::default(),
        }],
        ..Model::default()
    };
    let mass = shape.volume * 1000.0;
    let inertia = shape.unit_inertia * 1000.0;
    let turn = Quat::identity();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024 + n as u64);
    let mut bodies = Vec::with_capacity(2 * n);
    let mut speeds = Vec::with_capacity(n);
    for i in 0..n {
        let va: f64 = rng.gen_range(0.5..1.5);
        let vb: f64 = -rng.gen_range(0.5..1.5);
        let t_hit: f64 = rng.gen_range(0.01..0.35);
        let gap = (va - vb) * t_hit;
        let z = 0.3 * i as f64;
        for (x, v) in [(-R - 0.5 * gap, va), (R + 0.5 * gap, vb)] {
            bodies.push(Body {
                shape: 0,
                material: 0,
                mass,
                inertia,
                inv_inertia: inertia.try_inverse().expect("inertia"),
                epsilon: 0.01 * 2.0 * shape.radius,
                radius: shape.radius,
                position: Vec3::new(x, 0.0, z),
                orientation: turn,
                velocity: Vec3::new(v, 0.0, 0.0),
                angular_velocity: Vec3::zeros(),
            });
        }
        speeds.push((va, vb));
    }
    let params = Params {
        dt: DT,
        end: END,
        output_every: 1,
        gravity: Vec3::zeros(),
        integrator: IntegratorChoice::Lts(LtsMode::Local),
        detection: DetectionMode::Hierarchy,
        kept_sets: true,
        kernel: KernelChoice::Exact,
        broadphase: BroadPhaseChoice::Grid,
        picard: Default::default(),
        lts: Default::default(),
    };
    Scene {
        model,
        state: State {
            bodies,
            time: 0.0,
            step: 0,
        },
        params,
        speeds,
    }
}

fn thread_cpu_seconds() -> f64 {
    msdem_benchkit::thread_cpu_s().unwrap_or(f64::NAN)
}

struct Outcome {
    cpu: f64,
    phases: LtsPhaseTimes,
    sweeps: u64,
    clusters: u64,
    active: u64,
    rollbacks: u64,
    collisions: u64,
    iterations: u64,
    checks: u64,
    state: State,
}

fn run(scene: &Scene, mode: LtsMode, from_roots: bool) -> Result<Outcome> {
    let mut state = scene.state.clone();
    let mut lts = LocalTimeStepping::new(&scene.params, mode);
    lts.set_search_from_roots(from_roots);
    let mut out = Outcome {
        cpu: 0.0,
        phases: LtsPhaseTimes::default(),
        sweeps: 0,
        clusters: 0,
        active: 0,
        rollbacks: 0,
        collisions: 0,
        iterations: 0,
        checks: 0,
        state: State::default(),
    };
    let c0 = thread_cpu_seconds();
    while state.time < END - 0.5 * DT {
        let (s, w) = lts.advance_interval(&scene.model, &mut state)?;
        out.phases.add(&w);
        out.sweeps += s.sweeps as u64;
        out.clusters += s.clusters;
        out.active += s.active_clusters;
        out.rollbacks += s.rollbacks;
        out.collisions += s.collisions;
        out.iterations += s.narrowing_iterations;
        out.checks += s.narrowing_checks;
    }
    out.cpu = thread_cpu_seconds() - c0;
    // Check against the analytic outcome.
    let (mut p0, mut p1, mut scale) = (0.0, 0.0, 0.0);
    for (i, &(va, vb)) in scene.speeds.iter().enumerate() {
        let (a, b) = (&state.bodies[2 * i], &state.bodies[2 * i + 1]);
        let p = a.mass * va + b.mass * vb;
        let ea = (p + b.mass * E * (vb - va)) / (a.mass + b.mass);
        let eb = (p + a.mass * E * (va - vb)) / (a.mass + b.mass);
        for (got, want) in [(a.velocity.x, ea), (b.velocity.x, eb)] {
            if (got - want).abs() > 1e-3 * want.abs() {
                bail!("{mode:?}: pair {i}: v = {got}, analytic {want}");
            }
        }
        p0 += p;
        p1 += a.mass * a.velocity.x + b.mass * b.velocity.x;
        scale += a.mass * va.abs() + b.mass * vb.abs();
    }
    if (p1 - p0).abs() > 1e-9 * scale {
        bail!("{mode:?}: momentum {p0} → {p1}");
    }
    if out.collisions != scene.speeds.len() as u64 {
        bail!(
            "{mode:?}: {} collisions for {} pairs",
            out.collisions,
            scene.speeds.len()
        );
    }
    out.state = state;
    Ok(out)
}

fn print(name: &str, o: &Outcome) {
    let p = &o.phases;
    let t = p.total().max(1e-300);
    println!(
        "  {name:<7} cpu {:>9.3} s  sweeps {:>6}  clusters {:>9}  active {:>8}  rollbacks {:>6}  \
         narrowing iterations {:>7}  kernel calls {:>9}",
        o.cpu, o.sweeps, o.clusters, o.active, o.rollbacks, o.iterations, o.checks
    );
    println!(
        "          phases: broad {:.1} %, clustering {:.1} %, time step size {:.1} %, narrow {:.1} %, \
         collision {:.1} %, roll-over {:.1} %",
        100.0 * p.broad / t,
        100.0 * p.clustering / t,
        100.0 * p.step_size / t,
        100.0 * p.narrow / t,
        100.0 * p.collision / t,
        100.0 * p.roll_over / t
    );
}

fn main() -> Result<()> {
    let mut sizes = vec![64usize, 512, 2048, 8192];
    let mut local_only = false;
    let mut from_roots = false;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--pairs" => {
                let v = args.get(i + 1).context("--pairs needs a value")?;
                sizes = v
                    .split(',')
                    .map(|s| s.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .context("--pairs: comma-separated counts")?;
                i += 2;
            }
            "--local-only" => {
                local_only = true;
                i += 1;
            }
            "--from-roots" => {
                from_roots = true;
                i += 1;
            }
            other => {
                bail!(
                    "unknown argument {other} (usage: --pairs 64,512,2048,8192 [--local-only] \
                     [--from-roots])"
                )
            }
        }
    }
    let mesh = icosphere(R, 1)?;
    let mp = mass_properties(&mesh, 1.0).context("mass properties")?;
    let tree = Arc::new(build_tree(&mesh, [0; 32], &BuildParams::default())?);
    let shape = Shape {
        name: "sphere".into(),
        geometry: Geometry::Mesh(MeshGeometry::new(
            tree,
            String::new(),
            [0; 32],
            mesh.triangles.len() as u32,
        )),
        volume: mp.volume,
        com: Vec3::from(mp.com),
        unit_inertia: Mat3::from_fn(|i, j| mp.inertia[i][j]),
        radius: mp.bounding_radius,
    };
    let v0 = Vec3::from(mesh.vertices[0]) - shape.com;
    let turn = Quat::rotation_between(&v0, &Vec3::x()).context("rotation")?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let mut last = None;
    for &n in &sizes {
        let mut sc = scene(n, &shape);
        for b in &mut sc.state.bodies {
            b.orientation = turn;
        }
        println!(
            "{n} pairs ({} particles), {END} s in intervals of {DT} s:",
            2 * n
        );
        let (local, roots, global) = pool.install(|| -> Result<_> {
            let local = run(&sc, LtsMode::Local, false)?;
            let roots = if from_roots {
                Some(run(&sc, LtsMode::Local, true)?)
            } else {
                None
            };
            let global = if local_only {
                None
            } else {
                Some(run(&sc, LtsMode::Global, false)?)
            };
            Ok((local, roots, global))
        })?;
        print("local", &local);
        if let Some(roots) = roots {
            print("roots", &roots);
            // Debug prints every f64 with the digits that round-trip: equal text = equal bits.
            if format!("{:?}", roots.state) != format!("{:?}", local.state) {
                bail!("{n} pairs: searches from the roots end in another state");
            }
            println!(
                "  same final state bit for bit; kernel calls with witnesses / from the roots = {:.3}",
                local.checks as f64 / roots.checks.max(1) as f64
            );
        }
        let Some(global) = global else { continue };
        print("global", &global);
        let x = global.cpu / local.cpu;
        println!("  speed-up global / local = {x:.2}");
        last = Some((n, x));
    }
    if let Some((n, x)) = last {
        println!("lts_speedup_{n} = {x:.2}");
    }
    Ok(())
}
