//! The run loop with the local time stepping integrators: a scenario with
//! `integrator: local_time_stepping`, its statistics files, and a time step collapse that
//! stops the run with one line and keeps the frames written so far.

use std::path::Path;

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::frames::lts::{lts_stats_path, LtsStatsFile};
use msdem_solver::frames::{self, Frame, StatsFile, FRAME_MAGIC};
use msdem_solver::run::{run, RunOptions};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;

const PAIR: &str = "particles:
  - { shape: grain, material: rock, position: [-0.2, 0, 0], velocity: [1.0, 0, 0] }
  - { shape: grain, material: rock, position: [0.2, 0, 0], velocity: [-1.0, 0, 0] }
";

fn lts_stats(out: &Path) -> LtsStatsFile {
    LtsStatsFile::read(&lts_stats_path(out)).unwrap()
}

#[test]
fn a_local_time_stepping_run_writes_frames_and_its_statistics() {
    for integrator in ["local_time_stepping", "global_adaptive"] {
        let f = Fixture::new();
        let text = scenario_text(
            "{ dt: 0.02, end: 0.4, output_every: 5 }",
            &format!("integrator: {integrator}\nlts: {{ min_step_s: 1.0e-9 }}\n{PAIR}"),
        );
        let world = build_world(&load_scenario(&f.scenario("pair.yaml", &text)).unwrap()).unwrap();
        let out = f.path().join("run");
        let opts = RunOptions {
            quiet: true,
            wall_times: true,
            ..RunOptions::default()
        };
        let summary = run(world, &out, &opts).unwrap();
        assert_eq!((summary.steps, summary.frames), (20, 5), "{integrator}");
        let stats: StatsFile = StatsFile::read(&frames::stats_path(&out)).unwrap();
        let lts = lts_stats(&out);
        assert_eq!(lts.steps.len(), stats.steps.len());
        assert!(out.join("lts_timings.msdem").is_file());
        let collisions: u64 = lts.steps.iter().map(|s| s.collisions).sum();
        assert_eq!(collisions, 1, "{integrator}: the two grains collide once");
        for (s, l) in stats.steps.iter().zip(&lts.steps) {
            assert_eq!(s.step, l.step);
            assert_eq!(s.iterations, l.sweeps);
        }
        // The grains separate along x with equal and opposite velocities.
        let last: Frame = frames::read_record(&frames::frame_path(&out, 4), &FRAME_MAGIC).unwrap();
        let (va, vb) = (last.bodies[0].velocity[0], last.bodies[1].velocity[0]);
        assert!(va < 0.0 && vb > 0.0, "{integrator}: {va}, {vb}");
        assert!((va + vb).abs() < 1e-9, "{integrator}: momentum {va} + {vb}");
    }
}

#[test]
fn a_time_step_collapse_stops_with_one_line_and_keeps_the_frames() {
    let f = Fixture::new();
    let text = scenario_text(
        "{ dt: 0.02, end: 0.4, output_every: 1 }",
        &format!("integrator: local_time_stepping\nlts: {{ min_step_s: 0.5 }}\n{PAIR}"),
    );
    let world = build_world(&load_scenario(&f.scenario("pair.yaml", &text)).unwrap()).unwrap();
    let out = f.path().join("run");
    let opts = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let e = run(world, &out, &opts).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("time step collapse at t = "), "{e}");
    assert!(e.contains("particles 0, 1"), "{e}");
    let stats: StatsFile = StatsFile::read(&frames::stats_path(&out)).unwrap();
    let k = stats.steps.len() as u32;
    assert!(k >= 1, "some steps before the collapse");
    for i in 0..=k {
        let fr: Frame = frames::read_record(&frames::frame_path(&out, i), &FRAME_MAGIC).unwrap();
        assert_eq!(fr.step, i as u64);
    }
    assert!(!frames::frame_path(&out, k + 1).exists());
    assert_eq!(lts_stats(&out).steps.len(), k as usize);
}

/// LTS frames carry contact records like the explicit integrator's (issue 12): a cube
/// resting on the floor shows its contact points with the floor, their forces (impulse over
/// the step) carrying the cube's weight, and the particle load summing them.
#[test]
fn local_time_stepping_frames_carry_the_contact_records() {
    let f = Fixture::new();
    let body = "integrator: local_time_stepping
gravity: [0, 0, -9.81]
obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.002 } }
particles:
  - { shape: cube, material: rock, position: [0, 0, 0.0505] }
