//! `convert_with(fill_holes)`: an open OBJ becomes a closed particle (and can then be
//! recentred); a bow-tie boundary is refused with one line naming the file and vertex.

use msdem_mesh::check::{check_mesh, signed_volume, Role};
use msdem_mesh::transform::ImportTransform;
use msdem_mesh::{convert_with, read_mesh, ConvertOptions};

#[test]
fn an_open_tetrahedron_is_closed_recentred_and_passes_as_a_particle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("open.obj");
    // The right tetrahedron with 1 m legs without its face in the plane x = 0.
    std::fs::write(
        &src,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n",
    )
    .unwrap();
    let out = dir.path().join("closed.ply");
    let options = ConvertOptions {
        transform: ImportTransform {
            recentre: true,
            ..Default::default()
        },
        role: Some(Role::Particle),
        fill_holes: true,
    };
    let report = convert_with(&src, &out, &options).unwrap();
    let filled = report.filled.unwrap();
    assert_eq!((filled.holes, filled.boundary_edges), (1, 3));
    assert_eq!((filled.added_vertices, filled.added_triangles), (0, 1));
    let (m, _) = read_mesh(&out).unwrap();
    assert!(check_mesh(&m, Role::Particle).is_valid());
    // Volume 1/6 m³ (exact tetrahedron), centre of mass moved to the origin.
    assert!((signed_volume(&m) - 1.0 / 6.0).abs() < 1e-12);
    let c = m
        .vertices
        .iter()
        .fold([0.0; 3], |a, v| [a[0] + v[0], a[1] + v[1], a[2] + v[2]]);
    assert!(c.iter().all(|x| x.abs() < 1e-12), "{c:?}");
}

#[test]
fn a_bow_tie_boundary_is_refused_with_one_line_naming_file_and_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bowtie.obj");
    // Two triangles that share only vertex 1.
    std::fs::write(
        &src,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv -1 0 0\nv 0 -1 0\nf 1 2 3\nf 1 4 5\n",
    )
    .unwrap();
    let out = dir.path().join("o.ply");
    let options = ConvertOptions {
        fill_holes: true,
        ..Default::default()
    };
    let e = convert_with(&src, &out, &options).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: cannot fill holes: the boundary is not a simple loop at vertex 1 (line 1) (4 boundary edges meet there)",
            src.display()
        )
    );
    assert!(!out.exists());
}
