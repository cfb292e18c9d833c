//! Comparison-based ("exact") triangle–triangle distance, seed 000 §3 "Direct distance
//! calculation": six point–triangle tests, nine edge–edge tests and the six edge–plane
//! crossings that detect intersecting triangles; the minimum of the candidates wins.

use super::closest_point_triangle::{closest_point_on_triangle64, tri64};
use super::segment_segment::closest_points_segments64;
use super::vec64::{axpy, cross, dot, narrow, norm_sq, sub, V};
use super::ClosestPair;
use crate::math::Tri;

/// A triangle whose squared normal is below this fraction of `|ab|²·|ac|²` has no usable
/// plane: edge–plane crossings against it are skipped (edge–edge tests then find contact).
const FLAT_SIN_SQ: f64 = 1e-14;

/// Exact closest points between triangles `t1` and `t2` (computed in `f64`, returned in
/// `f32`).
///
/// `p` lies on `t1`, `q` on `t2`, `dist_sq = |p − q|²` \[m²\]. If the triangles intersect,
/// `dist_sq = 0` and `p = q` is a point of the intersection. Degenerate triangles (points,
/// segments) are handled. Ties are broken by a fixed test order, so the result is
/// deterministic.
pub fn triangle_triangle_exact(t1: &Tri, t2: &Tri) -> ClosestPair {
    let (p, q, d) = triangle_triangle_exact64(tri64(t1), tri64(t2));
    ClosestPair {
        p: narrow(p),
        q: narrow(q),
        dist_sq: d as f32,
    }
}

/// `f64` core of [`triangle_triangle_exact`]: point on `t1`, point on `t2`, squared
/// distance \[m²\].
pub(crate) fn triangle_triangle_exact64(t1: [V; 3], t2: [V; 3]) -> (V, V, f64) {
    if let Some(x) = edge_piercing(t1, t2) {
        return (x, x, 0.0);
    }
    if let Some(x) = edge_piercing(t2, t1) {
        return (x, x, 0.0);
    }
    let mut best = (t1[0], t2[0], f64::INFINITY);
    let mut take = |p: V, q: V, d: f64| {
        if d < best.2 {
            best = (p, q, d);
        }
    };
    for &v in &t1 {
        let (q, d) = closest_point_on_triangle64(v, t2);
        take(v, q, d);
    }
    for &v in &t2 {
        let (p, d) = closest_point_on_triangle64(v, t1);
        take(p, v, d);
    }
    for i in 0..3 {
        let (p0, p1) = (t1[i], t1[(i + 1) % 3]);
        for j in 0..3 {
            let (q0, q1) = (t2[j], t2[(j + 1) % 3]);
            let (p, q, d) = closest_points_segments64(p0, p1, q0, q1);
            take(p, q, d);
        }
    }
    best
}

/// A point where an edge of `a` crosses the interior (or boundary) of triangle `b`, if any.
///
/// Edges lying in `b`'s plane are skipped: coplanar contact is found by the edge–edge and
/// point–triangle tests.
fn edge_piercing(a: [V; 3], b: [V; 3]) -> Option<V> {
    let ab = sub(b[1], b[0]);
    let ac = sub(b[2], b[0]);
    let n = cross(ab, ac);
    if norm_sq(n) <= FLAT_SIN_SQ * norm_sq(ab) * norm_sq(ac) {
        return None;
    }
    let h = [
        dot(sub(a[0], b[0]), n),
        dot(sub(a[1], b[0]), n),
        dot(sub(a[2], b[0]), n),
    ];
    if (h[0] > 0.0 && h[1] > 0.0 && h[2] > 0.0) || (h[0] < 0.0 && h[1] < 0.0 && h[2] < 0.0) {
        return None;
    }
    for i in 0..3 {
        let j = (i + 1) % 3;
        let (hu, hw) = (h[i], h[j]);
        let crosses = (hu <= 0.0 && hw >= 0.0) || (hu >= 0.0 && hw <= 0.0);
        if !crosses || hu == hw {
            continue;
        }
        let x = axpy(a[i], hu / (hu - hw), sub(a[j], a[i]));
        if inside_prism(x, b, n) {
            return Some(x);
        }
    }
    None
}

/// Whether `x` (assumed in the plane of `t`, normal `n`) lies inside `t` or on its boundary.
fn inside_prism(x: V, t: [V; 3], n: V) -> bool {
    (0..3).all(|i| {
        let e = sub(t[(i + 1) % 3], t[i]);
        dot(cross(e, sub(x, t[i])), n) >= 0.0
    })
}
