//! Topology and geometry checks of a triangle mesh.
//!
//! A particle must be a closed, consistently oriented, outward mesh (seed 000 §2: the
//! mass properties come from the divergence theorem over the closed surface, docs/design.md §3).
//! An obstacle may be open, but must still be finite, non-degenerate and edge-manifold.

use crate::vec3::{cross, dot, norm, sub};
use crate::{MeshError, TriMesh};
use std::fmt;
use std::path::Path;

/// A triangle whose doubled area `|(b − a) × (c − a)|` is at most this fraction of its
/// longest edge squared (its height is below ~1e-10 of its longest edge) is degenerate.
pub const DEGENERATE_REL_TOL: f64 = 1e-10;

/// What a mesh is used for, which decides which findings are fatal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A rigid particle: closed, consistently oriented, positive signed volume.
    Particle,
    /// A static obstacle: may be open; orientation mismatches are only reported.
    Obstacle,
}

/// An edge `(lo, hi)` (vertex indices, `lo < hi`) and the triangles that use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeFinding {
    /// The edge's vertex indices, smaller first.
    pub edge: (u32, u32),
    /// Indices of the triangles that contain the edge, ascending.
    pub triangles: Vec<u32>,
}

/// Everything [`check_mesh`] found. Lists are in ascending element order.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshReport {
    /// The role the mesh was checked for.
    pub role: Role,
    /// Number of vertices.
    pub vertex_count: usize,
    /// Number of triangles.
    pub triangle_count: usize,
    /// Vertices with a NaN or infinite coordinate.
    pub non_finite_vertices: Vec<u32>,
    /// `(triangle, vertex index)` for each index beyond the vertex list.
    pub out_of_range: Vec<(u32, u32)>,
    /// Triangles with (relatively) zero area, see [`DEGENERATE_REL_TOL`].
    pub degenerate_triangles: Vec<u32>,
    /// Edges used by exactly one triangle.
    pub boundary_edges: Vec<EdgeFinding>,
    /// Edges used by more than two triangles.
    pub non_manifold_edges: Vec<EdgeFinding>,
    /// Edges whose two triangles traverse them in the same direction.
    pub inconsistent_edges: Vec<EdgeFinding>,
    /// Signed enclosed volume \[m³\] (divergence theorem); `None` if not computable.
    pub signed_volume: Option<f64>,
}

/// Checks a mesh and collects every finding (never fails; see [`MeshReport::problems`]).
pub fn check_mesh(mesh: &TriMesh, role: Role) -> MeshReport {
    let n = mesh.vertices.len();
    let non_finite_vertices: Vec<u32> = (0..n as u32)
        .filter(|&i| mesh.vertices[i as usize].iter().any(|c| !c.is_finite()))
        .collect();
    let mut out_of_range = Vec::new();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        for &i in tri {
            if i as usize >= n {
                out_of_range.push((t as u32, i));
            }
        }
    }
    let usable = |tri: &[u32; 3]| tri.iter().all(|&i| (i as usize) < n);
    let degenerate_triangles = mesh
        .triangles
        .iter()
        .enumerate()
        .filter(|(_, tri)| usable(tri) && is_degenerate(mesh, tri))
        .map(|(t, _)| t as u32)
        .collect();

    // Directed edges sorted by (undirected edge, triangle): deterministic grouping.
    let mut edges: Vec<(u32, u32, u32, bool)> = Vec::with_capacity(3 * mesh.triangles.len());
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if !usable(tri) {
            continue;
        }
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            if a != b {
                edges.push((a.min(b), a.max(b), t as u32, a < b));
            }
        }
    }
    edges.sort_unstable();
    let mut boundary_edges = Vec::new();
    let mut non_manifold_edges = Vec::new();
    let mut inconsistent_edges = Vec::new();
    for group in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        let finding = EdgeFinding {
            edge: (group[0].0, group[0].1),
            triangles: group.iter().map(|e| e.2).collect(),
        };
        match group.len() {
            1 => boundary_edges.push(finding),
            2 if group[0].3 == group[1].3 => inconsistent_edges.push(finding),
            2 => {}
            _ => non_manifold_edges.push(finding),
        }
    }
    let signed_volume =
        (non_finite_vertices.is_empty() && out_of_range.is_empty()).then(|| signed_volume(mesh));
    MeshReport {
        role,
        vertex_count: n,
        triangle_count: mesh.triangles.len(),
        non_finite_vertices,
        out_of_range,
        degenerate_triangles,
        boundary_edges,
        non_manifold_edges,
        inconsistent_edges,
        signed_volume,
    }
}

/// Checks a mesh for a role and fails with the first fatal problem, naming `source`.
pub fn validate_mesh(mesh: &TriMesh, role: Role, source: &Path) -> Result<MeshReport, MeshError> {
    let report = check_mesh(mesh, role);
    match report.problems().into_iter().next() {
        Some(problem) => Err(MeshError::Invalid {
            path: source.to_path_buf(),
            problem,
        }),
        None => Ok(report),
    }
}

/// Signed volume \[m³\] enclosed by the triangles (sum of signed tetrahedra to the first
/// vertex); positive for a closed, outward mesh. Assumes valid indices.
pub fn signed_volume(mesh: &TriMesh) -> f64 {
    let Some(&o) = mesh.vertices.first() else {
        return 0.0;
    };
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| sub(mesh.vertices[i as usize], o));
            dot(a, cross(b, c))
        })
        .sum::<f64>()
        / 6.0
}

