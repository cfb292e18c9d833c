//! The `solver` binary: flags, exit codes, one-line errors, quiet mode, summary, a run that
//! blows up. (The bad-scenario corpus is checked in `tests/scenario/bad_corpus.rs`.)

use std::path::Path;
use std::process::{Command, Output};

use crate::common::fixture::{scenario_text, Fixture};
use msdem_solver::frames::{self, Frame, FRAME_MAGIC};

fn solver(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const FALL: &str = "gravity: [0, 0, -9.81]
particles:
  - { shape: grain, material: rock, position: [0, 0, 1] }
  - { shape: grain, material: rock, position: [0.5, 0, 1] }
";

#[test]
fn help_documents_every_flag() {
    let o = solver(&["--help".as_ref()]);
    assert!(o.status.success());
    let help = text(&o.stdout);
    for flag in ["SCENARIO", "-o, --out <RUNDIR>", "--threads <N>", "--quiet"] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn a_run_prints_its_summary_and_writes_the_run_folder() {
    let f = Fixture::new();
    let s = f.scenario(
        "fall.yaml",
        &scenario_text("{ dt: 1.0e-3, end: 0.01, output_every: 5 }", FALL),
    );
    let out = f.path().join("out/fall");
    let o = solver(&[
        s.as_ref(),
        "-o".as_ref(),
        out.as_ref(),
        "--threads".as_ref(),
        "1".as_ref(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.starts_with("test: 10 steps to t = 0.010000 s"),
        "{stdout}"
    );
    assert!(stdout.contains("3 frames"), "{stdout}");
    assert_eq!(stdout.lines().count(), 1);
    assert!(frames::manifest_path(&out).is_file());
    assert!(frames::stats_path(&out).is_file());
    let last: Frame = frames::read_record(&frames::frame_path(&out, 2), &FRAME_MAGIC).unwrap();
    assert_eq!(last.step, 10);
}

#[test]
fn quiet_prints_nothing() {
    let f = Fixture::new();
    let s = f.scenario(
        "fall.yaml",
        &scenario_text("{ dt: 1.0e-4, end: 0.0005, output_every: 5 }", FALL),
    );
    let out = f.path().join("q");
    let o = solver(&[s.as_ref(), "-o".as_ref(), out.as_ref(), "--quiet".as_ref()]);
    assert!(o.status.success());
    assert_eq!(
        (o.stdout.len(), o.stderr.len()),
        (0, 0),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_large_time_step_is_warned_about_on_stderr() {
    let f = Fixture::new();
    let s = f.scenario(
        "big.yaml",
        &scenario_text("{ dt: 0.5, end: 0.5, output_every: 1 }", FALL),
    );
    let out = f.path().join("big");
    let o = solver(&[s.as_ref(), "-o".as_ref(), out.as_ref(), "--quiet".as_ref()]);
    assert!(o.status.success());
    let stderr = text(&o.stderr);
    assert!(
        stderr.starts_with(&format!(
            "warning: {}: time step dt = 0.5 s exceeds",
            s.display()
        )),
        "{stderr}"
    );
}

#[test]
fn bad_arguments_fail_without_writing() {
    let f = Fixture::new();
    let s = f.scenario(
        "fall.yaml",
        &scenario_text("{ dt: 1.0e-3, end: 0.005, output_every: 5 }", FALL),
    );
    let out = f.path().join("never");
    for args in [
        vec![
            s.as_os_str(),
            "-o".as_ref(),
            out.as_ref(),
            "--threads".as_ref(),
            "0".as_ref(),
        ],
        vec![
            s.as_os_str(),
            "-o".as_ref(),
            out.as_ref(),
            "--fast".as_ref(),
        ],
        vec![s.as_os_str()],
    ] {
        let o = solver(&args);
        assert!(!o.status.success(), "{args:?}");
        assert!(!out.exists());
    }
    let missing = f.path().join("nope.yaml");
    let o = solver(&[missing.as_ref(), "-o".as_ref(), out.as_ref()]);
    assert!(!o.status.success());
    let stderr = text(&o.stderr);
    assert!(
        stderr.starts_with(&format!("error: {}: ", missing.display())),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
    assert!(!out.exists());
}

#[test]
fn a_blow_up_exits_non_zero_naming_step_and_particle_and_keeps_frames() {
    let f = Fixture::new();
    let s = f.scenario(
        "boom.yaml",
        &scenario_text(
            "{ dt: 1.0, end: 10.0, output_every: 1 }",
            "broadphase: all_pairs
particles:
  - { shape: grain, material: rock, position: [0, 0, 0], velocity: [0, 1.0e308, 0] }
",
        ),
    );
    let out = f.path().join("boom");
    let o = solver(&[s.as_ref(), "-o".as_ref(), out.as_ref(), "--quiet".as_ref()]);
    assert!(!o.status.success());
    let stderr = text(&o.stderr);
    // The time-step warning, then the error.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("warning: "), "{stderr}");
    // Issue 16: a runtime error names the scenario file before the step.
    assert!(
        lines[1].starts_with(&format!(
            "error: {}: step 2: particle 0: non-finite position",
            s.display()
        )),
        "{stderr}"
    );
    for k in 0..2 {
        let fr: Frame =
            frames::read_record(&frames::frame_path(Path::new(&out), k), &FRAME_MAGIC).unwrap();
        assert_eq!(fr.step, u64::from(k));
    }
}

/// Issue 16: `--threads 65535` was accepted and spent minutes starting threads; the count
/// is capped at 1024, refused in one line before the scenario is read.
#[test]
fn threads_above_the_cap_are_refused_in_one_line() {
    let f = Fixture::new();
    let s = f.scenario(
        "fall.yaml",
        &scenario_text("{ dt: 1.0e-3, end: 0.005, output_every: 5 }", FALL),
    );
    let out = f.path().join("never");
    for n in ["65535", "1025", "0", "many"] {
        let start = std::time::Instant::now();
        let o = solver(&[
            s.as_ref(),
            "-o".as_ref(),
            out.as_ref(),
            "--threads".as_ref(),
            n.as_ref(),
        ]);
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        assert!(!o.status.success(), "--threads {n}");
        assert_eq!(
            text(&o.stderr),
            format!("error: invalid value '{n}' for '--threads <N>': expected a whole number from 1 to 1024 (see solver --help)\n")
        );
        assert!(!out.exists());
    }
    let o = solver(&[
        s.as_ref(),
        "-o".as_ref(),
        out.as_ref(),
        "--threads".as_ref(),
        "1024".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Runs the solver on a 400-step fall with `MSDEM_PROGRESS=mode`, redraws not limited by
/// the line interval; returns stderr.
fn progress_stderr(mode: &str) -> String {
    let f = Fixture::new();
    let s = f.scenario(
        "fall.yaml",
        &scenario_text("{ dt: 1.0e-4, end: 0.04, output_every: 100 }", FALL),
    );
    let out = f.path().join("p");
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args([s.as_os_str(), "-o".as_ref(), out.as_os_str()])
        .env("MSDEM_PROGRESS", mode)
        .env("MSDEM_PROGRESS_INTERVAL_S", "0")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stderr)
}

#[test]
fn progress_off_a_terminal_is_plain_lines_and_the_bar_on_request() {
    let lines = progress_stderr("lines");
    let first = lines.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("progress: step ") && first.contains("/400 (") && first.contains("ETA"),
        "{lines}"
    );
    assert!(
        !lines.contains('\x1b') && !lines.contains('\r'),
        "{lines:?}"
    );
    // `bar` draws indicatif's bar with its escape codes even into a pipe (the pipeline
    // runner passes it to its terminal).
    let bar = progress_stderr("bar");
    assert!(
        bar.contains("\x1b[2K") && bar.contains("/400 steps"),
        "{bar:?}"
    );
    assert!(progress_stderr("off").is_empty());
}

/// Issue 16: a run longer than its step cap is refused up front, and `--max-steps`
/// overrides the scenario's `limits.max_steps` both ways.
#[test]
fn max_steps_flag_overrides_the_scenario_cap() {
    let f = Fixture::new();
    let s = f.scenario(
        "capped.yaml",
        &scenario_text(
            "{ dt: 1.0e-3, end: 0.01, output_every: 5 }\nlimits: { max_steps: 9 }",
            FALL,
        ),
    );
    let out = f.path().join("out");
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![s.as_ref(), "-o".as_ref(), out.as_ref()];
        args.push("--quiet".as_ref());
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        solver(&args)
    };
    let o = run(&[]);
    assert!(!o.status.success());
    assert_eq!(
        text(&o.stderr),
        format!(
            "error: {}: time: end / dt = 1.0e1 steps, more than the cap of 9.0e0 (raise \
             `limits: {{ max_steps: N }}` or pass --max-steps N)\n",
            s.display()
        )
    );
    assert!(!out.exists());
    let o = run(&["--max-steps", "1e1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(frames::stats_path(&out).is_file());
    let o = run(&["--max-steps", "5"]);
    assert!(
        text(&o.stderr).contains("more than the cap of 5.0e0"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&["--max-steps", "0"]);
    assert!(!o.status.success());
}
