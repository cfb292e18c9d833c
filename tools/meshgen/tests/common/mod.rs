//! Helpers to run the built `meshgen` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (commands run there, so `meshes/…` paths work).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `meshgen` with the given arguments in the repository root.
pub fn meshgen<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshgen"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

/// A fresh, empty scratch folder per test.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("meshgen-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Splits a command line on whitespace, replacing `{d}` by the scratch folder.
pub fn words(line: &str, d: &Path) -> Vec<String> {
    line.split_whitespace()
        .map(|w| w.replace("{d}", d.to_str().unwrap()))
        .collect()
}

/// Runs and asserts success; returns stdout.
pub fn ok<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let out = meshgen(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Runs and asserts failure with exactly one stderr line, starting with `meshgen: ` and
/// containing every needle; returns that line.
pub fn fails<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], needles: &[&str]) -> String {
    let out = meshgen(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr.lines().count(),
        1,
        "{args:?}: not one line: {stderr:?}"
    );
    assert!(stderr.starts_with("meshgen: "), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{args:?}: {stderr:?} lacks {n:?}");
    }
    stderr
}
