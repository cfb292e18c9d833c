//! Closing the holes of a scanned mesh (`meshgen convert --fill-holes`).
//!
//! A scan such as the Stanford bunny is a consistently oriented, edge-manifold surface
//! with a few holes. A *boundary half-edge* is a directed edge `a → b` of a triangle whose
//! reverse `b → a` belongs to no triangle. The filler
//!
//! 1. refuses a mesh it cannot close safely, with one line naming the element: a directed
//!    edge used by two triangles (inconsistent orientation or an edge shared by more than
//!    two triangles), or a vertex where more than one boundary half-edge starts or ends
//!    (a "bow-tie": the boundary is not a set of simple loops);
//! 2. traces the boundary loops (each vertex then has exactly one outgoing and one
//!    incoming boundary half-edge, so following the outgoing ones closes every loop),
//!    starting each at its smallest boundary half-edge, in ascending order — deterministic;
//! 3. closes each loop `v₀ → v₁ → … → v₀` of length `n`: a triangle hole (`n = 3`) gets the
//!    one triangle `(v₂, v₁, v₀)`; a longer loop gets a new vertex at the mean of its
//!    vertices and the fan of triangles `(v_{i+1}, v_i, c)`. Every new triangle holds the
//!    reverse of one boundary half-edge, and consecutive fan triangles share the edge to
//!    `c` in opposite directions, so the result is closed and consistently oriented, and
//!    manifold at every loop vertex (its fan gains exactly the two triangles that close it).
//!
//! The fan is flat for a planar convex hole (the bunny's base); for a strongly non-planar
//! or non-convex loop the patch can fold, which the caller's checks (degenerate triangles,
//! orientation) and the user's eye judge — the filler does not move existing vertices.

use crate::io::SourceMap;
use crate::TriMesh;

/// What [`fill_holes`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FillReport {
    /// Boundary loops closed.
    pub holes: usize,
    /// Boundary half-edges before filling.
    pub boundary_edges: usize,
    /// Vertices added (one per loop longer than three).
    pub added_vertices: usize,
    /// Triangles added.
    pub added_triangles: usize,
}

/// Closes every hole of `mesh` (module docs); `map` names elements in messages. The error
/// is one line: why the boundary cannot be closed, naming a face or vertex.
pub fn fill_holes(mesh: &TriMesh, map: &SourceMap) -> Result<(TriMesh, FillReport), String> {
    let nv = mesh.vertices.len();
    // Directed edges (from, to, triangle), sorted: duplicates are adjacent.
    let mut half: Vec<(u32, u32, u32)> = Vec::with_capacity(3 * mesh.triangles.len());
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if let Some(&bad) = tri.iter().find(|&&v| v as usize >= nv) {
            return Err(format!(
                "cannot fill holes: {} refers to missing vertex {bad}",
                map.triangle_label(t as u32)
            ));
        }
        for k in 0..3 {
            half.push((tri[k], tri[(k + 1) % 3], t as u32));
        }
    }
    half.sort_unstable();
    if let Some(w) = half
        .windows(2)
        .find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
    {
        return Err(format!(
            "cannot fill holes: edge ({}, {}) runs the same way in {} and {} \
             (inconsistent orientation or an edge of more than two faces)",
            map.vertex_number(w[0].0),
            map.vertex_number(w[0].1),
            map.triangle_label(w[0].2),
            map.triangle_label(w[1].2)
        ));
    }
    let has = |a: u32, b: u32| {
        let i = half.partition_point(|e| (e.0, e.1) < (a, b));
        half.get(i).is_some_and(|e| (e.0, e.1) == (a, b))
    };
    let boundary: Vec<(u32, u32)> = half
        .iter()
        .filter(|e| !has(e.1, e.0))
        .map(|e| (e.0, e.1))
        .collect();
    // Outgoing and incoming boundary half-edge of every vertex (at most one each).
    let mut next = vec![u32::MAX; nv];
    let mut incoming = vec![0u32; nv];
    for &(a, b) in &boundary {
        if next[a as usize] != u32::MAX {
            return Err(bow_tie(map, a, &boundary));
        }
        next[a as usize] = b;
        incoming[b as usize] += 1;
        if incoming[b as usize] > 1 {
            return Err(bow_tie(map, b, &boundary));
        }
    }
    let mut out = mesh.clone();
    let mut report = FillReport {
        boundary_edges: boundary.len(),
        ..FillReport::default()
    };
    let mut done = vec![false; nv];
    for &(a0, _) in &boundary {
        if done[a0 as usize] {
            continue;
        }
        let mut lp = vec![a0];
        done[a0 as usize] = true;
        let mut v = next[a0 as usize];
        while v != a0 {
            // In- and out-degrees are at most one, so the walk cannot revisit another
            // vertex; a missing successor would mean an open boundary path.
            if v == u32::MAX || done[v as usize] || lp.len() > boundary.len() {
                return Err(format!(
                    "cannot fill holes: the boundary through {} does not close",
                    map.vertex_label(a0)
                ));
            }
            done[v as usize] = true;
            lp.push(v);
            v = next[v as usize];
        }
        close_loop(&mut out, &lp, &mut report)?;
    }
    Ok((out, report))
}

