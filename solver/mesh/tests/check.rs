//! Topology checks: every finding with indices, against hand-made broken meshes and a
//! brute-force edge count.

mod common;

use common::*;
use msdem_mesh::check::{check_mesh, validate_mesh, PinchFinding, Role};
use msdem_mesh::generate::icosphere;
use msdem_mesh::io::{decode_mesh_source, Format};
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

/// Two outward tetrahedra touching only at vertex 0: the second is the first reflected
/// through the origin, its faces reversed to stay outward. Closed, consistently oriented,
/// edge-manifold, positive volume — and not a manifold at vertex 0.
fn pinched() -> TriMesh {
    let mut m = tetra();
    let n = m.vertices.len() as u32;
    m.vertices
        .extend(tetra().vertices[1..].iter().map(|v| v.map(|c| -c)));
    let map = |i: u32| if i == 0 { 0 } else { i + n - 1 };
    m.triangles.extend(
        tetra()
            .triangles
            .iter()
            .map(|t| [map(t[0]), map(t[2]), map(t[1])]),
    );
    m
}

#[test]
fn a_pinch_vertex_is_fatal_for_particles_and_reported_for_obstacles() {
    let m = pinched();
    let r = check_mesh(&m, Role::Particle);
    assert!(r.boundary_edges.is_empty() && r.non_manifold_edges.is_empty());
    assert!(r.inconsistent_edges.is_empty());
    assert!((r.signed_volume.unwrap() - 2.0 / 6.0).abs() < 1e-15);
    assert_eq!(
        r.pinch_vertices,
        vec![PinchFinding {
            vertex: 0,
            fans: vec![0, 4]
        }]
    );
    assert_eq!(
        first_problem(&m, Role::Particle),
        "meshes/x.ply: non-manifold vertex: 1 vertices where separate fans of triangles meet (pinch), first vertex 0, joining the fans of triangle 0 and triangle 4"
    );
    let obstacle = check_mesh(&m, Role::Obstacle);
    assert!(obstacle.is_valid());
    assert!(obstacle
        .to_string()
        .contains("non-manifold (pinch) vertices: 1 0\n"));

    // Read from an OBJ file, the message uses the file's numbering (from 1) and lines.
    let mut text = String::from("# two tetrahedra\n");
    for v in &m.vertices {
        text += &format!("v {} {} {}\n", v[0], v[1], v[2]);
    }
    for t in &m.triangles {
        text += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    let (read, map) = decode_mesh_source(text.as_bytes(), Format::Obj, Path::new("p.obj")).unwrap();
    let r = check_mesh(&read, Role::Particle);
    assert_eq!(
        r.problems_in(&map)[0],
        "non-manifold vertex: 1 vertices where separate fans of triangles meet (pinch), first vertex 1 (line 2), joining the fans of face 1 (line 9) and face 5 (line 13)"
    );
}

#[test]
fn a_bow_tie_is_a_pinch_and_an_open_fan_is_not() {
    let fan = TriMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]],
    };
    assert!(check_mesh(&fan, Role::Obstacle).pinch_vertices.is_empty());
    let mut bow_tie = fan.clone();
    bow_tie.triangles.remove(1); // [0, 1, 2] and [0, 3, 4] meet at vertex 0 only
    let r = check_mesh(&bow_tie, Role::Obstacle);
    assert_eq!(r.pinch_vertices.len(), 1);
    assert_eq!(r.pinch_vertices[0].vertex, 0);
    assert!(r.is_valid(), "an obstacle may have one");
}

#[test]
fn repeated_triangles_are_fatal_for_particles() {
    // A tetrahedron and, apart from it, one triangle in both orientations: closed,
    // consistent, edge-manifold, positive volume.
    let mut m = tetra();
    m.vertices
        .extend([[5.0, 0.0, 0.0], [6.0, 0.0, 0.0], [5.0, 1.0, 0.0]]);
    m.triangles.extend([[4, 5, 6], [4, 6, 5]]);
    let r = check_mesh(&m, Role::Particle);
    assert_eq!(r.duplicate_triangles, vec![(4, 5)]);
    assert!(r.boundary_edges.is_empty() && r.inconsistent_edges.is_empty());
    assert_eq!(
        first_problem(&m, Role::Particle),
        "meshes/x.ply: repeated triangles: 1, first triangle 5 has the vertices of triangle 4"
    );
    assert!(check_mesh(&m, Role::Obstacle).is_valid());
}

/// Brute force: the vertices whose incident triangles fall into more than one group when
/// triangles sharing an edge at the vertex are joined (repeated flood fill).
fn brute_pinches(m: &TriMesh) -> Vec<u32> {
    let mut out = Vec::new();
    for v in 0..m.vertices.len() as u32 {
        let incident: Vec<&[u32; 3]> = m.triangles.iter().filter(|t| t.contains(&v)).collect();
        if incident.is_empty() {
            continue;
        }
        let mut seen = vec![false; incident.len()];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..incident.len() {
                let shared = incident[i]
                    .iter()
                    .filter(|&&w| w != v && incident[j].contains(&w))
                    .count();
                if !seen[j] && shared > 0 {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        if seen.contains(&false) {
            out.push(v);
        }
    }
    out
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
    fn boundary_edges_and_pinch_vertices_match_brute_force_on_random_subsets(keep in proptest::collection::vec(any::<bool>(), 80)) {
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
        let fast: Vec<u32> = r.pinch_vertices.iter().map(|p| p.vertex).collect();
        prop_assert_eq!(fast, brute_pinches(&m));
    }
}
