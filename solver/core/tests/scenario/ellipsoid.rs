//! Ellipsoid shapes through a scenario file and the run loop (no mesh, no tree): a
//! head-on collision of two ellipsoids without gravity — momentum conserved to rounding,
//! the particles touched and separated again, restitution within the dashpot's
//! calibration, and the manifest records the semi-axes.

use crate::common::fixture::Fixture;
use msdem_solver::frames::{self, Frame, RunManifest, StatsFile, FRAME_MAGIC, MANIFEST_MAGIC};
use msdem_solver::run::{run, RunOptions};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;

const SCENARIO: &str = "version: 1
name: ellipsoids
time: { dt: 2.0e-5, end: 0.12, output_every: 100 }
materials:
  glass: { density: 2500.0, halo: { relative: 0.01 }, spring: 20000.0, friction: 0.0, restitution: 0.8 }
shapes:
  bean: { ellipsoid: { radii: [0.06, 0.02, 0.04] } }
  lentil: { ellipsoid: { radii: [0.05, 0.05, 0.025] } }
particles:
  - { shape: bean, material: glass, position: [-0.1, 0, 0], velocity: [1.0, 0, 0] }
  - { shape: lentil, material: glass, position: [0.1, 0.01, 0], velocity: [-0.5, 0, 0],
      orientation: [0.9238795, 0, 0.3826834, 0] }
";

#[test]
fn two_ellipsoids_collide_through_a_scenario_file_conserving_momentum() {
    let f = Fixture::new();
    let path = f.scenario("ellipsoids.yaml", SCENARIO);
    let world = build_world(&load_scenario(&path).unwrap()).unwrap();
    let masses: Vec<f64> = world.state.bodies.iter().map(|b| b.mass).collect();
    // Exact mass: 4/3 π abc ρ.
    let expected = 4.0 / 3.0 * std::f64::consts::PI * 0.06 * 0.02 * 0.04 * 2500.0;
    assert!((masses[0] - expected).abs() < 1e-12 * expected);
    let out = f.path().join("run");
    let options = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let summary = run(world, &out, &options).unwrap();
    assert!(summary.frames > 10);
    let manifest: RunManifest =
        frames::read_record(&frames::manifest_path(&out), &MANIFEST_MAGIC).unwrap();
    assert_eq!(manifest.shapes[0].ellipsoid, Some([0.06, 0.02, 0.04]));
    assert_eq!(manifest.shapes[1].ellipsoid, Some([0.05, 0.05, 0.025]));
    let stats: StatsFile = StatsFile::read(&frames::stats_path(&out)).unwrap();
    let touching = stats.steps.iter().filter(|s| s.contacts > 0).count();
    assert!(
        touching > 10,
        "the ellipsoids never touched ({touching} steps)"
    );
    let last = stats.steps.last().unwrap();
    assert_eq!(last.contacts, 0, "still in contact at the end");
    let p0 = masses[0] * 1.0 - masses[1] * 0.5;
    for s in &stats.steps {
        let p = s.linear_momentum[0];
        assert!(
            (p - p0).abs() <= 1e-12 * p0.abs().max(1.0),
            "momentum {p} vs {p0}"
        );
    }
    let end: Frame =
        frames::read_record(&frames::frame_path(&out, summary.frames - 1), &FRAME_MAGIC).unwrap();
    let (a, b) = (&end.bodies[0], &end.bodies[1]);
    assert!(
        a.position[0] < b.position[0],
        "they passed through each other"
    );
    // The pair separates after the impact: relative velocity along x reversed.
    let rel = b.velocity[0] - a.velocity[0];
    assert!(rel > 0.0, "relative velocity after the impact {rel}");
}
