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

/// Euler characteristic `V − E + F` over the vertices that triangles use.
fn euler_used(m: &msdem_mesh::TriMesh) -> i64 {
    let mut used: Vec<u32> = m.triangles.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let mut edges: Vec<(u32, u32)> = m
        .triangles
        .iter()
        .flat_map(|t| (0..3).map(move |k| (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]))))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    used.len() as i64 - edges.len() as i64 + m.triangles.len() as i64
}

#[test]
fn stars_cut_out_of_a_sphere_at_seeded_random_vertices_are_closed_again() {
    // Remove the whole fan (star) of several vertices whose neighbourhoods are disjoint:
    // each leaves a pentagonal or hexagonal hole. The filled sphere must be a closed,
    // outward particle of genus 0 whose volume lies between the sphere's with the caps cut
    // flat and the full sphere's.
    let sphere = msdem_mesh::generate::icosphere(1.0, 3).unwrap();
    let full = signed_volume(&sphere);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..10 {
        let mut m = sphere.clone();
        let mut blocked = vec![false; m.vertices.len()];
        let mut holes = 0;
        for _ in 0..8 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = ((state >> 33) % m.vertices.len() as u64) as u32;
            // The star's ring and the ring's neighbours must be untouched.
            let star: Vec<usize> = (0..m.triangles.len())
                .filter(|&t| m.triangles[t].contains(&v))
                .collect();
            let ring: Vec<u32> = star.iter().flat_map(|&t| m.triangles[t]).collect();
            if star.is_empty() || ring.iter().any(|&r| blocked[r as usize]) {
                continue;
            }
            for t in &m.triangles {
                if t.iter().any(|x| ring.contains(x)) {
                    for &x in t {
                        blocked[x as usize] = true;
                    }
                }
            }
            m.triangles = (0..m.triangles.len())
                .filter(|t| !star.contains(t))
                .map(|t| m.triangles[t])
                .collect();
            holes += 1;
        }
        assert!(holes >= 2, "round {round}: only {holes} holes");
        let (closed, report) = msdem_mesh::fill_holes(&m, &Default::default()).unwrap();
        assert_eq!(report.holes, holes, "round {round}");
        assert_eq!(report.added_vertices, holes);
        let check = check_mesh(&closed, Role::Particle);
        assert!(check.is_valid(), "round {round}: {:?}", check.problems());
        assert_eq!(euler_used(&closed), 2, "round {round}");
        let v = signed_volume(&closed);
        assert!(v < full && v > 0.98 * full, "round {round}: {v} vs {full}");
    }
}
