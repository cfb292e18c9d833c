//! File I/O: round trips, a second (hand-written) PLY reader, foreign PLY variants, errors.

mod common;

use common::*;
use msdem_mesh::generate::{cuboid, noise_sphere, NoiseSphere};
use msdem_mesh::hash::hash_bytes;
use msdem_mesh::io::{decode_mesh, Format};
use msdem_mesh::{read_mesh, write_mesh, MeshError, TriMesh};
use std::path::Path;

fn bumpy() -> TriMesh {
    noise_sphere(&NoiseSphere {
        radius: 0.013,
        subdivisions: 2,
        eta: 1.4,
        seed: 7,
        octaves: 4,
        stretch: 1.3,
    })
    .unwrap()
}

/// Independent minimal binary-little-endian PLY reader for exactly the layout the writer
/// promises: `double x y z`, `list uchar uint vertex_indices`.
fn hand_parse(bytes: &[u8]) -> TriMesh {
    let end = b"end_header\n";
    let body_at = bytes.windows(end.len()).position(|w| w == end).unwrap() + end.len();
    let header = std::str::from_utf8(&bytes[..body_at]).unwrap();
    let lines: Vec<&str> = header.lines().collect();
    assert_eq!(lines[0], "ply");
    assert_eq!(lines[1], "format binary_little_endian 1.0");
    let count = |name: &str| -> usize {
        let l = lines
            .iter()
            .find(|l| l.starts_with(&format!("element {name} ")))
            .unwrap();
        l.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let props: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("property"))
        .collect();
    assert_eq!(
        props,
        [
            "property double x",
            "property double y",
            "property double z",
            "property list uchar uint vertex_indices"
        ]
    );
    let (nv, nf) = (count("vertex"), count("face"));
    let mut at = body_at;
    let mut take = |n: usize| {
        let s = &bytes[at..at + n];
        at += n;
        s
    };
    let mut mesh = TriMesh::default();
    for _ in 0..nv {
        let mut p = [0.0; 3];
        for c in &mut p {
            *c = f64::from_le_bytes(take(8).try_into().unwrap());
        }
        mesh.vertices.push(p);
    }
    for _ in 0..nf {
        assert_eq!(take(1)[0], 3);
        let mut t = [0u32; 3];
        for i in &mut t {
            *i = u32::from_le_bytes(take(4).try_into().unwrap());
        }
        mesh.triangles.push(t);
    }
    assert_eq!(at, bytes.len(), "trailing bytes");
    mesh
}

#[test]
fn ply_round_trip_is_exact_and_readable_by_an_independent_parser() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = bumpy();
    let p = dir.path().join("s.ply");
    write_mesh(&p, &mesh).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(hand_parse(&bytes), mesh);
    let (back, hash) = read_mesh(&p).unwrap();
    assert_eq!(back, mesh);
    assert_eq!(hash, hash_bytes(&bytes));
    // write → read → write gives identical bytes
    let p2 = dir.path().join("s2.ply");
    write_mesh(&p2, &back).unwrap();
    assert_eq!(std::fs::read(&p2).unwrap(), bytes);
}

#[test]
fn same_parameters_give_byte_identical_files_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["ply", "obj", "stl"] {
        let a = dir.path().join(format!("a.{ext}"));
        let b = dir.path().join(format!("b.{ext}"));
        write_mesh(&a, &bumpy()).unwrap();
        write_mesh(&b, &bumpy()).unwrap();
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{ext}"
        );
    }
}

/// Triangles as sorted lists of corner coordinates (index-free comparison).
fn soup(m: &TriMesh) -> Vec<[[u64; 3]; 3]> {
    let mut s: Vec<_> = m
        .triangles
        .iter()
        .map(|t| t.map(|i| m.vertices[i as usize].map(f64::to_bits)))
        .collect();
    s.sort();
    s
}

#[test]
fn obj_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = bumpy();
    let p = dir.path().join("s.obj");
    write_mesh(&p, &mesh).unwrap();
    let (back, _) = read_mesh(&p).unwrap();
    assert_eq!(back.vertices.len(), mesh.vertices.len());
    assert_eq!(soup(&back), soup(&mesh));
}

#[test]
fn stl_round_trip_welds_to_the_original_topology_in_f32() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = bumpy();
    let p = dir.path().join("s.STL");
    write_mesh(&p, &mesh).unwrap();
    let (back, _) = read_mesh(&p).unwrap();
    assert_eq!(back.vertices.len(), mesh.vertices.len());
    assert_eq!(back.triangles.len(), mesh.triangles.len());
    let mut rounded = mesh.clone();
    for v in &mut rounded.vertices {
        *v = v.map(|c| f64::from(c as f32));
    }
    assert_eq!(soup(&back), soup(&rounded));
    let report = msdem_mesh::check::check_mesh(&back, msdem_mesh::check::Role::Particle);
    assert!(report.is_valid(), "{report}");
}

