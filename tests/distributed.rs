//! Distributed runs (issue 18): `mpirun -np N solver SCENARIO -o RUN` for N = 1, 2, 3, 4
//! writes the same frames, manifest and statistics, byte for byte, as one process, on a
//! 4,096-particle lattice, the hopper and the staircase (explicit) and the implicit pairs
//! and slope (Picard iterations); bad launches get one clear line.
//!
//! The MPI tests need the feature `mpi` of this package (which builds the solver with
//! MPI: `make test` turns it on when `mpirun` is installed) and `mpirun` on the `PATH`;
//! without `mpirun` they print `SKIPPED: mpirun not found` and pass. Without the feature,
//! the test of the refusal of an MPI launch runs instead.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use msdem_e2e::{binary, pipeline_binary, run_in, test_pipelines_dir, texts};

/// A pipeline copied into a scratch folder with `edits` applied, run once (meshes, trees,
/// the one-process run): its folder `out/NAME` holds `scenario.yaml` and `run/`.
struct Prepared {
    _dir: tempfile::TempDir,
    out: PathBuf,
}

#[allow(dead_code)]
fn prepare(pipeline: &Path, edits: &[(&str, &str)]) -> Prepared {
    prepare_expecting(pipeline, edits, true)
}

/// [`prepare`], with the pipeline's own run expected to succeed or to fail.
fn prepare_expecting(pipeline: &Path, edits: &[(&str, &str)], success: bool) -> Prepared {
    let dir = tempfile::tempdir().unwrap();
    let mut text = fs::read_to_string(pipeline).unwrap();
    for (from, to) in edits {
        assert!(
            text.contains(from),
            "{} has no `{from}`",
            pipeline.display()
        );
        text = text.replacen(from, to, 1);
    }
    let name = pipeline.file_name().unwrap();
    fs::write(dir.path().join(name), text).unwrap();
    let output = run_in(&pipeline_binary(), [name.to_str().unwrap()], dir.path());
    let (stdout, stderr) = texts(&output);
    assert_eq!(
        output.status.success(),
        success,
        "pipeline\n{stdout}\n{stderr}"
    );
    let stem = pipeline.file_stem().unwrap().to_str().unwrap();
    let out = dir.path().join("out").join(stem);
    Prepared { _dir: dir, out }
}

#[cfg(not(feature = "mpi"))]
#[test]
fn a_multi_rank_launch_of_a_solver_without_mpi_is_refused_in_one_line() {
    let p = prepare(&test_pipelines_dir().join("tiny.yaml"), &[]);
    for var in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"] {
        let output = Command::new(binary("solver"))
            .arg(p.out.join("scenario.yaml"))
            .args(["-o"])
            .arg(p.out.join("run_mpi"))
            .env(var, "2")
            .output()
            .unwrap();
        let (stdout, stderr) = texts(&output);
        assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
        assert_eq!(
            stderr,
            "error: started as one of 2 MPI ranks, but this solver was built without MPI \
             support (rebuild with `cargo build --release --features mpi`, or run without \
             mpirun)\n"
        );
        assert!(!p.out.join("run_mpi").exists(), "nothing is written");
    }
    eprintln!(
        "SKIPPED: the distributed (MPI) runs: this test build lacks the feature `mpi` \
         (`make test` turns it on when mpirun is installed)"
    );
}

#[cfg(feature = "mpi")]
mod mpi {
    use super::*;
    use msdem_e2e::{pipelines_dir, run_outputs};
    use msdem_frames::{stats_path, StatsFile};
    use std::process::Output;

