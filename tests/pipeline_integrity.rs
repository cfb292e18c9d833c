//! Run integrity of the pipeline runner with the real binaries (issue 16, "Runner"):
//! a running pipeline holds its output folder (a second pipeline, or a solver run by hand
//! there, refuses in one line); its solver dies with it when the runner is killed, so a
//! rerun with another `end:` leaves exactly the new run's frames (defect 1); a damaged
//! intermediate or output (mesh, tree, frame) is rebuilt by the next run, which completes
//! (defect 2); a failed export keeps the previous export (defect 10).
#![cfg(target_os = "linux")]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use msdem_e2e::{
    binary, child_pids, pipeline_binary, process_alive, run_in, run_outputs, test_pipelines_dir,
    texts,
};
use msdem_frames::MANIFEST_MAGIC;
use msdem_frames::{frame_path, manifest_path, read_record, Frame, RunManifest, FRAME_MAGIC};

/// A scratch folder holding `tiny.yaml` with `time:` replaced by `time`.
fn sandbox(time: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_tiny(dir.path(), "tiny.yaml", time);
    dir
}

fn write_tiny(dir: &Path, name: &str, time: &str) {
    let text = fs::read_to_string(test_pipelines_dir().join("tiny.yaml")).unwrap();
    let from = "  time: { dt: 1.0e-4, end: 0.03, output_every: 100 }";
    assert!(text.contains(from));
    fs::write(
        dir.join(name),
        text.replacen(from, &format!("  time: {time}"), 1),
    )
    .unwrap();
}

fn run_ok(dir: &Path, args: &[&str]) -> String {
    let o = run_in(&pipeline_binary(), args, dir);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    stdout
}

/// The labels of the stages that ran (`[n/N] run   LABEL: …`).
fn ran(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once("] run   "))
        .map(|(_, rest)| rest.split(':').next().unwrap().to_owned())
        .collect()
}

