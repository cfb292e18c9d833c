//! Distributed runs over time (issue 18):
//!
//! * **restarts** — a run of N MPI ranks killed after its checkpoints wrote the
//!   checkpoint one process writes (bodies, kept active sets, statistics marks: every
//!   field but the buffered wall-clock timings), and resumed with `--restart` on another
//!   rank count — or by one process without `mpirun` — it writes every frame and
//!   `stats.msdem` byte for byte as the uninterrupted one-process run;
//! * **rebalancing** — a lattice drifting fast across the bisection's cuts unbalances
//!   the ranks beyond `distributed.rebalance_imbalance`; the domains are recomputed
//!   (counted in the ranks' `--traffic` lines) and the results stay those of one process;
//! * **`pipeline --ranks N`** — runs the solve stage under `mpirun` with the results of a
//!   one-process pipeline, and a rerun at another rank count reuses the stage.
//!
//! Needs the feature `mpi` and `mpirun` on the `PATH` (see tests/distributed.rs); says
//! loudly when it skips.

#[cfg(not(feature = "mpi"))]
#[test]
fn restarts_of_distributed_runs_need_the_mpi_feature() {
    eprintln!(
        "SKIPPED: the restarts of distributed (MPI) runs: this test build lacks the feature \
         `mpi` (`make test` turns it on when mpirun is installed)"
    );
}

#[cfg(feature = "mpi")]
mod mpi {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use msdem_e2e::{
        binary, child_pids, pipeline_binary, pipelines_dir, process_alive, run_in, run_outputs,
        test_pipelines_dir, texts,
    };
    use msdem_solver::frames::{self, CHECKPOINT_MAGIC};
    use msdem_solver::run::checkpoint::Checkpoint;

