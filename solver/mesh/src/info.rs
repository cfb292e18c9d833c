//! Everything `meshgen info` prints about a mesh: counts, bounding box, surface area,
//! topology status and, for a closed outward mesh, the mass properties (docs/cli.md).

use std::fmt::Write;

use crate::check::{check_mesh, MeshReport, Role};
use crate::io::SourceMap;
use crate::mass::{mass_properties, principal_axes, surface_area, MassProperties};
use crate::TriMesh;

/// What [`mesh_info`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshInfo {
    /// The topology report, the mesh checked as a particle.
    pub report: MeshReport,
    /// Smallest and largest coordinates \[m\] of the vertices used by triangles (`None`
    /// without any, or with non-finite ones).
    pub bounds: Option<[[f64; 3]; 2]>,
    /// Total triangle area \[m²\].
    pub surface_area: f64,
    /// Connected parts: groups of vertices joined by triangles.
    pub parts: usize,
    /// Mass properties for a density of 1 kg/m³ (so mass = volume \[m³\] and the inertia is
    /// per unit density \[kg·m² per kg/m³ = m⁵\]), or why they are not defined.
    pub unit_density: Result<MassProperties, String>,
}

/// Computes [`MeshInfo`]; never fails. Mass properties need a mesh without open, non-manifold
/// or inconsistently oriented edges, with valid indices, finite coordinates and a positive
/// enclosed volume; `map` only names elements in the reason why they are missing.
pub fn mesh_info(mesh: &TriMesh, map: &SourceMap) -> MeshInfo {
    let report = check_mesh(mesh, Role::Particle);
    let n = mesh.vertices.len();
    let usable = |t: &&[u32; 3]| t.iter().all(|&i| (i as usize) < n);
    let mut bounds: Option<[[f64; 3]; 2]> = None;
    for &i in mesh.triangles.iter().filter(usable).flatten() {
        let p = mesh.vertices[i as usize];
        let b = bounds.get_or_insert([p, p]);
        for k in 0..3 {
            b[0][k] = b[0][k].min(p[k]);
            b[1][k] = b[1][k].max(p[k]);
        }
    }
    if !report.non_finite_vertices.is_empty() {
        bounds = None;
    }
    // Union–find over vertices, joined by each triangle's corners.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for t in mesh.triangles.iter().filter(usable) {
        for k in 1..3 {
            let (a, b) = (
                find(&mut parent, t[0] as usize),
                find(&mut parent, t[k] as usize),
            );
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut roots: Vec<usize> = mesh
        .triangles
        .iter()
        .filter(usable)
        .map(|t| find(&mut parent, t[0] as usize))
        .collect();
    roots.sort_unstable();
    roots.dedup();
    let closed = report.triangle_count > 0
        && report.out_of_range.is_empty()
        && report.non_finite_vertices.is_empty()
        && report.boundary_edges.is_empty()
        && report.non_manifold_edges.is_empty()
        && report.inconsistent_edges.is_empty();
    let unit_density = if closed {
        mass_properties(mesh, 1.0).map_err(|e| e.to_string())
    } else {
        Err(report
            .problems_in(map)
            .into_iter()
            .next()
            .unwrap_or_else(|| "the mesh is not closed".to_owned()))
    };
    MeshInfo {
        surface_area: surface_area(mesh),
        bounds,
        parts: roots.len(),
        unit_density,
        report,
    }
}

/// A number in full precision (shortest round-trip text), `0.0` for either zero.
fn num(v: f64) -> String {
    if v == 0.0 {
        "0.0".to_owned()
    } else {
        format!("{v:?}")
    }
}

fn vec3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", num(v[0]), num(v[1]), num(v[2]))
}

fn yes_no(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "no"
    }
}

