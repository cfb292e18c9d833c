//! The bad-input corpus of the binaries' file and command-line handling (issue 16): OBJ,
//! STL and PLY import, `treebuild`, `solver`'s command line and tree files, `export` and
//! the command lines of every binary. One case per file in `tests/bad/*.case`:
//!
//! ```text
//! # what the case is about
//! $ treebuild in.obj -o out.tree        the command, run in a fresh folder
//! > treebuild: in.obj: OBJ parse error: …   the exact, whole stderr (one line)
//! --- in.obj                            a file of the folder, its text up to the next ---
//! v 0 0 0
//! --- out.stl hex                       a file given as hex digits (binary formats)
//! 50 4c 59 …
//! @mkdir d.ply                          a folder
//! @run run                              a copy of a complete solver run folder
//! @flip run/frames/frame_000003.msdem 100   a byte of a file inverted
//! @truncate run/stats.msdem 60          a file cut to its first bytes
//! @remove run/stats.msdem               a file removed
//! @writes run2                          a path the failing command may create (a run
//!                                       that fails at a step keeps its frames so far)
//! ```
//!
//! Each case must exit with a non-zero status, print exactly its one line on stderr and
//! leave every file of its folder as it was (no output created or changed). Set
//! `MSDEM_PRINT_ACTUAL=1` to print what the binaries say.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use msdem_e2e::{binary, run_in, texts, workspace_root};

/// One parsed `.case` file.
struct Case {
    name: String,
    command: Vec<String>,
    expected: String,
    /// `(path, bytes)` files and `None` for folders, in order of appearance.
    files: Vec<(String, Option<Vec<u8>>)>,
    run: Vec<String>,
    edits: Vec<Edit>,
    writes: Vec<String>,
}

enum Edit {
    Flip(String, usize),
    Truncate(String, usize),
    Remove(String),
}

fn corpus_dir() -> PathBuf {
    workspace_root().join("tests").join("bad")
}

fn parse_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut case = Case {
        name: name.clone(),
        command: Vec::new(),
        expected: String::new(),
        files: Vec::new(),
        run: Vec::new(),
        edits: Vec::new(),
        writes: Vec::new(),
    };
    // (file name, hex?, lines)
    let mut open: Option<(String, bool, Vec<&str>)> = None;
    let close = |open: &mut Option<(String, bool, Vec<&str>)>, files: &mut Vec<_>| {
        if let Some((file, hex, lines)) = open.take() {
            let bytes = if hex {
                let digits: String = lines.concat().split_whitespace().collect();
                (0..digits.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
                    .collect()
            } else {
                lines
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    .into_bytes()
            };
            files.push((file, Some(bytes)));
        }
    };
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("--- ") {
            close(&mut open, &mut case.files);
            let mut words = header.split_whitespace();
            let file = words.next().unwrap().to_owned();
            open = Some((file, words.next() == Some("hex"), Vec::new()));
            continue;
        }
        if let Some((_, _, lines)) = open.as_mut() {
            lines.push(line);
            continue;
        }
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        if let Some(cmd) = line.strip_prefix("$ ") {
            case.command = cmd.split_whitespace().map(str::to_owned).collect();
        } else if let Some(expected) = line.strip_prefix("> ") {
            case.expected = expected.to_owned();
        } else if line.starts_with("@mkdir ") {
            case.files.push((words[1].clone(), None));
        } else if line.starts_with("@run ") {
            case.run.push(words[1].clone());
        } else if line.starts_with("@flip ") {
            case.edits
                .push(Edit::Flip(words[1].clone(), words[2].parse().unwrap()));
        } else if line.starts_with("@truncate ") {
            case.edits
                .push(Edit::Truncate(words[1].clone(), words[2].parse().unwrap()));
        } else if line.starts_with("@remove ") {
            case.edits.push(Edit::Remove(words[1].clone()));
        } else if line.starts_with("@writes ") {
            case.writes.push(words[1].clone());
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "{name}: cannot read line {line:?}"
            );
        }
    }
    close(&mut open, &mut case.files);
    assert!(!case.command.is_empty(), "{name}: no `$ ` command line");
    assert!(
        !case.expected.is_empty(),
        "{name}: no `> ` expected message"
    );
    case
}

