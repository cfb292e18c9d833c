//! The scenario's `broadphase:` choice end to end: every algorithm, level choice and Verlet
//! skin — and `detection.kept_sets: false` — gives byte-identical run outputs (the broad
//! phase is exact, its order fixed; kept active sets find the same contacts), a skin
//! really reuses its candidate lists, and the parsed forms map to the intended broad phase.

use std::path::Path;

use crate::common::fixture::{scenario_text, Fixture};
use msdem_broadphase::HGridConfig;
use msdem_solver::detect::broad::{default_skin, BroadStage, CandidatePair, DEFAULT_SKIN_FRACTION};
use msdem_solver::frames::StatsFile;
use msdem_solver::params::BroadPhaseChoice;
use msdem_solver::run::{run, RunOptions, Stepper};
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

/// Two interleaved lattices, grains moving +x and pebbles moving −x, over a floor: grain–
/// pebble collisions after ≈ 7 ms, floor contacts for the lower layer under gravity.
const CROSSING: &str = "gravity: [0, 0, -9.81]
obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.002 } }
generators:
  - lattice: { shape: grain, material: rock, origin: [0, 0, 0.055], spacing: [0.3, 0.12, 0.12],
               count: [2, 3, 2], velocity: [1.5, 0, 0], random_orientation: true }
  - lattice: { shape: pebble, material: rock, origin: [0.1, 0.02, 0.04], spacing: [0.3, 0.12, 0.12],
               count: [2, 3, 2], velocity: [-1.5, 0, 0.5], random_orientation: true }
";

const TIME: &str = "{ dt: 1.0e-4, end: 0.03, output_every: 50 }";

fn world(f: &Fixture, name: &str, broadphase: &str) -> World {
    let text = scenario_text(TIME, &format!("{broadphase}\n{CROSSING}"));
    let path = f.scenario(name, &text);
    build_world(&load_scenario(&path).unwrap()).unwrap_or_else(|e| panic!("{broadphase}: {e}"))
}

/// Every file of a run folder, by relative path, in sorted order.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_broadphase_and_skin_gives_byte_identical_outputs() {
    let f = Fixture::new();
    let variants = [
        "broadphase: all_pairs",
        "broadphase: hgrid",
        "broadphase: grid",
        "broadphase: linked_cells",
        "broadphase: { kind: hgrid, levels: 2 }",
        "broadphase: { kind: hgrid, cell_sizes: [0.07, 0.2, 1.0] }",
        "broadphase: { kind: hgrid, skin: 0.004 }",
        "broadphase: { kind: hgrid, levels: 1, skin: 0.05 }",
        "broadphase: { kind: linked_cells, cell_size: 0.3, skin: 0.01 }",
        // Uniform bins (seed 002 §4): automatic, and bins smaller than a particle.
        "broadphase: bins",
        "broadphase: { kind: bins, bin_size: 0.02 }",
        // The explicit detection from the roots in every step instead of on kept sets.
        "broadphase: hgrid\ndetection: { kept_sets: false }",
    ];
    let options = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let mut reference: Option<Vec<(String, Vec<u8>)>> = None;
    for (i, v) in variants.iter().enumerate() {
        let out = f.path().join(format!("run{i}"));
        run(world(&f, &format!("s{i}.yaml"), v), &out, &options).unwrap();
        let got = files(&out);
        match &reference {
            None => {
                // The reference run must exercise the broad phase: particle–particle and
                // particle–floor candidates and contacts.
                let stats: StatsFile = StatsFile::read(&out.join("stats.msdem")).unwrap();
                assert_eq!(stats.steps.len(), 300);
                assert!(
                    stats.steps.iter().any(|s| s.contacts > 4),
                    "too few contacts"
                );
                assert!(
                    got.len() > 5,
                    "{:?}",
                    got.iter().map(|g| &g.0).collect::<Vec<_>>()
                );
                reference = Some(got);
            }
            Some(r) => {
                let names = |x: &[(String, Vec<u8>)]| x.iter().map(|g| g.0.clone()).collect();
                let (a, b): (Vec<String>, Vec<String>) = (names(r), names(&got));
                assert_eq!(a, b, "{v}");
                for ((name, x), (_, y)) in r.iter().zip(&got) {
                    if v.contains("kept_sets") && name == "stats.msdem" {
                        // Check counts differ by design; contacts and energies may not.
                        let stats = |dir: &Path| -> StatsFile {
                            StatsFile::read(&dir.join("stats.msdem")).unwrap()
                        };
                        let (a, b) = (stats(&f.path().join("run0")), stats(&out));
                        for (p, q) in a.steps.iter().zip(&b.steps) {
                            assert_eq!(p.contacts, q.contacts, "{v}: step {}", p.step);
                            assert_eq!(p.kinetic_energy.to_bits(), q.kinetic_energy.to_bits());
                        }
                        assert!(a.steps.iter().map(|s| s.skipped).sum::<u64>() > 0);
                        assert_eq!(b.steps.iter().map(|s| s.skipped).sum::<u64>(), 0);
                        continue;
                    }
                    assert!(x == y, "{v}: {name} differs from all_pairs");
                }
            }
        }
    }
}

