//! Topology and geometry checks of a triangle mesh.
//!
//! A particle must be a closed, consistently oriented, outward mesh (seed 000 §2: the
//! mass properties come from the divergence theorem over the closed surface, docs/design.md §3),
//! manifold at its edges and at its vertices (no pinch vertex), without a triangle repeated.
//! An obstacle may be open, but must still be finite, non-degenerate and edge-manifold;
//! pinch vertices, repeated triangles and unused vertices are only reported for it.
//!
//! Findings are indices into the mesh; [`MeshReport::problems_in`] and
//! [`MeshReport::display_in`] name them in the numbering of the file the mesh was read from
//! (see [`SourceMap`]).

use crate::io::SourceMap;
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

/// A vertex around which the triangles form more than one fan: groups of triangles that are
/// not connected to each other through the edges at the vertex (two cones touching at their
/// tips, two sheets touching at a corner). The surface is not a manifold there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinchFinding {
    /// The vertex index.
    pub vertex: u32,
    /// The smallest triangle index of each fan, ascending (at least two).
    pub fans: Vec<u32>,
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
    /// Vertices where separate fans of triangles meet (non-manifold vertices).
    pub pinch_vertices: Vec<PinchFinding>,
    /// `(earlier, later)` triangles with the same three vertices (in any order).
    pub duplicate_triangles: Vec<(u32, u32)>,
    /// Vertices used by no triangle (harmless; reported only).
    pub unused_vertices: Vec<u32>,
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
    let mut used = vec![false; n];
    for tri in mesh.triangles.iter().filter(|t| usable(t)) {
        for &i in tri {
            used[i as usize] = true;
        }
    }
    let unused_vertices = (0..n as u32).filter(|&i| !used[i as usize]).collect();
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
        pinch_vertices: pinch_vertices(mesh),
        duplicate_triangles: duplicate_triangles(mesh),
        unused_vertices,
        signed_volume,
    }
}

/// Whether a triangle's indices are in range and pairwise distinct.
fn proper(tri: &[u32; 3], n: usize) -> bool {
    tri.iter().all(|&i| (i as usize) < n)
        && tri[0] != tri[1]
        && tri[1] != tri[2]
        && tri[0] != tri[2]
}

/// Union–find root with path halving.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        let up = parent[parent[i]];
        parent[i] = up;
        i = up;
    }
    i
}

/// The vertices whose incident triangles form more than one edge-connected fan.
///
/// Each corner `3·t + k` is a node; two corners at the same vertex are joined when their
/// triangles share an edge at that vertex. A manifold vertex has all its corners in one
/// group (a closed fan inside the surface, an open one on its boundary). Triangles with
/// out-of-range or repeated indices are left out (reported elsewhere).
fn pinch_vertices(mesh: &TriMesh) -> Vec<PinchFinding> {
    let n = mesh.vertices.len();
    // (vertex, other vertex of an edge at it, corner), sorted: corners sharing an edge at a
    // vertex are adjacent.
    let mut spokes: Vec<(u32, u32, usize)> = Vec::with_capacity(6 * mesh.triangles.len());
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if !proper(tri, n) {
            continue;
        }
        for k in 0..3 {
            let corner = 3 * t + k;
            spokes.push((tri[k], tri[(k + 1) % 3], corner));
            spokes.push((tri[k], tri[(k + 2) % 3], corner));
        }
    }
    spokes.sort_unstable();
    let mut parent: Vec<usize> = (0..3 * mesh.triangles.len()).collect();
    for group in spokes.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        for pair in group.windows(2) {
            let (a, b) = (root(&mut parent, pair[0].2), root(&mut parent, pair[1].2));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out = Vec::new();
    let mut fans: Vec<(usize, u32)> = Vec::new();
    for group in spokes.chunk_by(|a, b| a.0 == b.0) {
        fans.clear();
        for s in group {
            fans.push((root(&mut parent, s.2), (s.2 / 3) as u32));
        }
        fans.sort_unstable();
        fans.dedup_by_key(|f| f.0);
        if fans.len() > 1 {
            let mut first: Vec<u32> = fans.iter().map(|f| f.1).collect();
            first.sort_unstable();
            out.push(PinchFinding {
                vertex: group[0].0,
                fans: first,
            });
        }
    }
    out
}