    /// One MPI test at a time: four ranks each already oversubscribe the cores.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn serial() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `mpirun` on the `PATH`, or `None` after printing the loud skip line.
    fn mpirun() -> Option<PathBuf> {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("mpirun"))
                .find(|p| p.is_file())
        });
        if found.is_none() {
            eprintln!("SKIPPED: mpirun not found: the distributed (MPI) runs were not tested");
        }
        found
    }

    /// `mpirun -np ranks solver SCENARIO -o RUN --threads 1 --quiet --traffic`.
    fn launch(mpirun: &Path, ranks: u32, scenario: &Path, run: &Path, extra: &[&str]) -> Output {
        Command::new(mpirun)
            .args(["--oversubscribe", "-np", &ranks.to_string()])
            .arg(binary("solver"))
            .arg(scenario)
            .arg("-o")
            .arg(run)
            .args(["--threads", "1", "--quiet", "--traffic"])
            .args(extra)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .output()
            .unwrap()
    }

    /// Migrations summed over the ranks' `--traffic` lines.
    fn migrations(stderr: &str) -> u64 {
        stderr
            .lines()
            .filter_map(|l| {
                let (_, rest) = l.split_once("ghosts per step, ")?;
                rest.split_whitespace().next()?.parse::<u64>().ok()
            })
            .sum()
    }

    /// Runs `p`'s scenario on 1–4 ranks and compares every output file with the
    /// one-process run; returns the migrations of all runs and the one-process contacts.
    fn same_at_every_rank_count(p: &Prepared) -> (u64, u64) {
        let Some(mpirun) = mpirun() else {
            return (0, 0);
        };
        let serial = run_outputs(&p.out.join("run"));
        let stats = StatsFile::read(&stats_path(&p.out.join("run"))).unwrap();
        let contacts: u64 = stats.steps.iter().map(|s| u64::from(s.contacts)).sum();
        let mut moved = 0;
        for ranks in 1..=4 {
            let run = p.out.join(format!("run_np{ranks}"));
            let output = launch(&mpirun, ranks, &p.out.join("scenario.yaml"), &run, &[]);
            let (stdout, stderr) = texts(&output);
            assert!(
                output.status.success(),
                "{ranks} ranks failed\n{stdout}\n{stderr}"
            );
            moved += migrations(&stderr);
            let got = run_outputs(&run);
            assert_eq!(got.len(), serial.len(), "{ranks} ranks: files");
            for ((name, a), (other, b)) in serial.iter().zip(&got) {
                assert_eq!(name, other);
                assert!(a == b, "{ranks} ranks: {name} differs from one process");
            }
        }
        (moved, contacts)
    }

    #[test]
    fn a_4096_particle_lattice_is_byte_identical_on_1_to_4_ranks() {
        let _one = serial();
        let p = prepare(&test_pipelines_dir().join("mpi_lattice.yaml"), &[]);
        let (_, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 1000, "the lattice is in contact: {contacts}");
        }
    }

    #[test]
    fn the_staircase_is_byte_identical_on_1_to_4_ranks() {
        let _one = serial();
        let p = prepare(
            &pipelines_dir().join("staircase.yaml"),
            &[
                (
                    "end: 4.0, output_every: 400",
                    "end: 0.25, output_every: 500",
                ),
                (
                    "export: {",
                    "export: { vtk: false, ply: false, plots: false, animation: false } #",
                ),
            ],
        );
        let (_, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 0, "particles touch the stairs");
        }
    }

    #[test]
    fn the_hopper_is_byte_identical_on_1_to_4_ranks() {
        let _one = serial();
        // Faster drops than the full scenario's, so that the rocks reach the funnel walls
        // and each other within the short run.
        let mut edits = vec![
            (
                "end: 2.0, output_every: 400",
                "end: 0.15, output_every: 300",
            ),
            (
                "export: {",
                "export: { vtk: false, ply: false, plots: false, animation: false } #",
            ),
        ];
        edits.extend([("velocity: [0, 0, -0.5]", "velocity: [0, 0, -6]"); 3]);
        let p = prepare(&pipelines_dir().join("hopper.yaml"), &edits);
        let (moved, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 0, "rocks touch the hopper");
            // The rocks fall through the horizontal cuts of the bisection.
            assert!(moved > 0, "particles migrated between domains");
        }
    }

    #[test]
    fn more_ranks_than_particles_is_refused_in_one_line_and_writes_nothing() {
        let _one = serial();
        let Some(mpirun) = mpirun() else {
            return;
        };
        let p = prepare(&test_pipelines_dir().join("tiny.yaml"), &[]);
        let run = p.out.join("run_np3");
        let output = launch(&mpirun, 3, &p.out.join("scenario.yaml"), &run, &[]);
        let (_, stderr) = texts(&output);
        assert!(!output.status.success());
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            errors,
            [
                "error: 3 ranks for 2 particles: every rank needs at least one particle (run \
              with at most 2 ranks)"
            ],
            "{stderr}"
        );
        assert!(!run.join("run.msdem").exists(), "nothing is written");
    }

    #[test]
    fn a_blow_up_aborts_every_rank_with_its_message_and_keeps_the_frames_written() {
        let _one = serial();
        let Some(mpirun) = mpirun() else {
            return;
        };
        // dt 60 × the stability estimate: with the seed's contact points particle 0
        // turns non-finite at step 15.
        let p = prepare_expecting(
            &test_pipelines_dir().join("tiny.yaml"),
            &[(
                "time: { dt: 1.0e-4, end: 0.03, output_every: 100 }",
                "time: { dt: 2.0e-2, end: 20.0, output_every: 5 }\n  \
                 detection: { contact_points: seed }",
            )],
            false,
        );
        let scenario = p.out.join("scenario.yaml");
        let one = p.out.join("run_one");
        let output = Command::new(binary("solver"))
            .arg(&scenario)
            .arg("-o")
            .arg(&one)
            .args(["--quiet"])
            .output()
            .unwrap();
        assert!(!output.status.success());
        let run = p.out.join("run_np2");
        let output = launch(&mpirun, 2, &scenario, &run, &[]);
        let (_, stderr) = texts(&output);
        assert!(!output.status.success());
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            errors,
            [format!(
                "error: rank 0 of 2: {}: step 15: particle 0: non-finite orientation (time \
                 step too large or absurd initial state?)",
                scenario.display()
            )],
            "{stderr}"
        );
        // The frames and statistics up to the failure are those of one process.
        let (a, b) = (run_outputs(&one), run_outputs(&run));
        assert_eq!(a.len(), 3 + 2, "frames of steps 0, 5, 10, stats, manifest");
        assert!(a == b, "the frames written before the failure differ");
    }

    /// `particle_pair_implicit` with a second head-on pair 0.3 m above the first (four
    /// particles, so that every rank of four has one) and the spheres 3 cm apart, so
    /// that they collide within the short run: the bisection's first cut (the longest
    /// extent, x) separates the partners of both pairs, so the contacts cross ranks.
    fn implicit_pairs(integrator: &str, picard: &str) -> Prepared {
        implicit_pairs_expecting(integrator, picard, true)
    }

    /// [`implicit_pairs`], with the one-process run expected to succeed or to fail.
    fn implicit_pairs_expecting(integrator: &str, picard: &str, success: bool) -> Prepared {
        prepare_expecting(
            &pipelines_dir().join("particle_pair_implicit.yaml"),
            &msdem_e2e::implicit_four_pairs_edits(integrator, picard),
            success,
        )
    }

    /// Picard iterations summed over the one-process run's steps.
    fn iterations(p: &Prepared) -> u64 {
        let stats = StatsFile::read(&stats_path(&p.out.join("run"))).unwrap();
        stats.steps.iter().map(|s| u64::from(s.iterations)).sum()
    }

    #[test]
    fn the_implicit_pairs_are_byte_identical_on_1_to_4_ranks_with_multiscale_picard() {
        let _one = serial();
        let p = implicit_pairs(
            "integrator: implicit_multiscale",
            "picard: { tolerance: 0.01, max_iterations: 50 }",
        );
        let steps = 300;
        let (_, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 0, "the spheres collide");
            assert!(iterations(&p) > 2 * steps, "steps take several iterations");
        }
    }

    #[test]
    fn the_implicit_pairs_with_surrogate_picard_midpoint_rule_and_substeps_are_byte_identical_on_1_to_4_ranks(
    ) {
        let _one = serial();
        let p = implicit_pairs(
            "integrator: implicit_surrogate",
            "picard: { tolerance: 0.01, max_iterations: 4, scheme: midpoint }",
        );
        let (_, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 0, "the spheres collide");
            // Four iterations are too few for some contact steps: they are split.
            let stats = StatsFile::read(&stats_path(&p.out.join("run"))).unwrap();
            let substeps: u32 = stats.steps.iter().map(|s| s.substeps).sum();
            assert!(substeps > 0, "some steps were split into substeps");
        }
    }

    #[test]
    fn the_implicit_slope_is_byte_identical_on_1_to_4_ranks() {
        let _one = serial();
        // Four spheres side by side on the slope, dropped from different heights; the
        // last one thrown across the others' path.
        let p = prepare(
            &pipelines_dir().join("particle_on_slope_implicit.yaml"),
            &[
                (
                    "end: 1.0, output_every: 100",
                    "end: 0.45, output_every: 150",
                ),
                (
                    "position: [0, -1.2, 1.0], angular_velocity: [2, 0, 0] }",
                    "position: [-0.375, -1.2, 1.0], angular_velocity: [2, 0, 0] }\n    \
                     - { shape: sphere, material: rock, position: [-0.125, -1.2, 0.9] }\n    \
                     - { shape: sphere, material: rock, position: [0.125, -1.2, 0.8], \
                     angular_velocity: [0, 0, 5] }\n    - { shape: sphere, material: rock, \
                     position: [0.375, -0.9, 0.85], velocity: [-1.2, 0, 0] }",
                ),
                (
                    "export: {",
                    "export: { vtk: false, ply: false, plots: false, animation: false } #",
                ),
            ],
        );
        let (moved, contacts) = same_at_every_rank_count(&p);
        if mpirun().is_some() {
            assert!(contacts > 0, "the spheres reach the slope");
            // The fast sphere crosses the first cut: it migrates with its force (reused
            // in the next step's first iteration) and its pairs' kept sets.
            assert!(moved > 0, "particles migrated between domains");
        }
    }

    #[test]
    fn a_picard_step_that_fails_even_in_substeps_stops_every_rank_with_one_message() {
        let _one = serial();
        let Some(mpirun) = mpirun() else {
            return;
        };
        // Tolerance 1e-3 in at most four iterations with the seed's contact points: step
        // 45 fails even at Δt/16 (surface patches converge in substeps).
        let p = implicit_pairs_expecting(
            "integrator: implicit_surrogate",
            "picard: { tolerance: 0.001, max_iterations: 4, scheme: midpoint }\n  \
             detection: { contact_points: seed }",
            false,
        );
        let scenario = p.out.join("scenario.yaml");
        let one = p.out.join("run_one");
        let output = Command::new(binary("solver"))
            .arg(&scenario)
            .arg("-o")
            .arg(&one)
            .args(["--quiet"])
            .output()
            .unwrap();
        let (_, serial_err) = texts(&output);
        assert!(!output.status.success());
        let message = serial_err
            .lines()
            .find_map(|l| l.strip_prefix("error: "))
            .unwrap()
            .to_owned();
        assert!(message.contains("did not converge"), "{serial_err}");
        let run = p.out.join("run_np2");
        let output = launch(&mpirun, 2, &scenario, &run, &[]);
        let (_, stderr) = texts(&output);
        assert!(!output.status.success());
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            errors,
            [format!("error: rank 0 of 2: {message}")],
            "{stderr}"
        );
        let (a, b) = (run_outputs(&one), run_outputs(&run));
        assert!(a.len() > 2, "frames were written before the failure");
        assert!(a == b, "the frames written before the failure differ");
    }

    #[test]
    fn local_time_stepping_is_refused_on_several_ranks_and_runs_on_one() {
        let _one = serial();
        let Some(mpirun) = mpirun() else {
            return;
        };
        let p = prepare(
            &test_pipelines_dir().join("tiny.yaml"),
            &[(
                "  gravity: [0, 0, -9.81]",
                "  gravity: [0, 0, -9.81]\n  integrator: local_time_stepping",
            )],
        );
        let scenario = p.out.join("scenario.yaml");
        let run = p.out.join("run_np2");
        let output = launch(&mpirun, 2, &scenario, &run, &[]);
        let (_, stderr) = texts(&output);
        assert!(!output.status.success());
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            errors,
            [
                "error: distributed runs support the explicit and implicit integrators, not \
              `local_time_stepping` (run it without mpirun or with one rank)"
            ],
            "{stderr}"
        );
        assert!(!run.join("run.msdem").exists(), "nothing is written");
        let run = p.out.join("run_np1");
        let output = launch(&mpirun, 1, &scenario, &run, &[]);
        let (stdout, stderr) = texts(&output);
        assert!(output.status.success(), "{stdout}{stderr}");
        assert!(run_outputs(&p.out.join("run")) == run_outputs(&run));
    }

    #[test]
    fn the_newton_updates_are_refused_on_several_ranks_in_one_line() {
        let _one = serial();
        let Some(mpirun) = mpirun() else {
            return;
        };
        for update in ["newton", "piecewise_linear", "linearised"] {
            let p = prepare(
                &test_pipelines_dir().join("tiny.yaml"),
                &[(
                    "  gravity: [0, 0, -9.81]",
                    &format!(
                        "  gravity: [0, 0, -9.81]\n  integrator: implicit_surrogate\n  \
                         picard: {{ acceleration: {update} }}"
                    ),
                )],
            );
            let run = p.out.join("run_np2");
            let output = launch(&mpirun, 2, &p.out.join("scenario.yaml"), &run, &[]);
            let (_, stderr) = texts(&output);
            assert!(!output.status.success());
            let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
            assert_eq!(errors.len(), 1, "{stderr}");
            assert!(
                errors[0].contains(&format!("`picard.acceleration: {update}`")),
                "{stderr}"
            );
            assert!(!run.join("run.msdem").exists(), "nothing is written");
        }
    }
}
