//! The run loop end to end through the library: frames and manifest read back and compared
//! with an independent stepping of the same world and with the analytic free fall;
//! determinism; a run that blows up; reuse of an output folder.

use std::path::Path;

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::detect::Detector;
use msdem_solver::frames::{
    self, Frame, Other, RunManifest, StatsFile, FRAME_MAGIC, MANIFEST_MAGIC,
};
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::run::{body_states, run, RunOptions};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

fn quiet() -> RunOptions {
    RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    }
}

fn load(f: &Fixture, name: &str, time: &str, body: &str) -> World {
    let s = f.scenario(name, &scenario_text(time, body));
    build_world(&load_scenario(&s).unwrap()).unwrap()
}

fn frame(out: &Path, k: u32) -> Frame {
    frames::read_record(&frames::frame_path(out, k), &FRAME_MAGIC).unwrap()
}

const FALL: &str = "gravity: [0, 0, -9.81]
particles:
  - { shape: grain, material: rock, position: [0, 0, 1], velocity: [0.5, 0, 2] }
  - { shape: cube, material: rock, position: [1, 0, 1], angular_velocity: [0, 0, 3] }
";

#[test]
fn frames_round_trip_and_match_independent_stepping_and_free_fall() {
    let f = Fixture::new();
    let world = load(
        &f,
        "fall.yaml",
        "{ dt: 1.0e-3, end: 0.05, output_every: 10 }",
        FALL,
    );
    let out = f.path().join("run");
    let summary = run(world.clone(), &out, &quiet()).unwrap();
    assert_eq!((summary.steps, summary.frames), (50, 6));

    let manifest: RunManifest =
        frames::read_record(&frames::manifest_path(&out), &MANIFEST_MAGIC).unwrap();
    assert_eq!(
        (manifest.name.as_str(), manifest.dt, manifest.output_every),
        ("test", 1e-3, 10)
    );
    assert_eq!(manifest.particles.len(), 2);
    for (rec, b) in manifest.particles.iter().zip(&world.state.bodies) {
        assert_eq!(
            (rec.shape, rec.mass, rec.radius, rec.epsilon, rec.material),
            (b.shape, b.mass, b.radius, b.epsilon, b.material)
        );
        for (r, row) in rec.inertia.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                assert_eq!(*v, b.inertia[(r, c)]);
            }
        }
    }
    for s in &manifest.shapes {
        assert!(Path::new(&s.mesh).is_relative(), "{}", s.mesh);
        assert_eq!(
            msdem_mesh::file_hash(out.join(&s.mesh)).unwrap(),
            s.mesh_hash
        );
    }
    assert!(!frames::frame_path(&out, 6).exists());

    // Independent stepping of a clone gives the same states at every output step.
    let mut reference = world.clone();
    let mut ex = ExplicitEuler::new(&reference.params);
    let mut det = Detector::new(&reference.params);
    assert_eq!(frame(&out, 0).bodies, body_states(&reference.state));
    for k in 1..=5u32 {
        for _ in 0..10 {
            ex.advance(&reference.model, &mut reference.state, &mut det, false)
                .unwrap();
        }
        let fr = frame(&out, k);
        assert_eq!(fr.step, u64::from(k) * 10);
        assert!((fr.time - f64::from(k) * 0.01).abs() < 1e-12);
        assert_eq!(fr.bodies, body_states(&reference.state));
        assert!(fr.contacts.is_empty());
    }
    // Euler–Cromer free fall: z_n = z0 + n v0 dt + g dt² n(n+1)/2.
    let (n, dt, g) = (50.0, 1e-3, -9.81);
    let z = 1.0 + n * 2.0 * dt + g * dt * dt * n * (n + 1.0) / 2.0;
    let last = frame(&out, 5);
    assert!(
        (last.bodies[0].position[2] - z).abs() < 1e-12,
        "{}",
        last.bodies[0].position[2]
    );
    assert!((last.bodies[0].position[0] - 50.0 * 0.5 * dt).abs() < 1e-12);
    assert!((last.bodies[1].velocity[2] - n * g * dt).abs() < 1e-12);

    let stats: StatsFile = StatsFile::read(&frames::stats_path(&out)).unwrap();
    assert_eq!(stats.steps.len(), 50);
    assert!(stats
        .steps
        .iter()
        .enumerate()
        .all(|(i, s)| s.step == i as u64 + 1));
    assert_eq!(
        stats.steps[49].checks_per_level.len(),
        manifest.levels as usize
    );
}

const PILE: &str = "gravity: [0, 0, -9.81]
seed: 11
obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.002 } }
particles:
  - { shape: cube, material: rock, position: [0, 0, 0.0505] }
generators:
  - drop: { shape: grain, material: rock, count: 6, min: [-0.3, -0.3, 0.11], max: [0.3, 0.3, 0.3],
            velocity: [0, 0, -1], random_orientation: true }
";

fn files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = vec![];
    for p in [frames::manifest_path(out), frames::stats_path(out)] {
        v.push((p.display().to_string(), std::fs::read(&p).unwrap()));
    }
    let mut k = 0;
    while frames::frame_path(out, k).exists() {
        let p = frames::frame_path(out, k);
        v.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        k += 1;
    }
    v
}