/// Candidate lists of `choice` and of all-pairs agree on every state of a run, and the
/// skinned grid is rebuilt in only some of the steps.
#[test]
fn a_skin_reuses_candidates_and_finds_exactly_the_all_pairs_list() {
    let f = Fixture::new();
    let mut w = world(&f, "s.yaml", "broadphase: all_pairs");
    assert!(w
        .state
        .bodies
        .iter()
        .any(|b| (b.velocity.x - 1.5).abs() < 1e-12));
    let choices = [
        BroadPhaseChoice::HGrid(HGridConfig {
            skin: 0.004,
            ..HGridConfig::default()
        }),
        BroadPhaseChoice::LinkedCells {
            cell_size: None,
            skin: 0.002,
        },
        BroadPhaseChoice::HGrid(HGridConfig::default()),
    ];
    let mut stages: Vec<BroadStage> = choices.iter().map(|_| BroadStage::default()).collect();
    let mut rebuilds = [0u32; 3];
    let mut reference = BroadStage::default();
    let mut stepper = Stepper::new(&w.params);
    let (mut expected, mut got): (Vec<CandidatePair>, Vec<CandidatePair>) = (vec![], vec![]);
    let mut particle_pairs = 0;
    let steps = 200;
    for _ in 0..steps {
        let (model, bodies) = (&w.model, &w.state.bodies);
        reference
            .candidates(model, bodies, &w.params.broadphase, &mut expected)
            .unwrap();
        particle_pairs += expected
            .iter()
            .filter(|c| matches!(c.b, msdem_solver::frames::Other::Particle(_)))
            .count();
        for ((choice, stage), n) in choices.iter().zip(&mut stages).zip(&mut rebuilds) {
            stage.candidates(model, bodies, choice, &mut got).unwrap();
            assert_eq!(got, expected, "{choice:?} at step {}", w.state.step);
            *n += u32::from(stage.stats().rebuilt);
        }
        stepper.step(&w.model, &mut w.state, false).unwrap();
    }
    assert!(particle_pairs > 0, "no particle pairs: the test is void");
    // skin 4 mm, speeds ≲ 1.6 m/s: a sphere moves 2 mm in ≳ 12 steps.
    assert!(rebuilds[0] >= 2 && rebuilds[0] < steps / 4, "{rebuilds:?}");
    assert!(rebuilds[1] >= 2 && rebuilds[1] < steps / 2, "{rebuilds:?}");
    assert_eq!(rebuilds[2], steps, "skin 0 rebuilds every step");
}

/// Unwritten skins: [`DEFAULT_SKIN_FRACTION`] × the smallest bounding diameter with
/// automatic cells, 0 with given cells; written values as written.
#[test]
fn parsed_forms_map_to_the_intended_broad_phase() {
    let f = Fixture::new();
    // The smallest particles are the pebbles: r = 0.03 m (icosphere vertices on the sphere),
    // ε = 0.01 × diameter, so 2 (r + ε) = 2 r · 1.02.
    let auto = {
        let w = world(&f, "auto.yaml", "");
        let smallest = w
            .state
            .bodies
            .iter()
            .map(|b| 2.0 * (b.radius + b.epsilon))
            .fold(f64::INFINITY, f64::min);
        assert!((smallest - 2.0 * 0.03 * 1.02).abs() < 1e-9, "{smallest}");
        assert_eq!(
            default_skin(&w.state.bodies),
            DEFAULT_SKIN_FRACTION * smallest
        );
        DEFAULT_SKIN_FRACTION * smallest
    };
    let grid = |levels, cell_sizes, skin| {
        BroadPhaseChoice::HGrid(HGridConfig {
            levels,
            cell_sizes,
            skin,
        })
    };
    let cases = [
        ("", grid(None, None, auto)),
        ("broadphase: grid", grid(None, None, auto)),
        ("broadphase: all_pairs", BroadPhaseChoice::AllPairs),
        (
            "broadphase: linked_cells",
            BroadPhaseChoice::LinkedCells {
                cell_size: None,
                skin: auto,
            },
        ),
        (
            "broadphase:\n  skin: 0.01\n  levels: 3\n  kind: hgrid",
            grid(Some(3), None, 0.01),
        ),
        (
            "broadphase: { kind: hgrid, skin: 0 }",
            grid(None, None, 0.0),
        ),
        (
            "broadphase: { kind: hgrid, levels: 2, cell_sizes: [0.2, 0.5] }",
            grid(Some(2), Some(vec![0.2, 0.5]), 0.0),
        ),
        (
            "broadphase: bins",
            BroadPhaseChoice::Bins { bin_size: None },
        ),
        (
            "broadphase: { kind: bins, bin_size: 0.25 }",
            BroadPhaseChoice::Bins {
                bin_size: Some(0.25),
            },
        ),
        (
            "broadphase: { kind: linked_cells, cell_size: 0.5 }",
            BroadPhaseChoice::LinkedCells {
                cell_size: Some(0.5),
                skin: 0.0,
            },
        ),
        (
            "broadphase: { kind: linked_cells, cell_size: 0.5, skin: 0.02 }",
            BroadPhaseChoice::LinkedCells {
                cell_size: Some(0.5),
                skin: 0.02,
            },
        ),
    ];
    for (i, (text, expected)) in cases.into_iter().enumerate() {
        let w = world(&f, &format!("p{i}.yaml"), text);
        assert_eq!(w.params.broadphase, expected, "{text}");
    }
}
