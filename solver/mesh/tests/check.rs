//! Topology checks: every finding with indices, against hand-made broken meshes and a
//! brute-force edge count.

mod common;

use common::*;
use msdem_mesh::check::{check_mesh, validate_mesh, Role};
use msdem_mesh::generate::icosphere;
use msdem_mesh::TriMesh;
use proptest::prelude::*;
use std::path::Path;

fn first_problem(m: &TriMesh, role: Role) -> String {
    validate_mesh(m, role, Path::new("meshes/x.ply"))
        .unwrap_err()
        .to_string()
}

#[test]
fn closed_outward_meshes_pass_as_particles() {
    for m in [tetra(), icosphere(2.0, 2).unwrap()] {
        let r = validate_mesh(&m, Role::Particle, Path::new("t.ply")).unwrap();
        assert!(r.boundary_edges.is_empty() && r.inconsistent_edges.is_empty());
        assert!(r.signed_volume.unwrap() > 0.0);
    }
    assert!(
        (check_mesh(&tetra(), Role::Particle).signed_volume.unwrap() - 1.0 / 6.0).abs() < 1e-15
    );
}

#[test]
fn open_mesh_names_file_edge_and_triangle() {
    let mut m = tetra();
    m.triangles.remove(0); // [0, 2, 1]
    assert_eq!(
        first_problem(&m, Role::Particle),
        "meshes/x.ply: open mesh: 3 boundary edges, first (0, 1) of triangle 0"
    );
    // An open mesh is a fine obstacle.
    assert!(check_mesh(&m, Role::Obstacle).is_valid());
}

#[test]
fn flipped_face_is_inconsistent_and_flipped_mesh_is_inside_out() {
    let mut m = tetra();
    m.triangles[3].swap(1, 2);
    let r = check_mesh(&m, Role::Particle);
    assert_eq!(r.inconsistent_edges.len(), 3);
    assert!(r
        .inconsistent_edges
        .iter()
        .all(|e| e.triangles.contains(&3)));
    assert!(first_problem(&m, Role::Particle).contains("inconsistently oriented faces: 3 edges"));
    assert!(check_mesh(&m, Role::Obstacle).is_valid());

    for t in &mut m.triangles {
        t.swap(1, 2);
    }
    m.triangles[3].swap(1, 2); // now all flipped
    let p = first_problem(&m, Role::Particle);
    assert!(p.contains("inside-out") && p.contains("-1.6"), "{p}");
}

#[test]
fn non_manifold_degenerate_nan_range_and_empty_are_reported_for_both_roles() {
    let mut m = tetra();
    m.vertices.push([-1.0, -1.0, 0.0]);
    m.triangles.push([0, 1, 4]); // edge (0, 1) now has three triangles
    for role in [Role::Particle, Role::Obstacle] {
        assert_eq!(
            first_problem(&m, role),
            "meshes/x.ply: non-manifold mesh: 1 edges shared by more than two triangles, first (0, 1) of triangles 0, 1, 4"
        );
    }

    let mut m = tetra();
    m.vertices.push([2.0, 0.0, 0.0]); // collinear with 0 and 1
    m.triangles.push([0, 1, 4]);
    m.triangles.push([0, 0, 2]);
    let r = check_mesh(&m, Role::Obstacle);
    assert_eq!(r.degenerate_triangles, vec![4, 5]);
    assert!(first_problem(&m, Role::Obstacle)
        .contains("degenerate (zero-area) triangles: 2, first triangle 4"));

    let mut m = tetra();
    m.vertices[2][0] = f64::NAN;
    m.vertices[3][2] = f64::INFINITY;
    let r = check_mesh(&m, Role::Obstacle);
    assert_eq!(r.non_finite_vertices, vec![2, 3]);
    assert!(r.signed_volume.is_none());
    assert!(first_problem(&m, Role::Obstacle)
        .contains("non-finite coordinates (NaN/inf): 2 vertices, first vertex 2"));

    let mut m = tetra();
    m.triangles[2][1] = 17;
    let r = check_mesh(&m, Role::Particle);
    assert_eq!(r.out_of_range, vec![(2, 17)]);
    assert!(first_problem(&m, Role::Obstacle).contains("first index 17 in triangle 2"));

    let m = TriMesh::default();
    assert_eq!(
        first_problem(&m, Role::Obstacle),
        "meshes/x.ply: empty mesh: 0 vertices, 0 triangles"
    );
}

#[test]
fn tiny_well_shaped_triangles_are_not_degenerate() {
    let mut m = tetra();
    for v in &mut m.vertices {
        *v = v.map(|c| c * 1e-9);
    }
    assert!(check_mesh(&m, Role::Particle).is_valid());
}

#[test]
fn report_display_lists_counts_and_verdict() {
    let mut m = tetra();
    m.triangles.remove(0);
    let text = check_mesh(&m, Role::Particle).to_string();
    assert!(
        text.contains("open (boundary) edges: 3 (0, 1) (0, 2) (1, 2)"),
        "{text}"
    );
    assert!(
        text.ends_with("INVALID: open mesh: 3 boundary edges, first (0, 1) of triangle 0"),
        "{text}"
    );
    assert!(check_mesh(&tetra(), Role::Particle)
        .to_string()
        .ends_with("OK"));
}

/// Brute force: an edge is a boundary edge iff exactly one triangle contains it.
fn brute_boundary(m: &TriMesh) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for t in &m.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let users = m
                .triangles
                .iter()
                .filter(|u| {
                    (0..3).any(|j| {
                        let (c, d) = (u[j], u[(j + 1) % 3]);
                        (c, d) == (a, b) || (c, d) == (b, a)
                    })
                })
                .count();
            if users == 1 {
                out.push((a.min(b), a.max(b)));
            }
        }
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn boundary_edges_match_brute_force_on_random_subsets(keep in proptest::collection::vec(any::<bool>(), 80)) {
        let sphere = icosphere(1.0, 1).unwrap();
        let m = TriMesh {
            vertices: sphere.vertices.clone(),
            triangles: sphere.triangles.iter().zip(&keep).filter(|(_, &k)| k).map(|(t, _)| *t).collect(),
        };
        let r = check_mesh(&m, Role::Obstacle);
        let fast: Vec<(u32, u32)> = r.boundary_edges.iter().map(|e| e.edge).collect();
        prop_assert_eq!(fast, brute_boundary(&m));
        prop_assert!(r.inconsistent_edges.is_empty() && r.non_manifold_edges.is_empty());
        prop_assert_eq!(r.is_valid(), !m.triangles.is_empty());
    }
}