impl MeshInfo {
    /// The text `meshgen info` prints, one `quantity [unit]: value` per line; numbers in
    /// full precision. With a `density` \[kg/m³\], mass and inertia in kg and kg·m² follow.
    pub fn render(&self, density: Option<f64>) -> String {
        let r = &self.report;
        let mut s = String::new();
        let _ = writeln!(s, "triangles: {}", r.triangle_count);
        let _ = writeln!(
            s,
            "vertices: {} ({} unused)",
            r.vertex_count,
            r.unused_vertices.len()
        );
        let _ = writeln!(s, "connected parts: {}", self.parts);
        match self.bounds {
            Some([lo, hi]) => {
                let _ = writeln!(
                    s,
                    "bounding box [m]: min {}, max {}, size {}",
                    vec3(lo),
                    vec3(hi),
                    vec3(std::array::from_fn(|k| hi[k] - lo[k]))
                );
            }
            None => {
                let _ = writeln!(s, "bounding box [m]: none");
            }
        }
        let _ = writeln!(s, "surface area [m²]: {}", num(self.surface_area));
        let _ = writeln!(
            s,
            "closed: {} ({} boundary edges)",
            yes_no(r.boundary_edges.is_empty()),
            r.boundary_edges.len()
        );
        let _ = writeln!(
            s,
            "manifold: {} ({} edges shared by more than two triangles, {} pinch vertices)",
            yes_no(r.non_manifold_edges.is_empty() && r.pinch_vertices.is_empty()),
            r.non_manifold_edges.len(),
            r.pinch_vertices.len()
        );
        let orientation = if !r.inconsistent_edges.is_empty() {
            format!(
                "inconsistent ({} edges traversed twice in the same direction)",
                r.inconsistent_edges.len()
            )
        } else {
            match r.signed_volume {
                Some(v) if r.boundary_edges.is_empty() && v > 0.0 => {
                    "consistent, outward (signed volume > 0)".to_owned()
                }
                Some(v) if r.boundary_edges.is_empty() && v < 0.0 => {
                    "consistent, inward: inside-out (signed volume < 0)".to_owned()
                }
                _ => "consistent".to_owned(),
            }
        };
        let _ = writeln!(s, "orientation: {orientation}");
        let m = match &self.unit_density {
            Ok(m) => m,
            Err(why) => {
                let _ = write!(s, "volume, centre of mass, inertia: not defined: {why}");
                return s;
            }
        };
        let _ = writeln!(s, "volume [m³]: {}", num(m.volume));
        let _ = writeln!(s, "centre of mass [m]: {}", vec3(m.com));
        let _ = writeln!(
            s,
            "bounding radius about the centre of mass [m]: {}",
            num(m.bounding_radius)
        );
        let tensor = |s: &mut String, title: &str, k: f64| {
            let _ = writeln!(s, "{title}:");
            for row in m.inertia {
                let _ = writeln!(s, "  {}", vec3(row.map(|v| v * k)));
            }
        };
        let (moments, axes) = principal_axes(&m.inertia);
        tensor(
            &mut s,
            "inertia tensor J = ∫ (|r|² 1 − r rᵀ) dV about the centre of mass, per unit density [kg·m² per kg/m³ = m⁵]",
            1.0,
        );
        let _ = writeln!(
            s,
            "principal moments per unit density [m⁵]: {}",
            vec3(moments)
        );
        let _ = write!(
            s,
            "principal axes (unit vectors, in the order of the moments): {}, {}, {}",
            vec3(axes[0]),
            vec3(axes[1]),
            vec3(axes[2])
        );
        if let Some(rho) = density {
            let _ = writeln!(s);
            let _ = writeln!(s, "density [kg/m³]: {}", num(rho));
            let _ = writeln!(s, "mass [kg]: {}", num(rho * m.volume));
            tensor(
                &mut s,
                "inertia tensor about the centre of mass [kg·m²]",
                rho,
            );
            let _ = write!(
                s,
                "principal moments [kg·m²]: {}",
                vec3(moments.map(|v| v * rho))
            );
        }
        s
    }
}
