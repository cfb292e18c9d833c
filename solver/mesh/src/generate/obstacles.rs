//! Static obstacles (open meshes): plane, slope, hopper, staircase (seed 004 §8.3).

use super::{finite3, grid_count, positive};
use crate::vec3::add;
use crate::{MeshError, TriMesh};
use serde::{Deserialize, Serialize};

/// Horizontal rectangle `size[0] × size[1]` \[m\] centred at `center`, normal +z, split into
/// `subdivisions × subdivisions` quads (two triangles each).
pub fn plane(size: [f64; 2], subdivisions: u32, center: [f64; 3]) -> Result<TriMesh, MeshError> {
    positive("--size", size[0])?;
    positive("--size", size[1])?;
    let n = grid_count("--subdivisions", subdivisions, 2)?;
    let center = finite3("--center", center)?;
    let mut vertices = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let x = size[0] * (f64::from(i) / f64::from(n) - 0.5);
            let y = size[1] * (f64::from(j) / f64::from(n) - 0.5);
            vertices.push(add(center, [x, y, 0.0]));
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let mut triangles = Vec::new();
    for j in 0..n {
        for i in 0..n {
            triangles.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            triangles.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// The plane of [`plane`] (one quad) rotated by `angle_deg` ∈ [0°, 90°) about the x axis so
/// that it descends towards +y, then moved to `center`.
pub fn slope(size: [f64; 2], angle_deg: f64, center: [f64; 3]) -> Result<TriMesh, MeshError> {
    if !(angle_deg.is_finite() && (0.0..90.0).contains(&angle_deg)) {
        return Err(MeshError::parameter(
            "--angle",
            angle_deg,
            "must be in [0, 90) degrees",
        ));
    }
    let center = finite3("--center", center)?;
    let mut mesh = plane(size, 1, [0.0; 3])?;
    let (s, c) = angle_deg.to_radians().sin_cos();
    for v in &mut mesh.vertices {
        *v = add(center, [v[0], c * v[1], -s * v[1]]);
    }
    Ok(mesh)
}

/// Shape of a hopper outlet (`square` or `round` in YAML and on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outlet {
    /// Square outlet and top: four trapezoid walls.
    Square,
    /// Circular outlet and top: `segments` wall quads.
    Round,
}

impl Outlet {
    /// The name in YAML and on `meshgen`'s command line.
    pub fn name(self) -> &'static str {
        match self {
            Outlet::Square => "square",
            Outlet::Round => "round",
        }
    }
}

/// Parameters of [`hopper`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hopper {
    /// Top opening width \[m\] (side of the square or diameter of the circle).
    pub top_width: f64,
    /// Outlet width \[m\], `0 < outlet_width < top_width`.
    pub outlet_width: f64,
    /// Height of the top above the outlet \[m\].
    pub height: f64,
    /// Outlet shape.
    pub outlet: Outlet,
    /// Number of wall quads of a round hopper (≥ 3; ignored for square).
    pub segments: u32,
    /// Centre of the outlet \[m\].
    pub center: [f64; 3],
}

/// Funnel: a ring of wall quads from the outlet (at `center`) to the top (`height` above),
/// normals facing the axis (the side the particles are on).
pub fn hopper(p: &Hopper) -> Result<TriMesh, MeshError> {
    positive("--top-width", p.top_width)?;
    positive("--outlet-width", p.outlet_width)?;
    positive("--height", p.height)?;
    if p.outlet_width >= p.top_width {
        return Err(MeshError::parameter(
            "--outlet-width",
            p.outlet_width,
            format!("must be smaller than --top-width {}", p.top_width),
        ));
    }
    let center = finite3("--center", p.center)?;
    // Ring corners as (unit-width offset) pairs, counter-clockwise seen from above.
    let ring: Vec<[f64; 2]> = match p.outlet {
        Outlet::Square => vec![[0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [-0.5, -0.5]],
        Outlet::Round => {
            if !(3..=100_000).contains(&p.segments) {
                return Err(MeshError::parameter(
                    "--segments",
                    p.segments,
                    "must be between 3 and 100000",
                ));
            }
            (0..p.segments)
                .map(|k| {
                    let a = std::f64::consts::TAU * f64::from(k) / f64::from(p.segments);
                    [0.5 * a.cos(), 0.5 * a.sin()]
                })
                .collect()
        }
    };
    let m = ring.len() as u32;
    let mut vertices = Vec::with_capacity(2 * ring.len());
    for (width, z) in [(p.outlet_width, 0.0), (p.top_width, p.height)] {
        for q in &ring {
            vertices.push(add(center, [width * q[0], width * q[1], z]));
        }
    }
    let mut triangles = Vec::with_capacity(2 * ring.len());
    for k in 0..m {
        let (b0, b1) = (k, (k + 1) % m);
        let (t0, t1) = (b0 + m, b1 + m);
        triangles.push([b0, t1, b1]);
        triangles.push([b0, t0, t1]);
    }
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// Parameters of [`staircase`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Staircase {
    /// Number of steps (treads), ≥ 1.
    pub steps: u32,
    /// Height of each riser \[m\].
    pub rise: f64,
    /// Depth of each tread along x \[m\].
    pub run: f64,
    /// Width along y \[m\].
    pub width: f64,
    /// Back edge of the first tread, on the centre line \[m\].
    pub origin: [f64; 3],
}

/// Staircase descending along +x (seed 004 §8.3): tread `i` spans `x ∈ [i·run, (i+1)·run]`,
/// `y ∈ [−width/2, width/2]` at height `−i·rise` relative to `origin`, normal +z; a riser
/// (normal +x) joins consecutive treads. Every tread and riser is two triangles:
/// `steps` treads and `steps − 1` risers, sharing their edges.
pub fn staircase(p: &Staircase) -> Result<TriMesh, MeshError> {
    if !(1..=100_000).contains(&p.steps) {
        return Err(MeshError::parameter(
            "--steps",
            p.steps,
            "must be between 1 and 100000",
        ));
    }
    positive("--rise", p.rise)?;
    positive("--run", p.run)?;
    positive("--width", p.width)?;
    let origin = finite3("--origin", p.origin)?;
    let hw = 0.5 * p.width;
    let mut vertices = Vec::with_capacity(4 * p.steps as usize);
    for i in 0..p.steps {
        let (x0, x1) = (f64::from(i) * p.run, f64::from(i + 1) * p.run);
        let z = -f64::from(i) * p.rise;
        for [x, y] in [[x0, -hw], [x1, -hw], [x1, hw], [x0, hw]] {
            vertices.push(add(origin, [x, y, z]));
        }
    }
    let mut triangles = Vec::with_capacity(4 * p.steps as usize);
    for i in 0..p.steps {
        let t = 4 * i; // back-left, front-left, front-right, back-right
        triangles.push([t, t + 1, t + 2]);
        triangles.push([t, t + 2, t + 3]);
        if i + 1 < p.steps {
            // Riser from tread i's front edge (top) down to tread i+1's back edge (bottom).
            let (low_l, low_r) = (t + 4, t + 7);
            let (high_l, high_r) = (t + 1, t + 2);
            triangles.push([low_l, low_r, high_r]);
            triangles.push([low_l, high_r, high_l]);
        }
    }
    Ok(TriMesh {
        vertices,
        triangles,
    })
}
