//! Architecture rules of the workspace (issue 11), checked on the sources:
//!
//! * no import cycle inside the solver's core (and the small crates split off it) spans
//!   more than three files — an edge
//!   `A → B` is any path in `A` (outside comments and `#[cfg(test)] mod tests`) that
//!   names an item of module `B` through `crate::…`, `super::…` or a child module declared
//!   in `A` (`mod x;` … `x::Item`), resolved to the file of the longest matching module;
//! * the exporter reads run output through `msdem-frames`, not the solver;
//! * the scenario schema is one crate used by both the solver and the pipeline runner;
//! * the mesh-generator parameters are `msdem-mesh`'s, used by `meshgen` and the pipeline.
//!
//! The checker itself is tested on a synthetic crate with a known cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (e.g. `["detect", "active"]`) → file (relative to `src/`).
fn module_files(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src").to_path_buf();
            if rel.starts_with("bin") {
                continue;
            }
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            out.insert(module, rel);
        }
    }
    out
}

fn strip_comments_and_tests(text: &str) -> String {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let cut = code.find("#[cfg(test)]\nmod tests").unwrap_or(code.len());
    code[..cut].to_owned()
}

/// Every `::`-separated path starting at an identifier boundary in `code`, as segments.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_id(bytes[i]) || (i > 0 && (is_id(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && is_id(bytes[j]) {
                j += 1;
            }
            segs.push(code[start..j].to_owned());
            if code[j..].starts_with("::") && j + 2 < bytes.len() && is_id(bytes[j + 2]) {
                j += 2;
            } else {
                break;
            }
        }
        if segs.len() > 1 {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out
}

/// Brace groups `use crate::{a::b, c}` expanded into single paths.
fn use_groups(code: &str, out: &mut Vec<Vec<String>>) {
    for (head, rest) in [("crate", "use crate::{"), ("super", "use super::{")] {
        let mut from = 0;
        while let Some(k) = code[from..].find(rest) {
            let open = from + k + rest.len();
            let close = code[open..].find("};").map_or(code.len(), |c| open + c);
            for item in code[open..close].split(',') {
                let item = item.trim().split("::{").next().unwrap_or("").trim();
                if item.is_empty() || item == "self" {
                    continue;
                }
                let mut segs = vec![head.to_owned()];
                segs.extend(item.split("::").map(|s| s.trim().to_owned()));
                out.push(segs);
            }
            from = close;
        }
    }
}

fn resolve<'m>(files: &'m BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<&'m PathBuf> {
    (0..=path.len()).rev().find_map(|k| files.get(&path[..k]))
}

/// File-level import graph of the crate whose sources are in `src`.
fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files = module_files(src);
    let mut graph = BTreeMap::new();
    for (module, rel) in &files {
        let text = std::fs::read_to_string(src.join(rel)).expect("read source");
        let code = strip_comments_and_tests(&text);
        let kids: Vec<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub ").unwrap_or(l);
                let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
                let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
                Some(name.trim().to_owned())
            })
            .collect();
        let mut found = paths(&code);
        use_groups(&code, &mut found);
        let mut edges = BTreeSet::new();
        for p in found {
            let target: Vec<String> = match p[0].as_str() {
                "crate" => p[1..].to_vec(),
                "super" => {
                    let mut base = module.clone();
                    let mut rest = &p[..];
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().cloned());
                    base
                }
                name if kids.iter().any(|k| k == name) => {
                    let mut base = module.clone();
                    base.extend(p.iter().cloned());
                    base
                }
                _ => continue,
            };
            if let Some(t) = resolve(&files, &target) {
                if t != rel {
                    edges.insert(t.clone());
                }
            }
        }
        graph.insert(rel.clone(), edges);
    }
    graph
}

/// Strongly connected components (Tarjan), largest first.
fn cycles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct T<'g> {
        g: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on: BTreeSet<&'g PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'g>(t: &mut T<'g>, v: &'g PathBuf) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            t.out.push(comp);
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    let mut out: Vec<_> = t.out.into_iter().filter(|c| c.len() > 1).collect();
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn no_import_cycle_in_the_solver_core_spans_more_than_three_files() {
    let crates = ["solver/core", "solver/frames", "solver/scenario"];
    let mut checked = 0;
    for c in crates {
        let src = repo().join(c).join("src");
        if !src.is_dir() {
            continue;
        }
        checked += 1;
        let graph = import_graph(&src);
        assert!(graph.len() > 1, "{c}: no sources found");
        if let Some(big) = cycles(&graph).first() {
            assert!(
                big.len() <= 3,
                "{c}: import cycle over {} files: {big:?}",
                big.len()
            );
        }
    }
    assert!(checked >= 2, "crates not found under {}", repo().display());
}

#[test]
fn the_cycle_checker_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).expect("mkdir");
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).expect("write");
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n");
    write(
        "a.rs",
        "mod inner;\nuse crate::b::B;\npub struct A;\npub fn f() { inner::g() }\n",
    );
    write("a/inner.rs", "use super::A;\npub fn g() {}\n");
    write("b.rs", "use crate::{c::C, d};\npub struct B;\n");
    write(
        "c.rs",
        "pub struct C(crate::a::A);\n// use crate::d::D; (a comment is no edge)\n",
    );
    write(
        "d.rs",
        "pub struct D;\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
    );
    let graph = import_graph(src);
    let found = cycles(&graph);
    let names = |c: &Vec<PathBuf>| {
        let mut v: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(names(&found[0]), ["a.rs", "a/inner.rs", "b.rs", "c.rs"]);
}

fn manifest(c: &str) -> String {
    std::fs::read_to_string(repo().join(c).join("Cargo.toml")).expect("read Cargo.toml")
}

fn depends_on(manifest: &str, dep: &str) -> bool {
    manifest
        .lines()
        .any(|l| l.trim_start().starts_with(&format!("{dep}.workspace")))
        || manifest
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{dep} =")))
}

#[test]
fn export_reads_run_output_through_the_frames_crate_not_the_solver() {
    let m = manifest("tools/export");
    assert!(
        depends_on(&m, "msdem-frames"),
        "export must use msdem-frames"
    );
    assert!(
        !depends_on(&m, "msdem-solver"),
        "export must not depend on the solver"
    );
}

#[test]
fn one_scenario_schema_is_shared_by_the_solver_and_the_pipeline() {
    assert!(depends_on(&manifest("solver/core"), "msdem-scenario"));
    assert!(depends_on(&manifest("tools/pipeline"), "msdem-scenario"));
    for gone in [
        "tools/pipeline/src/scenario.rs",
        "tools/pipeline/src/broadphase.rs",
        "solver/core/src/scenario.rs",
    ] {
        assert!(
            !repo().join(gone).exists(),
            "{gone}: a second copy of the schema"
        );
    }
}

#[test]
fn mesh_generator_parameters_are_written_once() {
    assert!(depends_on(&manifest("tools/pipeline"), "msdem-mesh"));
    for (file, copy) in [
        ("tools/pipeline/src/spec.rs", "enum GeneratedMesh"),
        ("tools/pipeline/src/spec.rs", "enum Outlet"),
        ("tools/pipeline/src/plan.rs", "fn generator_args"),
    ] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            !text.contains(copy),
            "{file}: `{copy}`, a second copy of the generator parameters"
        );
    }
}
