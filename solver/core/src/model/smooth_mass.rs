//! Mass properties of a smooth body (issue 14, `docs/design.md` §3, *Smooth surfaces*):
//! the solid the Phong surface of [`super::smooth`] bounds, not the polyhedron of its
//! facets.
//!
//! The solid is the polyhedron plus, over each curved triangle, its *cap*: the region
//! swept by the segment from a facet point `X(s, t)` to its curved point `X + D(s, t)`,
//! `x(s, t, σ) = X + σ·D`, `σ ∈ [0, 1]` (`D` the Phong offset, quadratic in `(s, t)` with
//! any corner shape factors `αᵢ`). Its
//! volume element is `J = (X_s + σD_s) × (X_t + σD_t) · D` (signed: a cap below its facet
//! counts negative), so `∫_cap f dV = ∫∫∫ f(x)·J dσ ds dt`. By the divergence theorem the
//! polyhedron plus the caps is the solid bounded by the curved triangles, closed by the
//! caps' side walls where two neighbours' curved edges differ (creases): the walls of an
//! edge shared by two curved triangles with the same edge curve cancel. Volume, first and
//! second moments: `J` has degree 4 in `(s, t)` and 2 in `σ`, the second moments' `x xᵀ`
//! 4 and 2, so a 5 × 5 collapsed Gauss–Legendre rule on the triangle (`t = (1 − s)·w`,
//! exact to degree 9 in `s`) times 3 Gauss points in `σ` (degree 5) integrates them exactly
//! up to rounding. A mesh without curved triangles (every corner normal its face's: cubes,
//! boxes) keeps the facets' mass properties bit for bit.

use msdem_geom::math::{Mat3, Vec3};
use msdem_tree::SurrogateTree;

use super::smooth::Corners;
use super::Shape;

/// Volume and moments of the caps of a mesh's curved triangles about a reference point
/// (unit density, mesh frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapMoments {
    /// Reference point \[m\] (the mean corner of the curved triangles).
    pub reference: Vec3,
    /// Signed volume of the caps \[m³\].
    pub volume: f64,
    /// `∫ (x − r) dV` over the caps \[m⁴\].
    pub first: Vec3,
    /// `∫ (x − r)(x − r)ᵀ dV` over the caps \[m⁵\].
    pub second: Mat3,
}

/// Gauss–Legendre nodes and weights on `[0, 1]`, 5 points (exact to degree 9).
fn gauss5() -> [(f64, f64); 5] {
    let a = (5.0 - 2.0 * (10.0f64 / 7.0).sqrt()).sqrt() / 3.0;
    let b = (5.0 + 2.0 * (10.0f64 / 7.0).sqrt()).sqrt() / 3.0;
    let wa = (322.0 + 13.0 * 70.0f64.sqrt()) / 900.0;
    let wb = (322.0 - 13.0 * 70.0f64.sqrt()) / 900.0;
    [(-b, wb), (-a, wa), (0.0, 128.0 / 225.0), (a, wa), (b, wb)]
        .map(|(x, w)| (0.5 * (1.0 + x), 0.5 * w))
}

/// Gauss–Legendre nodes and weights on `[0, 1]`, 3 points (exact to degree 5).
fn gauss3() -> [(f64, f64); 3] {
    let a = (0.6f64).sqrt();
    [(-a, 5.0 / 9.0), (0.0, 8.0 / 9.0), (a, 5.0 / 9.0)].map(|(x, w)| (0.5 * (1.0 + x), 0.5 * w))
}

/// The caps of the curved triangles of `tree` whose corner normals and shape factors are
/// `corners` (per soup triangle, `None` where flat; see the module docs); `None` without a
/// curved triangle.
pub fn cap_moments(tree: &SurrogateTree, corners: &[Option<Corners>]) -> Option<CapMoments> {
    let tri = |t: usize| {
        tree.soup[t]
            .v
            .map(|p| Vec3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])))
    };
    let curved: Vec<usize> = (0..tree.soup.len().min(corners.len()))
        .filter(|&t| corners[t].is_some())
        .collect();
    if curved.is_empty() {
        return None;
    }
    let mut reference = Vec3::zeros();
    for &t in &curved {
        let v = tri(t);
        reference += v[0] + v[1] + v[2];
    }
    reference /= (3 * curved.len()) as f64;
    let (g5, g3) = (gauss5(), gauss3());
    let mut caps = CapMoments {
        reference,
        volume: 0.0,
        first: Vec3::zeros(),
        second: Mat3::zeros(),
    };
    for &t in &curved {
        let Some(corner) = corners[t] else { continue };
        let (n, alpha) = (corner.normals, corner.alpha);
        let v = tri(t).map(|p| p - reference);
        let (e1, e2) = (v[1] - v[0], v[2] - v[0]);
        let (c1, c2) = (n.map(|ni| e1.dot(&ni)), n.map(|ni| e2.dot(&ni)));
        let (bs, bt) = ([-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]);
        let a = alpha.map(|x| -x);
        for &(s, ws) in &g5 {
            for &(w, ww) in &g5 {
                // Collapsed coordinates: t = (1 − s)·w, ds dt = (1 − s) ds dw.
                let tt = (1.0 - s) * w;
                let area = ws * ww * (1.0 - s);
                let x0 = v[0] + s * e1 + tt * e2;
                let b = [1.0 - s - tt, s, tt];
                let (mut d, mut ds, mut dt) = (Vec3::zeros(), Vec3::zeros(), Vec3::zeros());
                for i in 0..3 {
                    let c = (x0 - v[i]).dot(&n[i]);
                    d += (a[i] * b[i] * c) * n[i];
                    ds += (a[i] * (bs[i] * c + b[i] * c1[i])) * n[i];
                    dt += (a[i] * (bt[i] * c + b[i] * c2[i])) * n[i];
                }
                for &(sigma, wsig) in &g3 {
                    let jac = (e1 + sigma * ds).cross(&(e2 + sigma * dt)).dot(&d);
                    let weight = area * wsig * jac;
                    let x = x0 + sigma * d;
                    caps.volume += weight;
                    caps.first += weight * x;
                    caps.second += weight * (x * x.transpose());
                }
            }
        }
    }
    Some(caps)
}

