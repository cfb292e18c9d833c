//! `pipeline --resume` (issue 16): a pipeline whose runner is killed with SIGKILL (its
//! solver dies with it) after the solver wrote a checkpoint continues from that checkpoint
//! (`solver --restart`) and leaves frames, manifest and `stats.msdem` byte for byte as an
//! uninterrupted run of the same pipeline; its stage line says that it resumed.
#![cfg(target_os = "linux")]

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use msdem_e2e::{
    child_pids as children, pipeline_binary, process_alive as alive, run_in, run_outputs,
    test_pipelines_dir, texts,
};
use msdem_frames::{checkpoint_path, read_record, CHECKPOINT_MAGIC};
use msdem_solver::run::checkpoint::Checkpoint;

/// The tiny pipeline, made long enough to be killed mid-run (2 s simulated, 20 000 steps)
/// with a checkpoint every 500 steps (the scenario's `checkpoint:` section) and none by
/// wall time.
fn pipeline_text() -> String {
    let text = fs::read_to_string(test_pipelines_dir().join("tiny.yaml")).unwrap();
    let from = "  time: { dt: 1.0e-4, end: 0.03, output_every: 100 }";
    assert!(text.contains(from));
    text.replacen(
        from,
        "  time: { dt: 1.0e-4, end: 2.0, output_every: 1000 }\n  \
         checkpoint: { every_steps: 500, every_wall_s: 0 }",
        1,
    )
}

/// A scratch folder holding `tiny.yaml`; output in `out/tiny`.
fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("tiny.yaml"), pipeline_text()).unwrap();
    dir
}

#[test]
fn a_killed_pipeline_resumes_from_the_checkpoint_and_matches_an_uninterrupted_run() {
    let pipeline = pipeline_binary();

    // The uninterrupted run.
    let reference = sandbox();
    let o = run_in(&pipeline, ["tiny.yaml"], reference.path());
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    let reference_run = reference.path().join("out/tiny/run");
    assert!(!checkpoint_path(&reference_run).exists());
    let expected = run_outputs(&reference_run);
    assert_eq!(expected.len(), 20_000 / 1000 + 1 + 2);

    // The same pipeline, the runner killed with SIGKILL once the solver's checkpoint
    // is at step 3000 or later (the solver is the runner's child).
    let killed = sandbox();
    let partial = killed.path().join("out/tiny/run.partial");
    let mut runner = Command::new(&pipeline)
        .arg("tiny.yaml")
        .current_dir(killed.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let killed_at = loop {
        if let Some(status) = runner.try_wait().unwrap() {
            panic!("the pipeline ended ({status}) before a checkpoint at step 3000");
        }
        let step = read_record::<Checkpoint>(&checkpoint_path(&partial), &CHECKPOINT_MAGIC)
            .ok()
            .map(|c| c.step);
        if let Some(step) = step.filter(|&s| s >= 3000) {
            let solvers = children(runner.id());
            assert_eq!(solvers.len(), 1, "the runner's children: {solvers:?}");
            // SIGKILL to the runner only: its solver dies with it (PR_SET_PDEATHSIG).
            runner.kill().unwrap();
            runner.wait().unwrap();
            let solver = solvers[0];
            let t = Instant::now();
            while alive(solver) {
                assert!(
                    t.elapsed() < Duration::from_secs(1),
                    "solver {solver} outlived its runner by a second"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            break step;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no checkpoint in 2 minutes"
        );
        std::thread::sleep(Duration::from_micros(500));
    };
    let out = killed.path().join("out/tiny");
    // The runner creates `run/` before the solver starts; nothing was swapped into it.
    assert!(
        !out.join("run/frames").exists(),
        "the killed run was swapped in"
    );
    assert!(!out.join(".stamps/solve-tiny.stamp").exists());

    // --resume: meshes and trees are reused, the solver continues from its checkpoint (or
    // the previous one, when the kill hit the rotation), export runs as usual.
    let o = run_in(&pipeline, ["tiny.yaml", "--resume"], killed.path());
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    for skipped in ["mesh grain", "mesh floor", "tree grain", "tree floor"] {
        assert!(
            stdout.contains(&format!("skip  {skipped} (up to date)")),
            "{stdout}"
        );
    }
    let line = stdout
        .lines()
        .find(|l| l.contains("resume solve tiny from run.partial/checkpoint"))
        .unwrap_or_else(|| panic!("no resume line:\n{stdout}"));
    assert!(
        line.ends_with("solver scenario.yaml -o run.partial --restart"),
        "{line}"
    );
    let step = stderr
        .lines()
        .find_map(|l| l.strip_prefix("note: run.partial: resuming from the checkpoint at step "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no resume note:\n{stderr}"));
    // The checkpoint read before the kill, or a later one written before the kill landed.
    assert!(
        step >= killed_at && step % 500 == 0 && step < 20_000,
        "resumed at {step}, killed at {killed_at}"
    );
    assert!(stdout.contains("made  export tiny"), "{stdout}");

    let run = out.join("run");
    assert!(!checkpoint_path(&run).exists());
    assert!(!out.join("run.partial").exists());
    let got = run_outputs(&run);
    assert_eq!(
        got.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        expected.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in got.iter().zip(&expected) {
        assert!(a == b, "{name} differs after the kill at step {killed_at}");
    }
    assert!(run.join("vtk/particles.pvd").is_file());

    // Nothing left to continue: a second --resume reruns nothing.
    let o = run_in(&pipeline, ["tiny.yaml", "--resume"], killed.path());
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("done  0 of 6 stages ran"), "{stdout}");
}
