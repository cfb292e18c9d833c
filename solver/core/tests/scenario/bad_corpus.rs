//! The bad-input corpus `bad/*.yaml` beside this file: every file states its exact
//! one-line error in a `# expect: ` comment (`{file}` = the scenario's path, `{dir}` = its
//! folder). Each is copied next to the fixture meshes and trees and run through the
//! `solver` binary, which must print exactly `error: <expected>` on stderr, exit ≠ 0 and
//! write nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::fixture::Fixture;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenario/bad")
}

fn expected_line(path: &Path, text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("# expect: "))
        .unwrap_or_else(|| panic!("{}: no `# expect: ` line", path.display()))
        .to_owned()
}

#[test]
fn every_bad_scenario_fails_with_its_message_and_writes_nothing() {
    let fixture = Fixture::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "corpus too small: {files:?}");
    let print_actual = std::env::var_os("MSDEM_PRINT_ACTUAL").is_some();
    let mut failures = Vec::new();
    for source in &files {
        let text = std::fs::read_to_string(source).unwrap();
        let name = source.file_name().unwrap();
        let scenario = fixture.path().join(name);
        std::fs::write(&scenario, &text).unwrap();
        let out = fixture.path().join(format!(
            "out_{}",
            source.file_stem().unwrap().to_string_lossy()
        ));
        let result = Command::new(env!("CARGO_BIN_EXE_solver"))
            .arg(&scenario)
            .arg("-o")
            .arg(&out)
            .arg("--quiet")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
        let dir = fixture.path().display().to_string();
        let expected = expected_line(source, &text)
            .replace("{file}", &scenario.display().to_string())
            .replace("{dir}", &dir);
        if print_actual {
            eprintln!(
                "{}: {}",
                name.to_string_lossy(),
                stderr
                    .trim_end()
                    .replace(&scenario.display().to_string(), "{file}")
                    .replace(&dir, "{dir}")
            );
        }
        if result.status.success() {
            failures.push(format!("{}: exit status 0", source.display()));
        }
        if stderr != format!("error: {expected}\n") {
            failures.push(format!(
                "{}:\n  expected: error: {expected}\n  actual:   {}",
                source.display(),
                stderr.trim_end()
            ));
        }
        if out.exists() {
            failures.push(format!("{}: wrote {}", source.display(), out.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