fn is_degenerate(mesh: &TriMesh, tri: &[u32; 3]) -> bool {
    let [a, b, c] = tri.map(|i| mesh.vertices[i as usize]);
    let (ab, ac, bc) = (sub(b, a), sub(c, a), sub(c, b));
    let longest = dot(ab, ab).max(dot(ac, ac)).max(dot(bc, bc));
    let doubled_area = norm(cross(ab, ac));
    // Non-finite corners are reported separately, not as degenerate.
    doubled_area.is_finite() && longest.is_finite() && doubled_area <= DEGENERATE_REL_TOL * longest
}

fn edge_line(kind: &str, what: &str, list: &[EdgeFinding]) -> String {
    let f = &list[0];
    let tris = f
        .triangles
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let noun = if f.triangles.len() == 1 {
        "triangle"
    } else {
        "triangles"
    };
    format!(
        "{kind}: {} {what}, first ({}, {}) of {noun} {tris}",
        list.len(),
        f.edge.0,
        f.edge.1
    )
}

impl MeshReport {
    /// The fatal problems for the report's role, most basic first, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if self.triangle_count == 0 {
            p.push(format!(
                "empty mesh: {} vertices, 0 triangles",
                self.vertex_count
            ));
        }
        if let Some(&(t, i)) = self.out_of_range.first() {
            p.push(format!(
                "vertex index out of range: {} references, first index {i} in triangle {t} ({} vertices)",
                self.out_of_range.len(),
                self.vertex_count
            ));
        }
        if let Some(&v) = self.non_finite_vertices.first() {
            p.push(format!(
                "non-finite coordinates (NaN/inf): {} vertices, first vertex {v}",
                self.non_finite_vertices.len()
            ));
        }
        if let Some(&t) = self.degenerate_triangles.first() {
            p.push(format!(
                "degenerate (zero-area) triangles: {}, first triangle {t}",
                self.degenerate_triangles.len()
            ));
        }
        if !self.non_manifold_edges.is_empty() {
            p.push(edge_line(
                "non-manifold mesh",
                "edges shared by more than two triangles",
                &self.non_manifold_edges,
            ));
        }
        if self.role == Role::Particle {
            if !self.boundary_edges.is_empty() {
                p.push(edge_line(
                    "open mesh",
                    "boundary edges",
                    &self.boundary_edges,
                ));
            }
            if !self.inconsistent_edges.is_empty() {
                p.push(edge_line(
                    "inconsistently oriented faces",
                    "edges traversed in the same direction",
                    &self.inconsistent_edges,
                ));
            }
            if p.is_empty() {
                match self.signed_volume {
                    Some(v) if v < 0.0 => p.push(format!(
                        "mesh is inside-out: signed volume {v:e} m³ < 0 (reverse the triangle orientation)"
                    )),
                    Some(v) if v > 0.0 => {}
                    v => p.push(format!(
                        "particle mesh encloses no volume (signed volume {:e} m³)",
                        v.unwrap_or(f64::NAN)
                    )),
                }
            }
        }
        p
    }

    /// True if the mesh is usable in its role.
    pub fn is_valid(&self) -> bool {
        self.problems().is_empty()
    }
}

impl fmt::Display for MeshReport {
    /// A human-readable multi-line report (printed by `meshgen check`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let role = match self.role {
            Role::Particle => "particle",
            Role::Obstacle => "obstacle",
        };
        writeln!(
            f,
            "{} vertices, {} triangles, checked as {role}",
            self.vertex_count, self.triangle_count
        )?;
        // Up to ten items, prefixed by a space when there are any.
        let list = |v: &mut dyn Iterator<Item = String>| {
            let items: Vec<String> = v.take(10).collect();
            items.iter().map(|s| format!(" {s}")).collect::<String>()
        };
        let edges = |l: &[EdgeFinding]| {
            list(&mut l.iter().map(|e| format!("({}, {})", e.edge.0, e.edge.1)))
        };
        writeln!(
            f,
            "open (boundary) edges: {}{}",
            self.boundary_edges.len(),
            edges(&self.boundary_edges)
        )?;
        writeln!(
            f,
            "non-manifold edges: {}{}",
            self.non_manifold_edges.len(),
            edges(&self.non_manifold_edges)
        )?;
        writeln!(
            f,
            "inconsistently oriented edges: {}{}",
            self.inconsistent_edges.len(),
            edges(&self.inconsistent_edges)
        )?;
        writeln!(
            f,
            "degenerate triangles: {}{}",
            self.degenerate_triangles.len(),
            list(&mut self.degenerate_triangles.iter().map(u32::to_string))
        )?;
        writeln!(
            f,
            "out-of-range indices: {}{}",
            self.out_of_range.len(),
            list(&mut self.out_of_range.iter().map(|(t, i)| format!("{i}@{t}")))
        )?;
        writeln!(
            f,
            "non-finite vertices: {}{}",
            self.non_finite_vertices.len(),
            list(&mut self.non_finite_vertices.iter().map(u32::to_string))
        )?;
        match self.signed_volume {
            Some(v) => writeln!(f, "signed volume: {v:e} m³")?,
            None => writeln!(f, "signed volume: not computable")?,
        }
        let problems = self.problems();
        if problems.is_empty() {
            write!(f, "OK")
        } else {
            write!(f, "INVALID: {}", problems.join("; "))
        }
    }
}