/// The process name of `pid` (`/proc/PID/comm`).
fn comm(pid: u32) -> String {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Waits until the runner's child is the solver and it has written frame 1.
fn wait_for_solver(runner: &mut Child, partial: &Path) -> u32 {
    let t0 = Instant::now();
    loop {
        if let Some(status) = runner.try_wait().unwrap() {
            panic!("the pipeline ended ({status}) before its solver got going");
        }
        let solver = child_pids(runner.id())
            .into_iter()
            .find(|&p| comm(p) == "solver");
        if let Some(pid) = solver {
            if frame_path(partial, 1).is_file() {
                return pid;
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no solver frame in 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn one_line_error(o: &Output) -> String {
    let (stdout, stderr) = texts(o);
    assert!(!o.status.success(), "{stdout}\n{stderr}");
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

/// Defect 1, and the folder lock: while a pipeline solves, a second pipeline on its folder
/// and a solver run by hand on its folder or its solver's folder refuse, naming the holder,
/// and change nothing. SIGKILL to the runner alone takes its solver down within a second;
/// a rerun with a shorter `end:` then holds exactly that run's frames, byte for byte those
/// of an uninterrupted run.
#[test]
fn a_running_pipeline_holds_its_folder_and_its_solver_dies_with_it() {
    let pipeline = pipeline_binary();
    let solver_bin = binary("solver");
    // Long enough that the solver, with progress lines only every 5 % of the steps,
    // writes nothing to its (then broken) stderr for seconds after the kill: it must die
    // of its runner's death, not of a failed write.
    let long = "{ dt: 1.0e-4, end: 100.0, output_every: 1000 }";
    let short = "{ dt: 1.0e-4, end: 0.5, output_every: 1000 }";
    let dir = sandbox(long);
    let out = dir.path().join("out/tiny");
    let partial = out.join("run.partial");
    let mut runner = Command::new(&pipeline)
        .arg("tiny.yaml")
        .current_dir(dir.path())
        .env("MSDEM_PROGRESS_INTERVAL_S", "1000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let solver = wait_for_solver(&mut runner, &partial);
    let scenario = fs::read(out.join("scenario.yaml")).unwrap();

    // A second pipeline (another end:) on the same folder.
    write_tiny(dir.path(), "other.yaml", short);
    let o = run_in(&pipeline, ["other.yaml", "--out", "out/tiny"], dir.path());
    assert_eq!(
        one_line_error(&o),
        format!(
            "error: out/tiny: in use by another pipeline run (pid {}); wait for it or stop it\n",
            runner.id()
        )
    );
    assert!(o.stdout.is_empty());
    assert_eq!(fs::read(out.join("scenario.yaml")).unwrap(), scenario);
    // A solver by hand on the pipeline's folder, and on the folder its solver writes.
    let o = run_in(
        &solver_bin,
        ["out/tiny/scenario.yaml", "-o", "out/tiny", "--quiet"],
        dir.path(),
    );
    assert_eq!(
        one_line_error(&o),
        format!(
            "error: out/tiny: in use by another pipeline run (pid {}); wait for it or stop it\n",
            runner.id()
        )
    );
    assert!(!out.join("frames").exists(), "the refused solver wrote");
    let o = run_in(
        &solver_bin,
        [
            "out/tiny/scenario.yaml",
            "-o",
            "out/tiny/run.partial",
            "--quiet",
        ],
        dir.path(),
    );
    assert_eq!(
        one_line_error(&o),
        format!(
            "error: out/tiny/run.partial: in use by another solver run (pid {solver}); wait for it or stop it\n"
        )
    );

    // SIGKILL to the runner only: the solver goes with it.
    runner.kill().unwrap();
    runner.wait().unwrap();
    let t = Instant::now();
    while process_alive(solver) {
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "solver {solver} outlived its runner by a second"
        );
        std::thread::sleep(Duration::from_millis(5));
    }

    // Rerun with a shorter end: only the new run's frames, as an uninterrupted run has.
    write_tiny(dir.path(), "tiny.yaml", short);
    let stdout = run_ok(dir.path(), &["tiny.yaml"]);
    assert!(stdout.contains("made  export tiny"), "{stdout}");
    let run = out.join("run");
    let names: Vec<String> = run_outputs(&run).into_iter().map(|(n, _)| n).collect();
    let expected_frames: Vec<String> = (0..=5)
        .map(|i| format!("frames/frame_{i:06}.msdem"))
        .collect();
    assert_eq!(names[..names.len() - 2], expected_frames[..], "{names:?}");
    for i in 0..=5u32 {
        let frame: Frame = read_record(&frame_path(&run, i), &FRAME_MAGIC).unwrap();
        assert!(
            (frame.time - 0.1 * f64::from(i)).abs() < 1e-9,
            "{}",
            frame.time
        );
    }
    let pvd = fs::read_to_string(run.join("vtk/particles_state.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 6, "{pvd}");
    let reference = sandbox(short);
    run_ok(reference.path(), &["tiny.yaml"]);
    let expected = run_outputs(&reference.path().join("out/tiny/run"));
    let got = run_outputs(&run);
    assert_eq!(got.len(), expected.len());
    for ((name, a), (_, b)) in got.iter().zip(&expected) {
        assert!(a == b, "{name} differs from an uninterrupted run's");
    }
    assert!(!out.join(".lock").exists() && !run.join(".lock").exists());
}

/// A named way to damage a file and the stages that must rerun to repair it.
type Damage<'a> = (&'a str, &'a dyn Fn(), &'a [&'a str]);

/// Defect 2: damaged intermediates and outputs — a garbage mesh of the right size, a
/// truncated tree, a tree built with other parameters, a deleted and an edited frame, a
/// garbage `.vtp` and `.ply` — are rebuilt by the next run, which succeeds and ends with
/// the same files as the first.
#[test]
fn damaged_intermediates_and_outputs_are_rebuilt_not_fatal() {
    let dir = sandbox("{ dt: 1.0e-4, end: 0.03, output_every: 100 }");
    run_ok(dir.path(), &["tiny.yaml"]);
    let out = dir.path().join("out/tiny");
    let read = |rel: &str| fs::read(out.join(rel)).unwrap();
    let mesh = read("meshes/grain.ply");
    let tree = read("trees/grain.tree");
    let frames = run_outputs(&out.join("run"));
    let vtp = "run/vtk/particles_state_000001.vtp";
    let ply = "run/ply/frame_000002.ply";
    let (vtp_bytes, ply_bytes) = (read(vtp), read(ply));

    let cases: [Damage; 7] = [
        (
            "garbage mesh",
            &|| fs::write(out.join("meshes/grain.ply"), vec![b'x'; mesh.len()]).unwrap(),
            &["mesh grain"],
        ),
        (
            "truncated tree",
            &|| fs::write(out.join("trees/grain.tree"), &tree[..tree.len() / 3]).unwrap(),
            &["tree grain"],
        ),
        (
            "tree of other parameters",
            &|| {
                fs::copy(out.join("trees/floor.tree"), out.join("trees/grain.tree")).unwrap();
            },
            &["tree grain"],
        ),
        (
            "deleted frame",
            &|| fs::remove_file(frame_path(&out.join("run"), 2)).unwrap(),
            &["solve tiny", "export tiny"],
        ),
        (
            "edited frame",
            &|| {
                let path = frame_path(&out.join("run"), 1);
                let mut bytes = fs::read(&path).unwrap();
                let last = bytes.len() - 1;
                bytes[last] ^= 1;
                fs::write(&path, bytes).unwrap();
            },
            &["solve tiny", "export tiny"],
        ),
        (
            "garbage vtp",
            &|| fs::write(out.join(vtp), "<VTKFile").unwrap(),
            &["export tiny"],
        ),
        (
            "garbage ply",
            &|| fs::write(out.join(ply), vec![0u8; ply_bytes.len()]).unwrap(),
            &["export tiny"],
        ),
    ];
    for (what, damage, expect) in cases {
        damage();
        let stdout = run_ok(dir.path(), &["tiny.yaml"]);
        assert_eq!(ran(&stdout), expect, "{what}:\n{stdout}");
        assert!(stdout.contains(" stale "), "{what}:\n{stdout}");
        assert_eq!(read("meshes/grain.ply"), mesh, "{what}");
        assert_eq!(read("trees/grain.tree"), tree, "{what}");
        assert!(
            run_outputs(&out.join("run")) == frames,
            "{what}: frames differ"
        );
        assert_eq!(read(vtp), vtp_bytes, "{what}");
        assert_eq!(read(ply), ply_bytes, "{what}");
    }
    let stdout = run_ok(dir.path(), &["tiny.yaml"]);
    assert!(ran(&stdout).is_empty(), "{stdout}");
}

/// Defect 10: an export that fails (here on a frame edited after the solver wrote it,
/// with `--only export` so that the solver does not first rebuild it) leaves the previous
/// export as it was, and no staging folder.
#[test]
fn a_failed_export_keeps_the_previous_export() {
    let dir = sandbox("{ dt: 1.0e-4, end: 0.03, output_every: 100 }");
    run_ok(dir.path(), &["tiny.yaml"]);
    let run = dir.path().join("out/tiny/run");
    let snapshot = |sub: &str| {
        let mut files: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(run.join(sub))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let bytes = fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        files.sort();
        files
    };
    let before: Vec<_> = ["vtk", "ply", "plots"].map(snapshot).into();
    let path = frame_path(&run, 2);
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&path, bytes).unwrap();
    let o = run_in(
        &pipeline_binary(),
        ["tiny.yaml", "--only", "export"],
        dir.path(),
    );
    let (stdout, stderr) = texts(&o);
    assert!(!o.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("frame_000002.msdem: checksum mismatch"),
        "{stderr}"
    );
    let after: Vec<_> = ["vtk", "ply", "plots"].map(snapshot).into();
    assert!(before == after, "the previous export changed");
    let leftovers: Vec<_> = fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The next full run rebuilds the frame (solver) and exports again.
    let stdout = run_ok(dir.path(), &["tiny.yaml"]);
    assert_eq!(ran(&stdout), ["solve tiny", "export tiny"], "{stdout}");
    let manifest: RunManifest = read_record(&manifest_path(&run), &MANIFEST_MAGIC).unwrap();
    assert!(manifest.particles.len() == 2);
    msdem_frames::StatsFile::read(&run.join("stats.msdem")).unwrap();
}