    /// `mpirun` on the `PATH`, or `None` after printing the loud skip line.
    fn mpirun() -> Option<PathBuf> {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("mpirun"))
                .find(|p| p.is_file())
        });
        if found.is_none() {
            eprintln!("SKIPPED: mpirun not found: restarts of distributed runs were not tested");
        }
        found
    }

    /// The lattice of tests/distributed.rs with `edits`, run by the pipeline in one
    /// process: the reference. Returns the scratch folder and the pipeline's output folder.
    fn prepare(edits: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        prepare_from(&test_pipelines_dir().join("mpi_lattice.yaml"), edits)
    }

    /// The pipeline `pipeline` with `edits`, run in one process (see [`prepare`]).
    fn prepare_from(pipeline: &Path, edits: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let mut text = fs::read_to_string(pipeline).unwrap();
        for (from, to) in edits {
            assert!(text.contains(from), "no `{from}`");
            text = text.replacen(from, to, 1);
        }
        let name = pipeline.file_name().unwrap().to_str().unwrap();
        fs::write(dir.path().join(name), text).unwrap();
        let output = run_in(&pipeline_binary(), [name], dir.path());
        let (stdout, stderr) = texts(&output);
        assert!(output.status.success(), "pipeline\n{stdout}\n{stderr}");
        let out = dir.path().join("out").join(name.trim_end_matches(".yaml"));
        (dir, out)
    }

    /// The solver on `scenario` into `run` with a checkpoint every `every` steps (0:
    /// none), on `ranks` MPI ranks or as one plain process (`None`).
    fn solver(
        mpirun: &Path,
        ranks: Option<u32>,
        scenario: &Path,
        run: &Path,
        every: &str,
    ) -> Command {
        let mut c = match ranks {
            Some(n) => {
                let mut c = Command::new(mpirun);
                c.args(["--oversubscribe", "-np", &n.to_string()])
                    .arg(binary("solver"));
                c
            }
            None => Command::new(binary("solver")),
        };
        c.arg(scenario)
            .arg("-o")
            .arg(run)
            .args(["--threads", "1", "--checkpoint-every-steps", every])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
        c
    }

    /// The readable checkpoints of `run` (latest and previous).
    fn checkpoints(run: &Path) -> Vec<Checkpoint> {
        [
            frames::checkpoint_path(run),
            frames::previous_checkpoint_path(run),
        ]
        .iter()
        .filter_map(|p| frames::read_record::<Checkpoint>(p, &CHECKPOINT_MAGIC).ok())
        .collect()
    }

    /// Starts the run and kills it (SIGKILL to every rank, the children of `mpirun`, or
    /// to the one process) once it wrote the checkpoint of step 20; waits until every
    /// rank is gone.
    fn killed_after_step_20(command: Command, run: &Path) {
        killed_after(command, run, 20);
    }

    /// [`killed_after_step_20`] after the checkpoint of step `target`.
    fn killed_after(mut command: Command, run: &Path, target: u64) {
        let mut child: Child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while !checkpoints(run).iter().any(|c| c.step >= target) {
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "{}: the run ended ({status}) before step {target}",
                    run.display()
                );
            }
            assert!(t0.elapsed() < Duration::from_secs(300), "no checkpoints");
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut ranks = child_pids(child.id());
        ranks.push(child.id());
        for p in &ranks {
            let _ = Command::new("kill")
                .args(["-KILL", &p.to_string()])
                .status();
        }
        child.wait().unwrap();
        let t0 = Instant::now();
        while ranks.iter().any(|&p| process_alive(p)) {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "ranks outlived mpirun"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A checkpoint's bytes without its buffered wall-clock timings (`timings.msdem`
    /// records: never the same in two runs).
    fn comparable(c: &Checkpoint) -> Vec<u8> {
        let mut c = c.clone();
        if let Some(t) = c.streams.timings.as_mut() {
            t.pending.clear();
        }
        frames::encode(&CHECKPOINT_MAGIC, &c)
    }

    /// Asserts that every checkpoint of `written` that one process also wrote (`serial`,
    /// same step) is byte-identical to it, and that at least one step was compared.
    fn same_as_one_process(label: &str, written: &[Checkpoint], serial: &[Checkpoint]) {
        let mut compared = 0;
        for c in written {
            if let Some(s) = serial.iter().find(|s| s.step == c.step) {
                assert!(
                    comparable(c) == comparable(s),
                    "{label}: the checkpoint of step {} differs from one process's",
                    c.step
                );
                compared += 1;
            }
        }
        let steps = |v: &[Checkpoint]| v.iter().map(|c| c.step).collect::<Vec<_>>();
        assert!(
            compared > 0,
            "{label}: checkpoints of steps {:?}, one process {:?}",
            steps(written),
            steps(serial)
        );
    }

    /// Resumes `command` (the killed run's solver command) with `--restart` and asserts
    /// that it resumed from the checkpoint of step `from` and wrote every output of the
    /// uninterrupted run (`reference`) byte for byte.
    fn resumes_as_uninterrupted(
        label: &str,
        mut command: Command,
        run: &Path,
        from: u64,
        reference: &[(String, Vec<u8>)],
    ) {
        let output = command.arg("--restart").output().unwrap();
        let (stdout, stderr) = texts(&output);
        assert!(output.status.success(), "{label}\n{stdout}\n{stderr}");
        assert!(
            stderr.contains(&format!("resuming from the checkpoint at step {from} ")),
            "{stderr}"
        );
        let got = run_outputs(run);
        assert_eq!(got.len(), reference.len());
        for ((name, a), (_, b)) in reference.iter().zip(&got) {
            assert!(a == b, "{label}: {name} differs from the uninterrupted run");
        }
    }

    #[test]
    fn a_run_killed_on_n_ranks_wrote_the_one_process_checkpoint_and_resumes_on_any_rank_count() {
        let Some(mpirun) = mpirun() else {
            return;
        };
        // 100 steps, a frame every 10.
        let (_dir, out) = prepare(&[(
            "time: { dt: 1.0e-4, end: 4.0e-3, output_every: 10 }",
            "time: { dt: 1.0e-4, end: 1.0e-2, output_every: 10 }",
        )]);
        let scenario = out.join("scenario.yaml");
        let reference = run_outputs(&out.join("run"));
        assert_eq!(
            reference.len(),
            11 + 2,
            "frames of steps 0, 10, …, 100; stats; manifest"
        );

        let one = out.join("killed_one");
        killed_after_step_20(solver(&mpirun, None, &scenario, &one, "10"), &one);
        let serial = checkpoints(&one);

        // (ranks of the killed run, ranks of the resumed one; None: no mpirun)
        for (killed, resumed) in [(2, Some(3)), (4, Some(1)), (3, None)] {
            let run = out.join(format!("killed_np{killed}"));
            killed_after_step_20(solver(&mpirun, Some(killed), &scenario, &run, "10"), &run);
            let written = checkpoints(&run);
            same_as_one_process(&format!("{killed} ranks"), &written, &serial);
            // The kept active sets of the lattice's pairs are in it: the statistics of
            // the resumed run depend on them.
            assert!(written.iter().all(|c| c.detector.len() > 100_000));

            let from = written.iter().map(|c| c.step).max().unwrap_or(0);
            resumes_as_uninterrupted(
                &format!("killed on {killed} ranks, resumed on {resumed:?}"),
                solver(&mpirun, resumed, &scenario, &run, "10"),
                &run,
                from,
                &reference,
            );
            assert!(
                !frames::checkpoint_path(&run).exists(),
                "removed at the end"
            );
        }
    }

    /// `particle_pair_implicit` with a second head-on pair 0.3 m above the first, 3 cm
    /// apart (the four-particle pairs of tests/distributed.rs: the bisection's first cut
    /// separates the partners, so the contacts cross ranks), with `integrator` and
    /// `picard` settings; 300 steps, a frame every 25.
    fn implicit_pairs(integrator: &str, picard: &str) -> (tempfile::TempDir, PathBuf) {
        prepare_from(
            &pipelines_dir().join("particle_pair_implicit.yaml"),
            &msdem_e2e::implicit_four_pairs_edits(integrator, picard),
        )
    }

    /// Implicit runs killed after a checkpoint taken while particles touch (so the
    /// carried evaluation holds contacts and forces), on the `killed` rank count (`None`:
    /// one process without `mpirun`), resumed on the `resumed` one: the checkpoint is one
    /// process's at the same step, byte for byte, and the resumed run writes every frame
    /// and `stats.msdem` of the uninterrupted one-process run (`out/run`).
    fn implicit_runs_resume(out: &Path, every: u64, cases: &[(Option<u32>, Option<u32>)]) {
        let Some(mpirun) = mpirun() else {
            return;
        };
        let scenario = out.join("scenario.yaml");
        let reference = run_outputs(&out.join("run"));
        let stats = frames::StatsFile::read(&frames::stats_path(&out.join("run"))).unwrap();
        let touching = |step: u64| stats.steps.iter().any(|s| s.step == step && s.contacts > 0);
        // The first checkpoint step after the first contact, with one step of contact
        // before it (the evaluation carried into the next step holds contacts).
        let first = stats.steps.iter().find(|s| s.contacts > 0).unwrap().step;
        let target = (first / every + 1) * every;
        assert!(touching(target), "in contact at step {target}");
        assert!(
            target + 5 * every < stats.steps.len() as u64,
            "room after it"
        );
        let every = every.to_string();

        let one = out.join("killed_one");
        killed_after(solver(&mpirun, None, &scenario, &one, &every), &one, target);
        let serial = checkpoints(&one);
        for &(killed, resumed) in cases {
            let run = match killed {
                None => one.clone(),
                Some(n) => {
                    let run = out.join(format!("killed_np{n}_{resumed:?}"));
                    killed_after(
                        solver(&mpirun, Some(n), &scenario, &run, &every),
                        &run,
                        target,
                    );
                    run
                }
            };
            let written = checkpoints(&run);
            same_as_one_process(&format!("{killed:?} ranks"), &written, &serial);
            assert!(
                written.iter().all(|c| !c.integrator.is_empty()),
                "the carried evaluation is in it"
            );
            let from = written.iter().map(|c| c.step).max().unwrap_or(0);
            assert!(from >= target && touching(from), "resumed in contact");
            resumes_as_uninterrupted(
                &format!("killed on {killed:?} ranks, resumed on {resumed:?}"),
                solver(&mpirun, resumed, &scenario, &run, &every),
                &run,
                from,
                &reference,
            );
        }
    }

    #[test]
    fn an_implicit_multiscale_run_killed_on_n_ranks_resumes_on_any_rank_count() {
        // Implicit Euler: the next step's first iteration reuses the carried evaluation
        // (its checks per iteration are in `stats.msdem`), with the kept active sets.
        let (_dir, out) = implicit_pairs(
            "integrator: implicit_multiscale",
            "picard: { tolerance: 0.01, max_iterations: 50 }",
        );
        implicit_runs_resume(
            &out,
            10,
            &[(Some(2), Some(3)), (None, Some(2)), (Some(3), None)],
        );
    }

    #[test]
    fn an_implicit_surrogate_midpoint_run_with_substeps_killed_on_n_ranks_resumes_on_any_rank_count(
    ) {
        // Four iterations are too few for some contact steps: they are split in substeps.
        let (_dir, out) = implicit_pairs(
            "integrator: implicit_surrogate",
            "picard: { tolerance: 0.01, max_iterations: 4, scheme: midpoint }",
        );
        let stats = frames::StatsFile::read(&frames::stats_path(&out.join("run"))).unwrap();
        assert!(stats.steps.iter().any(|s| s.substeps > 0), "substeps");
        implicit_runs_resume(&out, 10, &[(Some(3), Some(1)), (Some(2), None)]);
    }

    #[test]
    fn an_implicit_flat_run_on_the_slope_killed_on_n_ranks_resumes_on_any_rank_count() {
        // Four spheres dropped from just above the slope (obstacle contacts, from about
        // step 500), the last thrown towards the first cut.
        let (_dir, out) = prepare_from(
            &pipelines_dir().join("particle_on_slope_implicit.yaml"),
            &[
                (
                    "dt: 1.0e-4, end: 1.0, output_every: 100",
                    "dt: 2.0e-4, end: 0.25, output_every: 25",
                ),
                (
                    "integrator: implicit_multiscale",
                    "integrator: implicit_flat",
                ),
                // 80 triangles a sphere: every triangle pair of every candidate pair in
                // every iteration stays cheap.
                ("subdivisions: 3", "subdivisions: 1"),
                (
                    "position: [0, -1.2, 1.0], angular_velocity: [2, 0, 0] }",
                    "position: [-0.375, -1.2, 0.6], angular_velocity: [2, 0, 0] }\n    \
                     - { shape: sphere, material: rock, position: [-0.125, -1.2, 0.59] }\n    \
                     - { shape: sphere, material: rock, position: [0.125, -1.2, 0.58], \
                     angular_velocity: [0, 0, 5] }\n    - { shape: sphere, material: rock, \
                     position: [0.2, -0.9, 0.47], velocity: [-1.2, 0, 0] }",
                ),
                (
                    "export: {",
                    "export: { vtk: false, ply: false, plots: false, animation: false } #",
                ),
            ],
        );
        implicit_runs_resume(&out, 25, &[(Some(2), None), (None, Some(3))]);
    }

    /// Rebalances on rank 0 from the ranks' `--traffic` lines.
    fn rebalances(stderr: &str) -> Option<u32> {
        stderr.lines().find_map(|l| {
            let rest = l.strip_prefix("traffic: rank 0 of ")?;
            let (_, after) = rest.split_once(" migrations, ")?;
            after.split_whitespace().next()?.parse().ok()
        })
    }

    #[test]
    fn a_lattice_drifting_across_the_cuts_is_rebalanced_and_stays_byte_identical() {
        let Some(mpirun) = mpirun() else {
            return;
        };
        // 256 grains, 16 rows along y (so every cut of the bisection lies across y),
        // drifting at 10 m/s in −y: 3 of the 16 rows cross each cut within the run, a
        // load imbalance far over 1.1 unless the domains follow.
        let (_dir, out) = prepare(&[
            (
                "time: { dt: 1.0e-4, end: 4.0e-3, output_every: 10 }",
                "time: { dt: 1.0e-4, end: 3.0e-2, output_every: 50 }",
            ),
            (
                "  seed: 3",
                "  seed: 3\n  distributed: { rebalance_imbalance: 1.1 }",
            ),
            (
                "velocity: [0.3, -0.2, -1.0]",
                "velocity: [0.3, -10.0, -1.0]",
            ),
            ("count: [16, 16, 16]", "count: [4, 16, 4]"),
        ]);
        let scenario = out.join("scenario.yaml");
        let reference = run_outputs(&out.join("run"));
        let stats = frames::StatsFile::read(&frames::stats_path(&out.join("run"))).unwrap();
        assert!(stats.steps.iter().any(|s| s.contacts > 0), "grains touch");
        for ranks in [2, 3, 4] {
            let run = out.join(format!("run_np{ranks}"));
            let output = solver(&mpirun, Some(ranks), &scenario, &run, "0")
                .args(["--quiet", "--traffic"])
                .output()
                .unwrap();
            let (stdout, stderr) = texts(&output);
            assert!(output.status.success(), "{ranks} ranks\n{stdout}\n{stderr}");
            let count = rebalances(&stderr);
            assert!(
                count.is_some_and(|n| n > 0),
                "{ranks} ranks: no rebalance ({count:?})\n{stderr}"
            );
            let got = run_outputs(&run);
            assert_eq!(got.len(), reference.len());
            for ((name, a), (_, b)) in reference.iter().zip(&got) {
                assert!(a == b, "{ranks} ranks: {name} differs from one process");
            }
        }
    }

    #[test]
    fn pipeline_ranks_runs_the_solver_under_mpirun_and_another_count_reuses_it() {
        if mpirun().is_none() {
            return;
        }
        let (_dir, out) = prepare(&[]);
        let reference = run_outputs(&out.join("run"));
        let pipeline = out
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("mpi_lattice.yaml");
        let elsewhere = tempfile::tempdir().unwrap();
        let run = |ranks: &str| {
            let output = Command::new(pipeline_binary())
                .arg(&pipeline)
                .args(["--ranks", ranks, "--out"])
                .arg(elsewhere.path())
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .output()
                .unwrap();
            let (stdout, stderr) = texts(&output);
            assert!(
                output.status.success(),
                "--ranks {ranks}\n{stdout}\n{stderr}"
            );
            stdout
        };
        let stdout = run("2");
        assert!(stdout.contains(" on 2 MPI ranks × "), "{stdout}");
        assert!(run_outputs(&elsewhere.path().join("run")) == reference);
        let stdout = run("3");
        assert!(
            stdout.contains("skip  solve mpi_lattice (up to date)"),
            "{stdout}"
        );
    }
}
