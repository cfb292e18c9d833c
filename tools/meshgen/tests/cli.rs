//! Runs the built `meshgen` binary: every subcommand, determinism, shipped samples, and bad
//! input (one-line error naming file/parameter, exit ≠ 0, no output file).

mod common;

use common::*;
use msdem_mesh::check::{check_mesh, Role};
use msdem_mesh::read_mesh;

#[test]
fn every_generator_writes_a_valid_mesh_of_the_documented_size() {
    let d = scratch("generators");
    let cases: &[(&str, usize, Role)] = &[
        ("sphere --radius 0.01 --subdivisions 3 --eta 1.3 --seed 5 -o {d}/s.ply", 1280, Role::Particle),
        ("sphere --radius 1 --subdivisions 1 --stretch 2 -o {d}/s.obj", 80, Role::Particle),
        ("ellipsoid --radii 0.3 0.2 0.1 --subdivisions 2 -o {d}/e.stl", 320, Role::Particle),
        ("box --size 1 2 3 --subdivisions 2 -o {d}/b.ply", 48, Role::Particle),
        ("plane --size 4 4 --center 0 0 -1 -o {d}/p.ply", 2, Role::Obstacle),
        ("slope --size 4 4 --angle 20 -o {d}/sl.ply", 2, Role::Obstacle),
        ("hopper --top-width 1 --outlet-width 0.3 --height 0.5 -o {d}/h.ply", 8, Role::Obstacle),
        ("hopper --top-width 1 --outlet-width 0.3 --height 0.5 --outlet round --segments 12 --center 0 0 2 -o {d}/hr.ply", 24, Role::Obstacle),
        ("staircase --rise 0.1 --run 0.2 --width 1 --origin -1 0 2 -o {d}/st.ply", 78, Role::Obstacle),
    ];
    for &(line, triangles, role) in cases {
        let args = words(line, &d);
        let stdout = ok(&args);
        let out = args.last().unwrap();
        assert!(stdout.starts_with(&format!("wrote {out}: ")), "{stdout}");
        let (mesh, _) = read_mesh(out).unwrap();
        assert_eq!(mesh.triangles.len(), triangles, "{args:?}");
        let report = check_mesh(&mesh, role);
        assert!(report.is_valid(), "{args:?}: {report}");
    }
    // The staircase honours --origin: first tread at z = 2, last at 2 − 19·0.1.
    let (st, _) = read_mesh(d.join("st.ply")).unwrap();
    let zmax = st.vertices.iter().map(|v| v[2]).fold(f64::MIN, f64::max);
    let zmin = st.vertices.iter().map(|v| v[2]).fold(f64::MAX, f64::min);
    assert!(
        (zmax - 2.0).abs() < 1e-12 && (zmin - 0.1).abs() < 1e-12,
        "{zmin} {zmax}"
    );
}

#[test]
fn same_parameters_give_byte_identical_files_and_seeds_differ() {
    let d = scratch("determinism");
    let run = |seed: &str, name: &str| {
        let out = d.join(name);
        ok(&[
            "sphere",
            "--radius",
            "0.02",
            "--subdivisions",
            "2",
            "--eta",
            "1.5",
            "--seed",
            seed,
            "-o",
            out.to_str().unwrap(),
        ]);
        std::fs::read(out).unwrap()
    };
    let a = run("3", "a.ply");
    assert_eq!(a, run("3", "b.ply"));
    assert_ne!(a, run("4", "c.ply"));
}

