//! Helpers for the end-to-end tests: locating the built binaries, the repository's
//! folders, and running a binary with its output captured.
//!
//! The tests drive the release binaries (`target/release/…`); they do not build them. The
//! Makefile (`make test`) builds them first; by hand: `cargo build --workspace --release
//! --bins`. A missing binary fails the test with that instruction, never skips it.
#![warn(missing_docs)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root (the folder holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir.parent().unwrap_or(crate_dir).to_path_buf()
}

/// The folder of the binaries under test: `$MSDEM_BIN_DIR` when set (e.g. installed
/// binaries), else `$CARGO_TARGET_DIR/release`, else `<workspace>/target/release`.
pub fn release_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MSDEM_BIN_DIR") {
        return PathBuf::from(dir);
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    };
    target.join("release")
}

/// The release binary `name`, or a panic saying how to build it (test helper).
pub fn binary(name: &str) -> PathBuf {
    let path = release_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is not built: run `cargo build --workspace --release --bins` (or `make test`) first",
        path.display()
    );
    path
}

/// Checks that every pipeline binary is built and returns the runner's path.
pub fn pipeline_binary() -> PathBuf {
    for stage in ["meshgen", "treebuild", "solver", "export"] {
        binary(stage);
    }
    binary("pipeline")
}

/// The repository's `pipelines/` folder.
pub fn pipelines_dir() -> PathBuf {
    workspace_root().join("pipelines")
}

/// The test pipelines, `tests/pipelines/`.
pub fn test_pipelines_dir() -> PathBuf {
    workspace_root().join("tests").join("pipelines")
}

/// The `*.yaml` files of `dir`, sorted.
pub fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable folder entry").path())
        .filter(|p| p.extension() == Some(OsStr::new("yaml")))
        .collect();
    files.sort();
    files
}

/// Runs `program` with `args` in `cwd` and returns its captured output (test helper:
/// panics when the program cannot be started).
pub fn run_in<I, S>(program: &Path, args: I, cwd: &Path) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
}

/// Stdout and stderr of `output` as text, for assertions and failure messages.
pub fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The Python with VTK the tests read VTK files with: `$MSDEM_PYTHON`, else `python3`;
/// panics (never skips) when `import vtk` fails there, saying how to get it.
pub fn python_with_vtk() -> String {
    let py = std::env::var("MSDEM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let ok = Command::new(&py)
        .args(["-c", "import vtk"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{py} -c 'import vtk'` failed: run `make pyenv` and set MSDEM_PYTHON=.venv/bin/python \
         (make test does both)"
    );
    py
}

/// The process ids of `pid`'s children (Linux: `/proc/PID/task/*/children`; empty
/// elsewhere or when `pid` is gone).
pub fn child_pids(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found
}

/// Whether process `pid` is alive (Linux `/proc`; a zombie counts as gone).
pub fn process_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
            state != Some(Some('Z'))
        })
        .unwrap_or(false)
}

/// Frames, manifest and statistics of a run folder (not the wall-clock timings), by name,
/// for byte-for-byte comparison of two runs.
pub fn run_outputs(run: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run.join("frames"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.push(run.join("stats.msdem"));
    files.push(run.join("run.msdem"));
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(run).unwrap().display().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Edits of `pipelines/particle_pair_implicit.yaml` into four particles (the distributed
/// tests' implicit pairs): a second head-on pair 0.3 m above the first, both 3 cm apart
/// (the bisection's first cut separates the partners, so the contacts cross ranks), with
/// `integrator` and `picard` lines; end at 0.03 s, a frame every 25 steps, no exports.
pub fn implicit_four_pairs_edits<'a>(
    integrator: &'a str,
    picard: &'a str,
) -> [(&'a str, &'a str); 6] {
    [
        ("end: 0.2, output_every: 25", "end: 0.03, output_every: 25"),
        ("integrator: implicit_multiscale", integrator),
        ("picard: { tolerance: 0.01, max_iterations: 50 }", picard),
        (
            "position: [-0.22, 0, 0], velocity: [1, 0, 0] }",
            "position: [-0.115, 0, 0], velocity: [1, 0, 0] }\n    - { shape: a, \
             material: rock, position: [-0.115, 0, 0.3], velocity: [1, 0, 0], \
             angular_velocity: [0, 0, 3] }",
        ),
        (
            "position: [0.22, 0.02, 0], velocity: [-1, 0, 0] }",
            "position: [0.115, 0.02, 0], velocity: [-1, 0, 0] }\n    - { shape: b, \
             material: rock, position: [0.115, -0.03, 0.3], velocity: [-1, 0, 0] }",
        ),
        (
            "export: {",
            "export: { vtk: false, ply: false, plots: false, animation: false } #",
        ),
    ]
}