";
    let text = scenario_text("{ dt: 0.001, end: 0.2, output_every: 50 }", body);
    let world = build_world(&load_scenario(&f.scenario("rest.yaml", &text)).unwrap()).unwrap();
    let weight = world.state.bodies[0].mass * 9.81;
    let out = f.path().join("run");
    let opts = RunOptions {
        quiet: true,
        ..RunOptions::default()
    };
    run(world, &out, &opts).unwrap();
    let last: Frame = frames::read_record(&frames::frame_path(&out, 4), &FRAME_MAGIC).unwrap();
    assert!(last.contacts.len() >= 3, "{:?}", last.contacts);
    let mut total = 0.0;
    for c in &last.contacts {
        assert_eq!((c.a, c.b), (0, frames::Other::Obstacle(0)));
        assert!((c.normal[2] - 1.0).abs() < 1e-6, "{:?}", c.normal);
        assert!(c.point[2].abs() < 5e-3, "{:?}", c.point);
        total += c.force[2];
    }
    assert!(
        (total - weight).abs() <= 0.02 * weight,
        "{total} N vs weight {weight} N"
    );
    let load = &last.loads[0];
    assert_eq!(load.contacts as usize, last.contacts.len());
    assert!((load.force[2] - total).abs() <= 1e-9 * weight, "{load:?}");
}

/// Runs `text` (a scenario of the fixture) quietly into `f/name` and returns the bytes of
/// every frame and the steps run.
fn frames_of(f: &Fixture, name: &str, text: &str) -> (u64, Vec<Vec<u8>>) {
    let world =
        build_world(&load_scenario(&f.scenario(&format!("{name}.yaml"), text)).unwrap()).unwrap();
    let out = f.path().join(name);
    let opts = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let summary = run(world, &out, &opts).unwrap();
    let frames = (0..summary.frames as u32)
        .map(|i| std::fs::read(frames::frame_path(&out, i)).unwrap())
        .collect();
    (summary.steps, frames)
}

/// `lts.interval_s` (issue 12: one `integrator:` line switches a scene): the local time
/// stepping run with `time.dt` = 1 ms and an interval of 20 ms is the run that had 20 ms as
/// `time.dt` (frames byte for byte, `output_every` counted in steps of `time.dt`), and an
/// explicit run ignores the section (the same frames as without it).
#[test]
fn lts_interval_s_gives_the_run_of_time_dt_set_to_it_and_explicit_ignores_it() {
    let f = Fixture::new();
    let old = scenario_text(
        "{ dt: 0.02, end: 0.4, output_every: 5 }",
        &format!("integrator: local_time_stepping\n{PAIR}"),
    );
    let new = scenario_text(
        "{ dt: 0.001, end: 0.4, output_every: 100 }",
        &format!("integrator: local_time_stepping\nlts: {{ interval_s: 0.02 }}\n{PAIR}"),
    );
    let (steps_old, frames_old) = frames_of(&f, "old", &old);
    let (steps_new, frames_new) = frames_of(&f, "new", &new);
    assert_eq!((steps_old, frames_old.len()), (20, 5));
    assert_eq!(
        (steps_new, frames_new.len()),
        (20, 5),
        "20 intervals of 20 ms"
    );
    assert!(frames_old == frames_new, "the frames differ");

    let with = scenario_text(
        "{ dt: 0.001, end: 0.4, output_every: 100 }",
        &format!("integrator: explicit\nlts: {{ interval_s: 0.02 }}\n{PAIR}"),
    );
    let without = scenario_text(
        "{ dt: 0.001, end: 0.4, output_every: 100 }",
        &format!("integrator: explicit\n{PAIR}"),
    );
    let (steps_with, frames_with) = frames_of(&f, "with", &with);
    let (steps_without, frames_without) = frames_of(&f, "without", &without);
    assert_eq!(
        (steps_with, frames_with.len()),
        (400, 5),
        "400 explicit steps of 1 ms"
    );
    assert_eq!(steps_without, 400);
    assert!(frames_with == frames_without, "explicit used `lts:`");
}
