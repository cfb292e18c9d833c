//! Closest point on a triangle to a point (one of the six point–triangle tests of the
//! comparison-based kernel, seed 000 §3 "Direct distance calculation").

use super::closest_point_segment::point_segment64;
use super::vec64::{axpy, cross, dist_sq, dot, narrow, norm_sq, scale, sub, widen, V};
use crate::math::{Tri, P32};

/// A triangle whose squared normal is below this fraction of `|ab|²·|ac|²` (sine of the
/// corner angle below 1e-7) is treated as degenerate: its closest point is searched on its
/// three edges only. The error of doing so is bounded by the triangle's width.
const DEGENERATE_SIN_SQ: f64 = 1e-14;

/// Closest point of triangle `t` to `p` and the squared distance \[m²\] between them.
///
/// Voronoi-region method (vertex, edge and face regions tested in turn); computed in `f64`
/// internally. Degenerate triangles (zero-length edges, collinear or coincident vertices)
/// and slivers are handled by falling back to the three edges, so the result is never NaN
/// for finite input.
pub fn closest_point_on_triangle(p: P32, t: &Tri) -> (P32, f32) {
    let (c, d) = closest_point_on_triangle64(widen(p), tri64(t));
    (narrow(c), d as f32)
}

/// Widens a triangle to `f64`.
#[inline(always)]
pub(crate) fn tri64(t: &Tri) -> [V; 3] {
    [widen(t.v[0]), widen(t.v[1]), widen(t.v[2])]
}

/// `f64` core of [`closest_point_on_triangle`]: closest point and squared distance \[m²\].
pub(crate) fn closest_point_on_triangle64(p: V, t: [V; 3]) -> (V, f64) {
    let [a, b, c] = t;
    let ab = sub(b, a);
    let ac = sub(c, a);
    let ap = sub(p, a);
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, dist_sq(p, a));
    }
    let bp = sub(p, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, dist_sq(p, b));
    }
    let cp = sub(p, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, dist_sq(p, c));
    }
    let n = cross(ab, ac);
    let n_sq = norm_sq(n);
    if n_sq <= DEGENERATE_SIN_SQ * norm_sq(ab) * norm_sq(ac) {
        return closest_on_edges(p, a, b, c);
    }
    // Signed (scaled) areas: vc for edge ab, vb for edge ac, va for edge bc.
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let den = d1 - d3;
        let v = if den > 0.0 { d1 / den } else { 0.0 };
        let q = axpy(a, v, ab);
        return (q, dist_sq(p, q));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let den = d2 - d6;
        let w = if den > 0.0 { d2 / den } else { 0.0 };
        let q = axpy(a, w, ac);
        return (q, dist_sq(p, q));
    }
    let va = d3 * d6 - d5 * d4;
    let e43 = d4 - d3;
    let e56 = d5 - d6;
    if va <= 0.0 && e43 >= 0.0 && e56 >= 0.0 {
        let den = e43 + e56;
        let w = if den > 0.0 { e43 / den } else { 0.0 };
        let q = axpy(b, w, sub(c, b));
        return (q, dist_sq(p, q));
    }
    // Face region: orthogonal projection onto the plane (better conditioned than the
    // barycentric quotients for thin triangles).
    let h = dot(ap, n) / n_sq;
    let q = sub(p, scale(n, h));
    let d = h * h * n_sq;
    debug_assert!(d.is_finite());
    (q, d)
}

/// Closest point over the three edges of a (degenerate) triangle.
fn closest_on_edges(p: V, a: V, b: V, c: V) -> (V, f64) {
    let mut best = point_segment64(p, a, b);
    for (s, e) in [(b, c), (c, a)] {
        let cand = point_segment64(p, s, e);
        if cand.1 < best.1 {
            best = cand;
        }
    }
    best
}
