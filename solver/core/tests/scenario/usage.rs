//! The usage example `examples/usage.rs` (its code, included here): 100 steps of a grain
//! touching the floor give the state and the contact records (with forces) that the run
//! loop writes into its frame of step 100.

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::frames::{self, Frame, FRAME_MAGIC};
use msdem_solver::run::{body_states, run, RunOptions};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;

#[path = "../../examples/usage.rs"]
#[allow(dead_code)]
mod example;

/// A grain whose lowest vertex is 2 mm above the floor, within the 3 mm margin of their
/// halos, moving down at 0.1 m/s (0.1 mm in the 100 steps of 10 µs); a cube in the air.
const FALL: &str = "gravity: [0, 0, -9.81]
obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.002 } }
particles:
  - { shape: grain, material: rock, position: [0, 0, 0.052], velocity: [0, 0, -0.1] }
  - { shape: cube, material: rock, position: [0.3, 0, 0.5] }
";

#[test]
fn the_usage_example_reports_the_contacts_the_run_loop_writes() {
    let f = Fixture::new();
    let time = "{ dt: 1.0e-5, end: 0.001, output_every: 100 }";
    let path = f.scenario("usage.yaml", &scenario_text(time, FALL));
    let (world, contacts) = example::simulate(&path, 100).unwrap();
    assert_eq!((world.state.step, world.state.bodies.len()), (100, 2));
    assert!(!contacts.is_empty(), "the grain must touch the floor");
    assert!(contacts.iter().all(|c| c.a == 0 && c.force[2] > 0.0));

    let out = f.path().join("run");
    let options = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let built = build_world(&load_scenario(&path).unwrap()).unwrap();
    run(built, &out, &options).unwrap();
    let last: Frame = frames::read_record(&frames::frame_path(&out, 1), &FRAME_MAGIC).unwrap();
    assert_eq!(last.step, 100);
    assert_eq!(last.bodies, body_states(&world.state));
    assert_eq!(last.contacts, contacts);

    // The frame's loads are the sums over exactly these contacts, in their order (the
    // cube in the air has none).
    assert_eq!(last.loads.len(), 2);
    assert_eq!(last.loads[1], frames::BodyLoad::default());
    let grain = &last.loads[0];
    assert_eq!(grain.contacts as usize, contacts.len());
    let mut force = [0.0; 3];
    let mut torque = [0.0; 3];
    let x = last.bodies[0].position;
    for c in &contacts {
        let r: [f64; 3] = std::array::from_fn(|i| c.point[i] - x[i]);
        let f = c.force;
        let t = [
            r[1] * f[2] - r[2] * f[1],
            r[2] * f[0] - r[0] * f[2],
            r[0] * f[1] - r[1] * f[0],
        ];
        for i in 0..3 {
            force[i] += f[i];
            torque[i] += t[i];
        }
    }
    assert_eq!(grain.force, force, "same sums in the same order");
    assert!(grain.force[2] > 0.0);
    // Torques are taken about the centre of mass at the start of the step, which moved by
    // about 1e-6 m since: |Δτ| ≤ |Δx|·Σ|F|.
    let total: f64 = contacts.iter().map(|c| c.force[2].abs() * 2.0).sum();
    for i in 0..3 {
        assert!(
            (grain.torque[i] - torque[i]).abs() <= 1e-5 * total + 1e-12,
            "{:?} vs {torque:?}",
            grain.torque
        );
    }
    assert!(
        frames::read_record::<Frame>(&frames::frame_path(&out, 0), &FRAME_MAGIC)
            .unwrap()
            .loads
            .iter()
            .all(|l| *l == frames::BodyLoad::default()),
        "frame 0 has no contacts"
    );
}
