//! Runs the `treebuild` binary on small meshes written by the tests.

use msdem_mesh::generate::{noise_sphere, plane, NoiseSphere};
use msdem_mesh::write_mesh;
use msdem_tree::load_tree;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("treebuild-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn treebuild(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treebuild"))
        .args(args)
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sphere_file(dir: &Path) -> PathBuf {
    let m = noise_sphere(&NoiseSphere {
        subdivisions: 2,
        eta: 1.2,
        ..Default::default()
    })
    .unwrap();
    let p = dir.join("grain.ply");
    write_mesh(&p, &m).unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn builds_then_reports_up_to_date_without_rewriting() {
    let dir = scratch_dir("uptodate");
    let mesh = sphere_file(&dir);
    let out = dir.join("grain.tree");
    let o = treebuild(&[s(&mesh), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("320 triangles") && text.contains("level"),
        "{text}"
    );
    let hash = msdem_mesh::file_hash(&mesh).unwrap();
    let tree = load_tree(&out, Some(hash)).unwrap();
    assert_eq!(tree.real_count(), 320);
    let before = std::fs::metadata(&out).unwrap().modified().unwrap();
    let bytes = std::fs::read(&out).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = treebuild(&[s(&mesh), "-o", s(&out)]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("up to date"));
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), before);
    // Other parameters → rebuilt, different bytes; same parameters again → same bytes.
    let o = treebuild(&[s(&mesh), "-o", s(&out), "--seed", "3", "--quiet"]);
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stdout).contains("up to date"));
    assert_ne!(std::fs::read(&out).unwrap(), bytes);
    let out2 = dir.join("again.tree");
    assert!(treebuild(&[s(&mesh), "-o", s(&out2), "--quiet"])
        .status
        .success());
    assert_eq!(std::fs::read(&out2).unwrap(), bytes);
}

#[test]
fn refine_iterations_flag_is_stored_and_changes_the_tree() {
    let dir = scratch_dir("refine");
    let mesh = sphere_file(&dir);
    let (plain, refined) = (dir.join("plain.tree"), dir.join("refined.tree"));
    let o = treebuild(&[
        s(&mesh),
        "-o",
        s(&plain),
        "--refine-iterations",
        "0",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = treebuild(&[s(&mesh), "-o", s(&refined), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (tp, pp) = msdem_tree::read_tree(&plain).unwrap();
    let (tr, pr) = msdem_tree::read_tree(&refined).unwrap();
    assert_eq!(pp.refine_iterations, 0);
    assert_eq!(pr, msdem_tree::BuildParams::default());
    assert_ne!(tp.params_hash, tr.params_hash);
    assert_ne!(tp.soup, tr.soup);
    // Same split either way: only the surrogate triangles and their bounds differ.
    assert_eq!(tp.source, tr.source);
}

#[test]
fn open_mesh_needs_obstacle_flag() {
    let dir = scratch_dir("open");
    let p = dir.join("floor.obj");
    write_mesh(&p, &plane([2.0, 2.0], 4, [0.0; 3]).unwrap()).unwrap();
    let out = dir.join("floor.tree");
    let o = treebuild(&[s(&p), "-o", s(&out)]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("floor.obj") && e.lines().count() == 1, "{e}");
    assert!(!out.exists());
    let o = treebuild(&[s(&p), "-o", s(&out), "--obstacle", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(load_tree(&out, None).unwrap().real_count(), 32);
}

#[test]
fn bad_input_gives_one_line_and_no_output() {
    let dir = scratch_dir("bad");
    let mesh = sphere_file(&dir);
    let out = dir.join("x.tree");
    let corrupt = dir.join("corrupt.ply");
    std::fs::write(
        &corrupt,
        b"ply\nformat binary_little_endian 1.0\nelement vertex 99\nend_header\n\x01\x02",
    )
    .unwrap();
    let nan = dir.join("nan.obj");
    std::fs::write(
        &nan,
        "v 0 0 0\nv 1 0 0\nv 0 nan 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
    )
    .unwrap();
    let empty = dir.join("empty.obj");
    std::fs::write(&empty, "").unwrap();
    let missing = dir.join("missing.ply");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![s(&missing), "-o", s(&out)], "missing.ply"),
        (vec![s(&corrupt), "-o", s(&out)], "corrupt.ply"),
        (vec![s(&nan), "-o", s(&out)], "nan.obj"),
        (vec![s(&empty), "-o", s(&out), "--obstacle"], "empty.obj"),
        (
            vec![s(&mesh), "-o", s(&out), "--branching", "1"],
            "branching",
        ),
        (
            vec![s(&mesh), "-o", s(&out), "--leaf-size", "0"],
            "leaf-size",
        ),
        (
            vec![s(&mesh), "-o", s(&out), "--fit-iterations", "0"],
            "fit-iterations",
        ),
        (vec![s(&mesh), "-o", s(&out), "--frobnicate"], "frobnicate"),
        (vec![s(&mesh)], "--out"),
    ];
    for (args, needle) in cases {
        let o = treebuild(&args);
        let e = stderr(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(e.contains(needle), "{args:?}: {e}");
        assert!(!out.exists(), "{args:?} wrote output");
    }
    // Unwritable output folder: error naming it, nothing written.
    let o = treebuild(&[
        s(&mesh),
        "-o",
        s(&dir.join("no/such/dir/t.tree")),
        "--quiet",
    ]);
    assert!(!o.status.success() && stderr(&o).contains("t.tree"));
}

/// Issue 16: `treebuild a.ply -o a.ply` overwrote the mesh and exited 0; the output path
/// is now compared with the input (also as `./a.ply` and through links) and refused.
#[test]
fn an_output_path_equal_to_the_mesh_is_refused() {
    let dir = scratch_dir("same");
    let mesh = sphere_file(&dir);
    let before = std::fs::read(&mesh).unwrap();
    let link = dir.join("link.ply");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&mesh, &link).unwrap();
    let dotted = dir.join(".").join("grain.ply");
    for out in [mesh.clone(), dotted, link] {
        if !out.exists() {
            continue;
        }
        let o = treebuild(&[s(&mesh), "-o", s(&out)]);
        assert!(!o.status.success());
        assert_eq!(
            stderr(&o),
            format!(
                "treebuild: {}: is the input file {}; choose another output path\n",
                out.display(),
                mesh.display()
            )
        );
        assert_eq!(std::fs::read(&mesh).unwrap(), before);
    }
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert!(
        left == ["grain.ply", "link.ply"] || left == ["grain.ply"],
        "{left:?}"
    );
}
