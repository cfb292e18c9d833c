//! Closest point on a segment to a point.

use super::vec64::{axpy, clamp01, dist_sq, dot, norm_sq, sub, V};

/// Closest point on segment `[a, b]` to `p` and the segment parameter `t ∈ [0, 1]` of it
/// (`a + t·(b − a)`). A zero-length segment returns `a` (`t = 0`).
#[inline]
pub(crate) fn closest_point_on_segment64(p: V, a: V, b: V) -> (V, f64) {
    let ab = sub(b, a);
    let len_sq = norm_sq(ab);
    let t = if len_sq > 0.0 {
        clamp01(dot(sub(p, a), ab) / len_sq)
    } else {
        0.0
    };
    (axpy(a, t, ab), t)
}

/// Closest point on segment `[a, b]` and squared distance \[m²\] to `p`.
#[inline]
pub(crate) fn point_segment64(p: V, a: V, b: V) -> (V, f64) {
    let (c, _) = closest_point_on_segment64(p, a, b);
    (c, dist_sq(p, c))
}