#[test]
fn convert_round_trips_and_check_reports() {
    let d = scratch("convert");
    let src = d.join("s.ply");
    ok(&[
        "sphere",
        "--radius",
        "0.5",
        "--subdivisions",
        "2",
        "--eta",
        "1.2",
        "-o",
        src.to_str().unwrap(),
    ]);
    let obj = d.join("s.obj");
    let back = d.join("back.ply");
    ok(&[
        "convert",
        src.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    ok(&[
        "convert",
        obj.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    let (a, _) = read_mesh(&src).unwrap();
    let (b, _) = read_mesh(&back).unwrap();
    assert_eq!(a.triangles.len(), b.triangles.len());
    let soup = |m: &msdem_mesh::TriMesh| {
        let mut s: Vec<_> = m
            .triangles
            .iter()
            .map(|t| t.map(|i| m.vertices[i as usize].map(f64::to_bits)))
            .collect();
        s.sort();
        s
    };
    assert_eq!(soup(&a), soup(&b));
    let report = ok(&["check", back.to_str().unwrap(), "--particle"]);
    assert!(
        report.contains("open (boundary) edges: 0") && report.trim_end().ends_with("OK"),
        "{report}"
    );
}

#[test]
fn shipped_sample_meshes_check_as_documented() {
    ok(&["check", "meshes/tetrahedron.obj", "--particle"]);
    ok(&["check", "meshes/cube.stl", "--particle"]);
    ok(&["check", "meshes/plane.ply"]);
    ok(&["check", "meshes/open_tetrahedron.ply"]);
    fails(
        &["check", "meshes/plane.ply", "--particle"],
        &["meshes/plane.ply: open mesh: 6 boundary edges, first between vertex 0 (line 11) and vertex 1 (line 12) of face 0 (line 17)"],
    );
    fails(
        &["check", "meshes/open_tetrahedron.ply", "--particle"],
        &["meshes/open_tetrahedron.ply: open mesh: 3 boundary edges"],
    );
    fails(
        &["check", "meshes/inside_out.obj", "--particle"],
        &["meshes/inside_out.obj", "inside-out"],
    );
    fails(
        &["check", "meshes/nan_vertex.ply"],
        &["meshes/nan_vertex.ply", "non-finite", "first vertex 2"],
    );
    fails(
        &["check", "meshes/truncated.ply"],
        &["meshes/truncated.ply", "PLY parse error"],
    );
    let (cube, _) = read_mesh(repo().join("meshes/cube.stl")).unwrap();
    assert_eq!((cube.vertices.len(), cube.triangles.len()), (8, 12));
}

/// `quantity [unit]: value` of `meshgen info` output, as a number.
fn value(info: &str, key: &str) -> f64 {
    let line = info
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key:?} in\n{info}"));
    line[key.len()..].trim().parse().unwrap()
}

#[test]
fn info_prints_mass_properties_after_the_transform() {
    let d = scratch("info");
    let b = d.join("b.ply");
    ok(&["box", "--size", "1", "2", "3", "-o", b.to_str().unwrap()]);
    let info = ok(&["info", b.to_str().unwrap(), "--density-kg-m3", "1000"]);
    assert_eq!(value(&info, "volume [m³]:"), 6.0);
    assert_eq!(value(&info, "surface area [m²]:"), 22.0);
    assert_eq!(value(&info, "mass [kg]:"), 6000.0);
    assert!(
        info.contains("centre of mass [m]: [0.0, 0.0, 0.0]\n"),
        "{info}"
    );
    // I = m (b² + c²) / 12 … per unit density and for 1000 kg/m³.
    assert!(
        info.contains("\n  [6.5, 0.0, 0.0]\n  [0.0, 5.0, 0.0]\n  [0.0, 0.0, 2.5]\n"),
        "{info}"
    );
    assert!(info.contains("\n  [6500.0, 0.0, 0.0]\n"), "{info}");
    assert!(info.contains("principal moments per unit density [m⁵]: [2.5, 5.0, 6.5]\n"));
    assert!(info.contains("closed: yes") && info.contains("orientation: consistent, outward"));

    // The same box in millimetres, turned a quarter about z and moved: volume 6e-9 m³,
    // x and y inertia swapped, centre of mass on the translation.
    let info = ok(&[
        "info",
        b.to_str().unwrap(),
        "--units",
        "mm",
        "--rotate-deg",
        "0",
        "0",
        "90",
        "--translate",
        "0",
        "0",
        "-1",
    ]);
    assert!(info.contains("transformed: --units mm --rotate-deg 0 0 90 --translate 0 0 -1\n"));
    let volume = value(&info, "volume [m³]:");
    assert!((volume - 6e-9).abs() < 1e-20, "{volume}");
    assert!(
        info.contains("centre of mass [m]: [0.0, 0.0, -1.0]\n"),
        "{info}"
    );
    let rows: Vec<Vec<f64>> = info
        .lines()
        .filter_map(|l| l.strip_prefix("  ["))
        .map(|l| {
            l.trim_end_matches(']')
                .split(", ")
                .map(|v| v.parse().unwrap())
                .collect()
        })
        .collect();
    let expected = [[5e-15, 0.0, 0.0], [0.0, 6.5e-15, 0.0], [0.0, 0.0, 2.5e-15]];
    for (row, want) in rows.iter().zip(expected) {
        for (v, w) in row.iter().zip(want) {
            assert!((v - w).abs() < 1e-28, "{info}");
        }
    }

    // `convert` with the same flags writes exactly what `info` described.
    let out = d.join("mm.obj");
    let said = ok(&[
        "convert",
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--units",
        "mm",
        "--rotate-deg",
        "0",
        "0",
        "90",
        "--translate",
        "0",
        "0",
        "-1",
        "--particle",
    ]);
    assert!(
        said.ends_with(" (--units mm --rotate-deg 0 0 90 --translate 0 0 -1)\n"),
        "{said}"
    );
    let again = ok(&["info", out.to_str().unwrap()]);
    assert_eq!(
        info.lines().skip(2).collect::<Vec<_>>(),
        again.lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn help_documents_every_flag() {
    for (sub, flags) in [
        (
            "sphere",
            &[
                "--radius",
                "--subdivisions",
                "--eta",
                "--seed",
                "--octaves",
                "--stretch",
                "--output",
            ][..],
        ),
        (
            "hopper",
            &[
                "--top-width",
                "--outlet-width",
                "--height",
                "--outlet",
                "--segments",
                "--center",
            ][..],
        ),
        (
            "staircase",
            &["--steps", "--rise", "--run", "--width", "--origin"][..],
        ),
        ("check", &["--particle"][..]),
        (
            "convert",
            &[
                "--units",
                "--scale",
                "--rotate-deg",
                "--recentre",
                "--translate",
                "--particle",
                "--output",
            ][..],
        ),
        (
            "info",
            &[
                "--units",
                "--scale",
                "--rotate-deg",
                "--recentre",
                "--translate",
                "--density-kg-m3",
            ][..],
        ),
    ] {
        let help = ok(&[sub, "--help"]);
        for f in flags {
            assert!(help.contains(f), "{sub} --help lacks {f}");
        }
    }
}