#[test]
fn ascii_ply_with_float_vertex_index_and_quads_is_fan_triangulated() {
    let text = "ply\nformat ascii 1.0\ncomment unit square\nelement vertex 5\n\
property float x\nproperty float y\nproperty float z\nproperty uchar red\n\
element face 2\nproperty list uchar int vertex_index\nend_header\n\
0 0 0 1\n1 0 0 2\n1 1 0 3\n0 1 0 4\n0.5 0.5 1 5\n4 0 1 2 3\n3 0 1 4\n";
    let m = decode_mesh(text.as_bytes(), Format::Ply, Path::new("q.ply")).unwrap();
    assert_eq!(m.vertices[4], [0.5, 0.5, 1.0]);
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 1, 4]]);
}

#[test]
fn binary_big_endian_float_ply_with_extra_elements_reads() {
    let mut b = b"ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty float x\n\
property float y\nproperty float z\nproperty float nx\nelement face 1\n\
property list uchar uint vertex_indices\nproperty uchar flags\nelement edge 1\n\
property int vertex1\nproperty int vertex2\nend_header\n"
        .to_vec();
    for v in [[0.5f32, 0.0, 0.0], [0.0, 0.25, 0.0], [0.0, 0.0, -2.0]] {
        for c in v.iter().chain([&9.0f32]) {
            b.extend(c.to_be_bytes());
        }
    }
    b.push(3);
    for i in [2u32, 0, 1] {
        b.extend(i.to_be_bytes());
    }
    b.push(7);
    b.extend(0i32.to_be_bytes());
    b.extend(1i32.to_be_bytes());
    let m = decode_mesh(&b, Format::Ply, Path::new("be.ply")).unwrap();
    assert_eq!(
        m.vertices,
        vec![[0.5, 0.0, 0.0], [0.0, 0.25, 0.0], [0.0, 0.0, -2.0]]
    );
    assert_eq!(m.triangles, vec![[2, 0, 1]]);
}

#[test]
fn obj_quads_in_two_groups_weld_into_a_closed_cube() {
    let mut text = String::new();
    for i in 0..8 {
        text += &format!("v {} {} {}\n", i & 1, (i >> 1) & 1, (i >> 2) & 1);
    }
    // Outward quads (1-based indices), split over two groups.
    text += "g a\nf 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\ng b\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
    let m = decode_mesh(text.as_bytes(), Format::Obj, Path::new("c.obj")).unwrap();
    assert_eq!(m.vertices.len(), 8);
    assert_eq!(m.triangles.len(), 12);
    let report = msdem_mesh::check::check_mesh(&m, msdem_mesh::check::Role::Particle);
    assert!(report.is_valid(), "{report}");
    assert!((report.signed_volume.unwrap() - 1.0).abs() < 1e-12);
}

#[test]
fn broken_files_give_errors_naming_file_and_element() {
    let dir = tempfile::tempdir().unwrap();
    let good = cuboid([1.0, 1.0, 1.0], 1).unwrap();
    let p = dir.path().join("cut.ply");
    write_mesh(&p, &good).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 7]).unwrap();
    let e = read_mesh(&p).unwrap_err();
    assert!(matches!(e, MeshError::Parse { .. }), "{e:?}");
    assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");

    let text = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
property float z\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n\
0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 3\n";
    let e = decode_mesh(text.as_bytes(), Format::Ply, Path::new("x.ply")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.ply: PLY parse error: line 14: face 1: vertex index 3 out of range (3 vertices)"
    );
    let e = decode_mesh(b"f 1 2 3\n", Format::Obj, Path::new("y.obj")).unwrap_err();
    assert!(e.to_string().starts_with("y.obj: OBJ parse error"), "{e}");
    let e = decode_mesh(
        b"solid x\nfacet normal 0 0 1\nouter loop\n",
        Format::Stl,
        Path::new("z.stl"),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("z.stl: STL parse error"), "{e}");

    let e = read_mesh(dir.path().join("missing.ply")).unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }) && e.to_string().contains("missing.ply"));
    let e = read_mesh(dir.path().join("mesh.off")).unwrap_err();
    assert!(
        e.to_string().contains("unsupported mesh format \"off\""),
        "{e}"
    );
}