/// Every file under `dir` with its bytes (folders as `None`), by relative path.
fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A short complete run (two ellipsoids, 11 frames, statistics), written once by the
/// `solver` binary.
fn template_run(scratch: &Path) -> PathBuf {
    let scenario = scratch.join("template.yaml");
    std::fs::write(
        &scenario,
        "version: 1
name: template
time: { dt: 1.0e-5, end: 0.001, output_every: 10 }
materials:
  glass: { density: 2500.0, halo: { relative: 0.01 }, spring: 20000.0, friction: 0.0, restitution: 0.8 }
shapes:
  bean: { ellipsoid: { radii: [0.06, 0.02, 0.04] } }
particles:
  - { shape: bean, material: glass, position: [-0.1, 0, 0], velocity: [1.0, 0, 0] }
",
    )
    .unwrap();
    let run = scratch.join("template_run");
    let out = run_in(
        &binary("solver"),
        [
            scenario.to_str().unwrap(),
            "-o",
            run.to_str().unwrap(),
            "--quiet",
        ],
        scratch,
    );
    assert!(out.status.success(), "template run: {:?}", texts(&out));
    run
}

fn apply(dir: &Path, edit: &Edit) {
    match edit {
        Edit::Flip(file, at) => {
            let path = dir.join(file);
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[*at] = !bytes[*at];
            std::fs::write(&path, bytes).unwrap();
        }
        Edit::Truncate(file, len) => {
            let path = dir.join(file);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..*len]).unwrap();
        }
        Edit::Remove(file) => std::fs::remove_file(dir.join(file)).unwrap(),
    }
}

#[test]
fn every_bad_input_fails_with_its_one_line_and_changes_nothing() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 50, "corpus too small: {} cases", paths.len());
    let scratch = tempfile::tempdir().unwrap();
    let template = template_run(scratch.path());
    let print_actual = std::env::var_os("MSDEM_PRINT_ACTUAL").is_some();
    let mut failures = Vec::new();
    let mut binaries = std::collections::BTreeSet::new();
    for path in &paths {
        let case = parse_case(path);
        let dir = scratch.path().join(case.name.trim_end_matches(".case"));
        std::fs::create_dir(&dir).unwrap();
        for run in &case.run {
            copy_dir(&template, &dir.join(run));
        }
        for (file, bytes) in &case.files {
            let target = dir.join(file);
            match bytes {
                Some(bytes) => {
                    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                    std::fs::write(&target, bytes).unwrap();
                }
                None => std::fs::create_dir_all(&target).unwrap(),
            }
        }
        for edit in &case.edits {
            apply(&dir, edit);
        }
        let before = snapshot(&dir);
        binaries.insert(case.command[0].clone());
        let out = run_in(&binary(&case.command[0]), &case.command[1..], &dir);
        let (_, stderr) = texts(&out);
        if print_actual {
            eprintln!("{}: {}", case.name, stderr.trim_end());
        }
        if out.status.success() {
            failures.push(format!("{}: exit status 0", case.name));
        }
        if stderr != format!("{}\n", case.expected) {
            failures.push(format!(
                "{}:\n  expected: {}\n  actual:   {}",
                case.name,
                case.expected,
                stderr.trim_end()
            ));
        }
        let mut after = snapshot(&dir);
        after.retain(|rel, _| {
            !case
                .writes
                .iter()
                .any(|w| rel == w || rel.starts_with(&format!("{w}/")))
        });
        if after != before {
            let changed: Vec<&String> = after
                .keys()
                .chain(before.keys())
                .filter(|k| after.get(*k) != before.get(*k))
                .collect();
            failures.push(format!("{}: changed or created {changed:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every binary of the pipeline has cases here.
    let expected: std::collections::BTreeSet<String> =
        ["export", "meshgen", "pipeline", "solver", "treebuild"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    assert_eq!(binaries, expected);
}

#[test]
fn a_killed_run_exports_with_a_warning_naming_the_missing_statistics() {
    let scratch = tempfile::tempdir().unwrap();
    let template = template_run(scratch.path());
    let run = scratch.path().join("killed");
    copy_dir(&template, &run);
    std::fs::remove_file(run.join("stats.msdem")).unwrap();
    let out = run_in(
        &binary("export"),
        ["killed", "-o", "exported", "--no-animation"],
        scratch.path(),
    );
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        "export: warning: killed/stats.msdem: not found (the run did not finish?): no plots \
         written, VTK, PLY and preview show the 11 frames present\n"
    );
    assert!(
        stdout.starts_with("export: 11 frames -> exported"),
        "{stdout}"
    );
    assert!(!scratch.path().join("exported/plots").exists());
}
