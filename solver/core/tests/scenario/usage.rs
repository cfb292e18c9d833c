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
    };
    let built = build_world(&load_scenario(&path).unwrap()).unwrap();
    run(built, &out, &options).unwrap();
    let last: Frame = frames::read_record(&frames::frame_path(&out, 1), &FRAME_MAGIC).unwrap();
    assert_eq!(last.step, 100);
    assert_eq!(last.bodies, body_states(&world.state));
    assert_eq!(last.contacts, contacts);
}
