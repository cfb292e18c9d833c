//! Ellipsoid–triangle signed distance by feature decomposition over the support function.
//!
//! For convex A and triangle T, with `Φ(u) = h_A(u) + h_T(−u)` (the overlap of their
//! projections on the unit direction `u`), the signed distance is
//! `σ = −min_{|u|=1} Φ(u)`: the distance when separated, minus the translational
//! penetration depth when overlapping (the same quantity OpM minimises for two
//! ellipsoids). The minimiser's `u` has the triangle's support on a vertex, an edge or the
//! face, and on each of those pieces the problem is a classical exact one:
//!
//! * vertex `v`: `min_u h_A(u) − u·v` = −(signed distance from `v` to A) — Eberly's exact
//!   point–ellipsoid projection ([`crate::point_distance`]), `u` the normal at the foot;
//! * edge `vᵢvⱼ`: `u ⊥ (vⱼ − vᵢ)`; projecting along the edge turns A into an ellipse
//!   (matrix `Pᵀ M P`) and the edge into a point: the exact point–ellipse projection;
//! * face: `u = ±n`, the ellipsoid–plane formula.
//!
//! Every candidate `u` is then scored by the full `Φ(u)` and the smallest wins. Each score
//! is an upper bound of `min Φ`, so the reported penetration is never smaller than the
//! true translational depth; when separated (the convex case: the minimiser is the
//! unique nearest feature's optimum) the result is exact. When overlapping it is exact
//! whenever the minimising feature's own optimum lies in its region (always so for a
//! face contact or a shallow contact); otherwise a conservative over-estimate.
//! No iteration besides the bisections, deterministic, degenerate triangles (collinear
//! or coincident vertices) fall back to their edges and vertices.

use crate::contact::{Contact, Status};
use crate::math::{Iso3, Mat3, Point3, Real, Vec3};
use crate::point_distance::{closest_point_axis_aligned, signed_distance_point};
use crate::shape::Ellipsoid;

/// A triangle in world coordinates \[m\] (`f64`; see `From<&Tri>` for the `f32` soups).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// The three vertices \[m\].
    pub v: [Point3; 3],
}

impl Triangle {
    /// A triangle from three vertices \[m\].
    pub fn new(a: Point3, b: Point3, c: Point3) -> Self {
        Triangle { v: [a, b, c] }
    }

    /// `h_T(u) = max_k u·v_k` \[m\].
    pub fn support_value(&self, u: &Vec3) -> Real {
        self.v
            .iter()
            .map(|p| u.dot(&p.coords))
            .fold(Real::NEG_INFINITY, Real::max)
    }
}

impl From<&msdem_geom::math::Tri> for Triangle {
    fn from(t: &msdem_geom::math::Tri) -> Self {
        let p = |q: &[f32; 3]| Point3::new(q[0] as Real, q[1] as Real, q[2] as Real);
        Triangle::new(p(&t.v[0]), p(&t.v[1]), p(&t.v[2]))
    }
}

/// Candidate direction from the edge `(vᵢ, vⱼ)`: exact point–ellipse on the projection.
fn edge_candidate(m: &Mat3, centre: &Vec3, vi: &Point3, vj: &Point3) -> Option<Vec3> {
    let e = vj - vi;
    let len = e.norm();
    if !(len > 0.0) {
        return None;
    }
    let e = e / len;
    let helper = if e.x.abs() <= e.y.abs() && e.x.abs() <= e.z.abs() {
        Vec3::x()
    } else if e.y.abs() <= e.z.abs() {
        Vec3::y()
    } else {
        Vec3::z()
    };
    let p1 = e.cross(&helper).normalize();
    let p2 = e.cross(&p1);
    // Projected ellipse: centre, 2×2 matrix Pᵀ M P.
    let rel = centre - vi.coords;
    let c2 = [p1.dot(&rel), p2.dot(&rel)];
    let (m11, m12, m22) = (p1.dot(&(m * p1)), p1.dot(&(m * p2)), p2.dot(&(m * p2)));
    let theta = 0.5 * (2.0 * m12).atan2(m11 - m22);
    let (s, c) = theta.sin_cos();
    let mean = 0.5 * (m11 + m22);
    let half = (0.25 * (m11 - m22).powi(2) + m12 * m12).sqrt();
    let (l1, l2) = (mean + half, (mean - half).max(Real::MIN_POSITIVE));
    let axes = [l1.sqrt(), l2.sqrt()];
    // The edge's point (origin of the projection) in the ellipse's principal frame.
    let (qx, qy) = (-c2[0], -c2[1]);
    let local = [c * qx + s * qy, -s * qx + c * qy];
    let x = closest_point_axis_aligned(&axes, &local);
    let (gx, gy) = (x[0] / (axes[0] * axes[0]), x[1] / (axes[1] * axes[1]));
    let (nx, ny) = (c * gx - s * gy, s * gx + c * gy);
    let u = p1 * nx + p2 * ny;
    let n = u.norm();
    (n > 0.0 && n.is_finite()).then(|| u / n)
}

/// Ellipsoid A against triangle B: signed distance (gap > 0, −depth < 0), normal from the
/// triangle to the ellipsoid, witness points (`point_a` on A's surface, `point_b` on the
/// triangle for a separated pair, at the matching depth inside A for an overlapping one).
pub fn ellipsoid_triangle(a: &Ellipsoid, pose_a: &Iso3, tri: &Triangle) -> Contact {
    let m = a.shape_matrix(pose_a);
    let centre = pose_a.translation.vector;
    let h_a = |u: &Vec3| centre.dot(u) + u.dot(&(m * u)).max(0.0).sqrt();
    let phi = |u: &Vec3| h_a(u) + tri.support_value(&-u);

    let mut best: Option<(Real, Vec3)> = None;
    let mut consider = |u: Vec3| {
        if !u.iter().all(|x| x.is_finite()) {
            return;
        }
        let value = phi(&u);
        if best.is_none_or(|(b, _)| value < b) {
            best = Some((value, u));
        }
    };
    let normal = (tri.v[1] - tri.v[0]).cross(&(tri.v[2] - tri.v[0]));
    let area2 = normal.norm();
    if area2 > 0.0 {
        consider(normal / area2);
        consider(-normal / area2);
    }
    for k in 0..3 {
        if let Some(u) = edge_candidate(&m, &centre, &tri.v[k], &tri.v[(k + 1) % 3]) {
            consider(u);
        }
    }
    for v in &tri.v {
        consider(signed_distance_point(a, pose_a, v).normal);
    }
    let (value, u) = best.unwrap_or((phi(&Vec3::x()), Vec3::x()));
    let signed_distance = -value;
    let point_a = a.support_world(pose_a, &u);
    Contact {
        signed_distance,
        normal: -u,
        point_a,
        point_b: point_a + u * signed_distance,
        status: Status::Converged,
        iterations: 0,
    }
}