/// `(earlier, later)` pairs of triangles with the same vertex set, by the later one.
fn duplicate_triangles(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let n = mesh.vertices.len();
    let mut keys: Vec<([u32; 3], u32)> = mesh
        .triangles
        .iter()
        .enumerate()
        .filter(|(_, tri)| proper(tri, n))
        .map(|(t, tri)| {
            let mut k = *tri;
            k.sort_unstable();
            (k, t as u32)
        })
        .collect();
    keys.sort_unstable();
    let mut out: Vec<(u32, u32)> = keys
        .chunk_by(|a, b| a.0 == b.0)
        .flat_map(|g| g[1..].iter().map(move |d| (g[0].1, d.1)))
        .collect();
    out.sort_unstable_by_key(|&(a, b)| (b, a));
    out
}

/// Checks a mesh for a role and fails with the first fatal problem, naming `source`.
pub fn validate_mesh(mesh: &TriMesh, role: Role, source: &Path) -> Result<MeshReport, MeshError> {
    validate_mesh_in(mesh, role, source, &SourceMap::default())
}

/// [`validate_mesh`] naming elements as the file `source` numbers them (`map` from
/// [`crate::io::read_mesh_source`]).
pub fn validate_mesh_in(
    mesh: &TriMesh,
    role: Role,
    source: &Path,
    map: &SourceMap,
) -> Result<MeshReport, MeshError> {
    let report = check_mesh(mesh, role);
    match report.problems_in(map).into_iter().next() {
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

fn edge_line(kind: &str, what: &str, list: &[EdgeFinding], map: &SourceMap) -> String {
    let f = &list[0];
    if map.format().is_none() {
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
        return format!(
            "{kind}: {} {what}, first ({}, {}) of {noun} {tris}",
            list.len(),
            f.edge.0,
            f.edge.1
        );
    }
    let tris = f
        .triangles
        .iter()
        .map(|&t| map.triangle_label(t))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{kind}: {} {what}, first between {} and {} of {tris}",
        list.len(),
        map.vertex_label(f.edge.0),
        map.vertex_label(f.edge.1)
    )
}

impl MeshReport {
    /// The fatal problems for the report's role, most basic first, one line each; elements
    /// are named by their index in the mesh.
    pub fn problems(&self) -> Vec<String> {
        self.problems_in(&SourceMap::default())
    }

    /// [`problems`](Self::problems), naming elements as the file behind `map` numbers them
    /// (faces, vertices and lines).
    pub fn problems_in(&self, map: &SourceMap) -> Vec<String> {
        let mut p = Vec::new();
        if self.triangle_count == 0 {
            p.push(format!(
                "empty mesh: {} vertices, 0 triangles",
                self.vertex_count
            ));
        }
        if let Some(&(t, i)) = self.out_of_range.first() {
            p.push(format!(
                "vertex index out of range: {} references, first index {i} in {} ({} vertices)",
                self.out_of_range.len(),
                map.triangle_label(t),
                self.vertex_count
            ));
        }
        if let Some(&v) = self.non_finite_vertices.first() {
            p.push(format!(
                "non-finite coordinates (NaN/inf): {} vertices, first {}",
                self.non_finite_vertices.len(),
                map.vertex_label(v)
            ));
        }
        if let Some(&t) = self.degenerate_triangles.first() {
            p.push(format!(
                "degenerate (zero-area) triangles: {}, first {}",
                self.degenerate_triangles.len(),
                map.triangle_label(t)
            ));
        }
        if !self.non_manifold_edges.is_empty() {
            p.push(edge_line(
                "non-manifold mesh",
                "edges shared by more than two triangles",
                &self.non_manifold_edges,
                map,
            ));
        }
        if self.role == Role::Particle {
            if let Some(f) = self.pinch_vertices.first() {
                let fans = f
                    .fans
                    .iter()
                    .map(|&t| map.triangle_label(t))
                    .collect::<Vec<_>>()
                    .join(" and ");
                p.push(format!(
                    "non-manifold vertex: {} vertices where separate fans of triangles meet (pinch), first {}, joining the fans of {fans}",
                    self.pinch_vertices.len(),
                    map.vertex_label(f.vertex)
                ));
            }
            if !self.boundary_edges.is_empty() {
                p.push(edge_line(
                    "open mesh",
                    "boundary edges",
                    &self.boundary_edges,
                    map,
                ));
            }
            if !self.inconsistent_edges.is_empty() {
                p.push(edge_line(
                    "inconsistently oriented faces",
                    "edges traversed in the same direction",
                    &self.inconsistent_edges,
                    map,
                ));
            }
            if let Some(&(a, b)) = self.duplicate_triangles.first() {
                p.push(format!(
                    "repeated triangles: {}, first {} has the vertices of {}",
                    self.duplicate_triangles.len(),
                    map.triangle_label(b),
                    map.triangle_label(a)
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

    /// The multi-line report of [`Display`](fmt::Display), naming elements as the file
    /// behind `map` numbers them.
    pub fn display_in<'a>(&'a self, map: &'a SourceMap) -> impl fmt::Display + 'a {
        ReportDisplay { report: self, map }
    }

    /// True if the mesh is usable in its role.
    pub fn is_valid(&self) -> bool {
        self.problems().is_empty()
    }
}

impl fmt::Display for MeshReport {
    /// A human-readable multi-line report (printed by `meshgen check`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ReportDisplay {
            report: self,
            map: &SourceMap::default(),
        }
        .fmt(f)
    }
}

/// [`MeshReport`] rendered in the numbering of a [`SourceMap`].
struct ReportDisplay<'a> {
    report: &'a MeshReport,
    map: &'a SourceMap,
}

impl fmt::Display for ReportDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (r, map) = (self.report, self.map);
        let role = match r.role {
            Role::Particle => "particle",
            Role::Obstacle => "obstacle",
        };
        writeln!(
            f,
            "{} vertices, {} triangles, checked as {role}",
            r.vertex_count, r.triangle_count
        )?;
        if map.format().is_some() {
            writeln!(f, "{}", map.numbering())?;
        }
        // Up to ten items, prefixed by a space when there are any.
        let list = |v: &mut dyn Iterator<Item = String>| {
            let items: Vec<String> = v.take(10).collect();
            items.iter().map(|s| format!(" {s}")).collect::<String>()
        };
        let edges = |l: &[EdgeFinding]| {
            list(&mut l.iter().map(|e| {
                format!(
                    "({}, {})",
                    map.vertex_number(e.edge.0),
                    map.vertex_number(e.edge.1)
                )
            }))
        };
        let vertices = |l: &[u32]| list(&mut l.iter().map(|&v| map.vertex_number(v)));
        let triangles =
            |l: &mut dyn Iterator<Item = u32>| list(&mut l.map(|t| map.triangle_number(t)));
        writeln!(
            f,
            "open (boundary) edges: {}{}",
            r.boundary_edges.len(),
            edges(&r.boundary_edges)
        )?;
        writeln!(
            f,
            "non-manifold edges: {}{}",
            r.non_manifold_edges.len(),
            edges(&r.non_manifold_edges)
        )?;
        writeln!(
            f,
            "non-manifold (pinch) vertices: {}{}",
            r.pinch_vertices.len(),
            list(&mut r.pinch_vertices.iter().map(|p| map.vertex_number(p.vertex)))
        )?;
        writeln!(
            f,
            "inconsistently oriented edges: {}{}",
            r.inconsistent_edges.len(),
            edges(&r.inconsistent_edges)
        )?;
        writeln!(
            f,
            "degenerate triangles: {}{}",
            r.degenerate_triangles.len(),
            triangles(&mut r.degenerate_triangles.iter().copied())
        )?;
        writeln!(
            f,
            "repeated triangles: {}{}",
            r.duplicate_triangles.len(),
            triangles(&mut r.duplicate_triangles.iter().map(|d| d.1))
        )?;
        writeln!(
            f,
            "out-of-range indices: {}{}",
            r.out_of_range.len(),
            list(
                &mut r
                    .out_of_range
                    .iter()
                    .map(|&(t, i)| format!("{i}@{}", map.triangle_number(t)))
            )
        )?;
        writeln!(
            f,
            "non-finite vertices: {}{}",
            r.non_finite_vertices.len(),
            vertices(&r.non_finite_vertices)
        )?;
        writeln!(
            f,
            "unused vertices: {}{}",
            r.unused_vertices.len(),
            vertices(&r.unused_vertices)
        )?;
        match r.signed_volume {
            Some(v) => writeln!(f, "signed volume: {v:e} m³")?,
            None => writeln!(f, "signed volume: not computable")?,
        }
        let problems = r.problems_in(map);
        if problems.is_empty() {
            write!(f, "OK")
        } else {
            write!(f, "INVALID: {}", problems.join("; "))
        }
    }
}