#[test]
fn same_scenario_and_seed_give_byte_identical_files() {
    let f = Fixture::new();
    let time = "{ dt: 2.0e-4, end: 0.02, output_every: 20 }";
    let out = f.path().join("pile");
    // With wall-clock timings on (the CLI default): they go to their own file, and every
    // other file, `stats.msdem` included, must still be byte-identical.
    let timed = RunOptions {
        quiet: true,
        wall_times: true,
        ..RunOptions::default()
    };
    let summary = run(load(&f, "pile.yaml", time, PILE), &out, &timed).unwrap();
    assert!(frames::timings_path(&out).is_file());
    assert!(summary.contacts_total > 0, "{summary}");
    // The cube, resting in its halo on the floor, is pushed up and hit by falling grains.
    let contacts: Vec<_> = (1..=5).flat_map(|k| frame(&out, k).contacts).collect();
    assert!(contacts
        .iter()
        .any(|c| c.a == 0 && matches!(c.b, Other::Particle(_))));
    let first = files(&out);
    assert_eq!(first.len(), 2 + 6);
    run(load(&f, "pile.yaml", time, PILE), &out, &timed).unwrap();
    assert_eq!(files(&out), first);
}

#[test]
fn a_blow_up_stops_with_step_and_particle_and_keeps_the_frames_written() {
    let f = Fixture::new();
    let world = load(
        &f,
        "boom.yaml",
        "{ dt: 1.0, end: 10.0, output_every: 1 }",
        // The grid broad phase refuses such coordinates before the state turns
        // non-finite; all_pairs lets the integrator overflow.
        "broadphase: all_pairs
particles:
  - { shape: grain, material: rock, position: [0, 0, 0] }
  - { shape: grain, material: rock, position: [5, 0, 0], velocity: [1.0e308, 0, 0] }
",
    );
    let out = f.path().join("boom");
    let e = run(world, &out, &quiet()).unwrap_err().to_string();
    assert!(
        e.starts_with("step 2: particle 1: non-finite position"),
        "{e}"
    );
    let f0 = frame(&out, 0);
    let f1 = frame(&out, 1);
    assert_eq!((f0.step, f1.step), (0, 1));
    assert_eq!(f1.bodies[1].position[0], 5.0 + 1.0e308);
    assert!(!frames::frame_path(&out, 2).exists());
    let stats: StatsFile = StatsFile::read(&frames::stats_path(&out)).unwrap();
    assert_eq!(stats.steps.len(), 1);
    assert!(frames::manifest_path(&out).exists());
}

#[test]
fn a_rerun_replaces_the_previous_runs_frames_only() {
    let f = Fixture::new();
    let out = f.path().join("again");
    let long = load(
        &f,
        "long.yaml",
        "{ dt: 1.0e-3, end: 0.01, output_every: 1 }",
        FALL,
    );
    run(long, &out, &quiet()).unwrap();
    assert!(frames::frame_path(&out, 10).exists());
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    let short = load(
        &f,
        "short.yaml",
        "{ dt: 1.0e-3, end: 0.002, output_every: 1 }",
        FALL,
    );
    run(short, &out, &quiet()).unwrap();
    assert!(frames::frame_path(&out, 2).exists());
    assert!(!frames::frame_path(&out, 3).exists());
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn an_unusable_output_folder_is_refused_before_writing() {
    let f = Fixture::new();
    let world = load(
        &f,
        "fall.yaml",
        "{ dt: 1.0e-3, end: 0.01, output_every: 1 }",
        FALL,
    );
    let file = f.path().join("taken");
    std::fs::write(&file, b"keep").unwrap();
    let e = run(world, &file, &quiet()).unwrap_err().to_string();
    assert_eq!(e, format!("{}: exists and is not a folder", file.display()));
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
}

#[test]
fn a_world_that_cannot_run_is_refused_before_writing() {
    let f = Fixture::new();
    let mut world = load(
        &f,
        "fall.yaml",
        "{ dt: 1.0e-3, end: 0.01, output_every: 1 }",
        FALL,
    );
    world.state.bodies[1].velocity.y = f64::NAN;
    let out = f.path().join("never");
    let e = run(world.clone(), &out, &quiet()).unwrap_err().to_string();
    assert_eq!(e, "step 0: particle 1: non-finite velocity");
    world.state.bodies.clear();
    let e = run(world, &out, &quiet()).unwrap_err().to_string();
    assert_eq!(e, "world `test`: no particles");
    assert!(!out.exists());
}

/// Regression (issue 16): the per-step statistics stayed in memory for the whole run
/// (≈ 0.9 MB/s growth). They are streamed now: a run 10× as long holds no more steps in
/// memory (at most one chunk), and the file still has every step, in order.
#[test]
fn statistics_memory_stays_flat_over_a_ten_times_longer_run() {
    use msdem_solver::frames::stream::CHUNK_STEPS;
    let f = Fixture::new();
    let mut peaks = Vec::new();
    for steps in [500u64, 5000] {
        let end = steps as f64 * 1e-4;
        let text = scenario_text(
            &format!("{{ dt: 1.0e-4, end: {end}, output_every: 1000 }}"),
            "particles:\n  - { shape: grain, material: rock, position: [0, 0, 1] }\n",
        );
        let s = load_scenario(&f.scenario("long.yaml", &text)).unwrap();
        let out = f.path().join(format!("out_{steps}"));
        let options = RunOptions {
            quiet: true,
            ..RunOptions::default()
        };
        let summary = run(build_world(&s).unwrap(), &out, &options).unwrap();
        assert_eq!(summary.steps, steps);
        let stats = StatsFile::read(&frames::stats_path(&out)).unwrap();
        let numbers: Vec<u64> = stats.steps.iter().map(|s| s.step).collect();
        assert_eq!(numbers, (1..=steps).collect::<Vec<_>>());
        let timings = msdem_solver::frames::TimingsFile::read(&frames::timings_path(&out)).unwrap();
        assert_eq!(timings.steps.len() as u64, steps);
        peaks.push(summary.peak_buffered_steps);
    }
    // 500 steps: all buffered until the end; 5000: never more than one chunk.
    assert_eq!(peaks[0], 500);
    assert_eq!(peaks[1], CHUNK_STEPS);
    assert!(peaks[1] < 5000 / 4);
}