fn bow_tie(map: &SourceMap, v: u32, boundary: &[(u32, u32)]) -> String {
    let k = boundary.iter().filter(|e| e.0 == v || e.1 == v).count();
    format!(
        "cannot fill holes: the boundary is not a simple loop at {} ({k} boundary edges meet there)",
        map.vertex_label(v)
    )
}

/// Closes one loop (module docs, step 3).
fn close_loop(out: &mut TriMesh, lp: &[u32], report: &mut FillReport) -> Result<(), String> {
    let n = lp.len();
    report.holes += 1;
    if n == 3 {
        out.triangles.push([lp[2], lp[1], lp[0]]);
        report.added_triangles += 1;
        return Ok(());
    }
    let mut c = [0.0; 3];
    for &v in lp {
        for (ck, vk) in c.iter_mut().zip(out.vertices[v as usize]) {
            *ck += vk / n as f64;
        }
    }
    let ci = u32::try_from(out.vertices.len())
        .map_err(|_| "cannot fill holes: too many vertices".to_owned())?;
    out.vertices.push(c);
    report.added_vertices += 1;
    for i in 0..n {
        out.triangles.push([lp[(i + 1) % n], lp[i], ci]);
    }
    report.added_triangles += n;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_mesh, signed_volume, Role};

    /// Closed unit cube (outward), 12 triangles.
    fn cube() -> TriMesh {
        let vertices = (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64])
            .collect();
        let triangles = vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ];
        TriMesh {
            vertices,
            triangles,
        }
    }

    fn euler(m: &TriMesh) -> i64 {
        let mut edges: Vec<(u32, u32)> = m
            .triangles
            .iter()
            .flat_map(|t| (0..3).map(move |k| (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]))))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        m.vertices.len() as i64 - edges.len() as i64 + m.triangles.len() as i64
    }

    #[test]
    fn a_cube_without_its_top_is_closed_with_the_right_euler_number_and_volume() {
        // Remove the two triangles of the top face (z = 1): a square hole of 4 edges.
        let mut open = cube();
        open.triangles.retain(|t| !t.iter().all(|&v| v >= 4));
        assert_eq!(open.triangles.len(), 10);
        assert!(!check_mesh(&open, Role::Particle).is_valid());
        let (closed, report) = fill_holes(&open, &SourceMap::default()).unwrap();
        assert_eq!(
            report,
            FillReport {
                holes: 1,
                boundary_edges: 4,
                added_vertices: 1,
                added_triangles: 4
            }
        );
        let check = check_mesh(&closed, Role::Particle);
        assert!(check.is_valid(), "{:?}", check.problems());
        // Sphere topology: V − E + F = 2; the flat fan restores the unit volume.
        assert_eq!(euler(&closed), 2);
        assert!((signed_volume(&closed) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn two_holes_including_a_triangle_hole_are_closed() {
        // An octahedron without two opposite faces: two disjoint triangle holes.
        let p = |x: f64, y: f64, z: f64| [x, y, z];
        let vertices = vec![
            p(1.0, 0.0, 0.0),
            p(-1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, -1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(0.0, 0.0, -1.0),
        ];
        let full = vec![
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ];
        let mut m = TriMesh {
            vertices,
            triangles: full.clone(),
        };
        let volume = signed_volume(&m);
        m.triangles.retain(|t| *t != [0, 2, 4] && *t != [3, 1, 5]);
        let (closed, report) = fill_holes(&m, &SourceMap::default()).unwrap();
        assert_eq!(report.holes, 2);
        assert_eq!(report.added_vertices, 0);
        assert_eq!(report.added_triangles, 2);
        assert!(check_mesh(&closed, Role::Particle).is_valid());
        assert_eq!(euler(&closed), 2);
        assert!((signed_volume(&closed) - volume).abs() < 1e-12);
    }

    #[test]
    fn a_closed_mesh_is_returned_unchanged() {
        let (m, report) = fill_holes(&cube(), &SourceMap::default()).unwrap();
        assert_eq!(m, cube());
        assert_eq!(report.holes, 0);
    }

    #[test]
    fn a_bow_tie_boundary_vertex_is_refused_with_one_line() {
        // Two open triangles that share only vertex 0: two boundary edges leave it.
        let m = TriMesh {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [-1.0, 0.0, 0.0],
                [0.0, -1.0, 0.0],
            ],
            triangles: vec![[0, 1, 2], [0, 3, 4]],
        };
        let e = fill_holes(&m, &SourceMap::default()).unwrap_err();
        assert_eq!(
            e,
            "cannot fill holes: the boundary is not a simple loop at vertex 0 (4 boundary edges meet there)"
        );
        assert!(!e.contains('\n'));
    }

    #[test]
    fn inconsistent_orientation_is_refused() {
        let mut m = cube();
        m.triangles[0] = [0, 3, 2];
        let e = fill_holes(&m, &SourceMap::default()).unwrap_err();
        assert!(e.contains("runs the same way"), "{e}");
    }
}