#[test]
fn failed_writes_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = cuboid([1.0, 1.0, 1.0], 1).unwrap();
    bad.triangles[3][1] = 99;
    let p = dir.path().join("bad.ply");
    let e = write_mesh(&p, &bad).unwrap_err();
    assert!(e.to_string().contains("triangle 3"), "{e}");
    assert!(write_mesh(dir.path().join("nodir/x.ply"), &tetra()).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Hostile or broken files: every message is one line naming what is wrong and where.
#[test]
fn hostile_files_give_one_line_messages_naming_the_place() {
    let xyz = "property float x\nproperty float y\nproperty float z\n";
    let mut binary_face = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\n{xyz}element face 1\nproperty list uint int vertex_indices\nend_header\n"
    )
    .into_bytes();
    binary_face.extend([0u8; 36]);
    binary_face.extend(200u32.to_le_bytes());
    binary_face.extend(0i32.to_le_bytes());
    let cases: Vec<(Format, Vec<u8>, &str)> = vec![
        (Format::Ply, b"plx\n".to_vec(), "not a PLY file: the first line is `plx`, expected `ply`"),
        (Format::Ply, b"\x89PNG\r\n".to_vec(), "not a PLY file: it does not start with the line `ply`"),
        (
            Format::Ply,
            b"ply\nformat ascii 2.0\nend_header\n".to_vec(),
            "header line 2: unsupported format (expected ascii, binary_little_endian or binary_big_endian, version 1.0): `format ascii 2.0`",
        ),
        (
            Format::Ply,
            b"ply\nformat ascii 1.0\nelement vertex 3\nproperty floot x\nend_header\n".to_vec(),
            "header line 4: unknown property type `floot` (expected char, uchar, short, ushort, int, uint, float, double (or int8 … uint32, float32, float64)): `property floot x`",
        ),
        (
            Format::Ply,
            b"ply\nformat ascii 1.0\nelement vertex -3\n".to_vec(),
            "header line 3: the element count is not a whole number ≥ 0: `element vertex -3`",
        ),
        (
            Format::Ply,
            b"ply\nformat ascii 1.0\nproperty float x\n".to_vec(),
            "header line 3: property before any `element` line: `property float x`",
        ),
        (
            Format::Ply,
            b"ply\nformat ascii 1.0\nelement vertex 1\n".to_vec(),
            "the header ends at line 4 without `end_header` (truncated file?)",
        ),
        (
            Format::Ply,
            format!("ply\nformat ascii 1.0\nelement vertex 1\n{xyz}element face 1\nproperty list uchar float vertex_indices\nend_header\n").into_bytes(),
            "header line 8: a face's vertex indices must be integers, not float: `property list uchar float vertex_indices`",
        ),
        (
            Format::Ply,
            format!("ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\n{xyz}end_header\n").into_bytes(),
            "header line 3: element `vertex` declares 4000000000 records, more than the 0 bytes after the header can hold (truncated file?)",
        ),
        (
            Format::Ply,
            format!("ply\nformat ascii 1.0\nelement vertex 2\n{xyz}end_header\n0 0 0\n0 0 zero\n").into_bytes(),
            "line 9: vertex 1: `zero` is not a float",
        ),
        (
            Format::Ply,
            format!("ply\nformat ascii 1.0\nelement vertex 1\n{xyz}end_header\n0 0 0 7\n").into_bytes(),
            "line 8: vertex 0: more values than the header declares",
        ),
        (Format::Ply, binary_face, "face 0: the file ends inside this record (truncated file?)"),
        (
            Format::Obj,
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\n\n# a face\nf 1 2 3 7\n".to_vec(),
            "line 6: face 1: vertex 7 does not exist (the file has 3 vertices)",
        ),
        (Format::Obj, b"v 0 0 0\nv 1 0 1,5\n".to_vec(), "line 2: vertex coordinate `1,5` is not a number"),
        (
            Format::Stl,
            b"solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n".to_vec(),
            "line 6: expected `vertex`, found `endloop` (facet 1)",
        ),
    ];
    for (format, bytes, expected) in cases {
        let e = decode_mesh(&bytes, format, Path::new("f"))
            .unwrap_err()
            .to_string();
        let name = match format {
            Format::Ply => "PLY",
            Format::Obj => "OBJ",
            Format::Stl => "STL",
        };
        assert_eq!(e, format!("f: {name} parse error: {expected}"));
    }
}

/// Issue 16: a UTF-8 byte-order mark (as some editors write) before the first line of a
/// text mesh is skipped; the mesh and its line numbers are those of the file without it.
#[test]
fn a_byte_order_mark_before_a_text_mesh_is_skipped() {
    use msdem_mesh::io::decode_mesh_source;
    let obj = "v 0 0 0\nv 0.01 0 0\nv 0 0.01 0\nv 0 0 0.01\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty double x\nproperty double y\n\
               property double z\nelement face 4\nproperty list uchar int vertex_indices\n\
               end_header\n0 0 0\n0.01 0 0\n0 0.01 0\n0 0 0.01\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    let stl =
        "solid t\n facet normal 0 0 0\n  outer loop\n   vertex 0 0 0\n   vertex 0 0.01 0\n   \
               vertex 0.01 0 0\n  endloop\n endfacet\nendsolid t\n";
    for (text, format, triangles) in [
        (obj, Format::Obj, 4),
        (ply, Format::Ply, 4),
        (stl, Format::Stl, 1),
    ] {
        let path = std::path::Path::new("bom");
        let plain = decode_mesh_source(text.as_bytes(), format, path).unwrap();
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        let marked = decode_mesh_source(&with_bom, format, path).unwrap();
        assert_eq!(plain.0, marked.0, "{format:?}");
        assert_eq!(plain.0.triangles.len(), triangles, "{format:?}");
        assert_eq!(plain.1, marked.1, "{format:?}");
    }
}