/// Volume, centre of mass, inertia per unit density and bounding radius of a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProps {
    /// Volume \[m³\].
    pub volume: f64,
    /// Centre of mass in the shape's frame \[m\].
    pub com: Vec3,
    /// Inertia tensor about the centre of mass per unit density \[m⁵\].
    pub unit_inertia: Mat3,
    /// Bounding radius about the centre of mass \[m\].
    pub radius: f64,
}

/// `facets`' mass properties with `caps` added (see the module docs): the moments are
/// moved to the facets' centre of mass, summed, and taken about the new centre. The
/// bounding radius grows by the centre's shift (a bound about the new centre). `None`
/// when the result is not a positive finite volume with a finite inertia.
pub fn with_caps(facets: &MassProps, caps: &CapMoments) -> Option<MassProps> {
    let c0 = facets.com;
    // Second moment of the polyhedron about c0 from its inertia: I = tr(S)·1 − S.
    let s0 = Mat3::identity() * (0.5 * facets.unit_inertia.trace()) - facets.unit_inertia;
    let d = caps.reference - c0;
    let first = caps.first + caps.volume * d;
    let second = caps.second
        + caps.first * d.transpose()
        + d * caps.first.transpose()
        + caps.volume * (d * d.transpose());
    let volume = facets.volume + caps.volume;
    let shift = first / volume;
    let s = s0 + second - volume * (shift * shift.transpose());
    let unit_inertia = Mat3::identity() * s.trace() - s;
    let ok = volume.is_finite()
        && volume > 0.0
        && shift.iter().all(|x| x.is_finite())
        && unit_inertia.iter().all(|x| x.is_finite());
    ok.then(|| MassProps {
        volume,
        com: c0 + shift,
        unit_inertia,
        radius: facets.radius + shift.norm(),
    })
}

impl Shape {
    /// The shape's mass properties as stored (the facets' unless
    /// [`Shape::use_curved_mass`] replaced them).
    pub fn mass_props(&self) -> MassProps {
        MassProps {
            volume: self.volume,
            com: self.com,
            unit_inertia: self.unit_inertia,
            radius: self.radius,
        }
    }

    /// Mass properties of the solid the shape's curved surface bounds (see the module
    /// docs; the mesh's [`super::smooth::SmoothSurface`] must have been computed); `None`
    /// for a shape without curved triangles (or not a mesh), whose facets stay its surface.
    pub fn curved_mass(&self) -> Option<MassProps> {
        let smooth = &self.geometry.mesh()?.smooth;
        let caps = smooth.caps.as_ref()?;
        if smooth.caps_in_mass {
            return Some(self.mass_props());
        }
        with_caps(&self.mass_props(), caps)
    }

    /// Replaces the shape's volume, centre of mass, inertia and bounding radius by those of
    /// its curved surface ([`Shape::curved_mass`]) for particles of `surface: smooth`;
    /// returns whether they changed (not for a shape without curved triangles, nor a second
    /// time: [`super::smooth::SmoothSurface::caps_in_mass`] records it).
    pub fn use_curved_mass(&mut self) -> bool {
        let Some(m) = self.curved_mass() else {
            return false;
        };
        let super::Geometry::Mesh(mesh) = &mut self.geometry else {
            return false;
        };
        if mesh.smooth.caps_in_mass {
            return false;
        }
        std::sync::Arc::make_mut(&mut mesh.smooth).caps_in_mass = true;
        self.volume = m.volume;
        self.com = m.com;
        self.unit_inertia = m.unit_inertia;
        self.radius = m.radius;
        true
    }
}
