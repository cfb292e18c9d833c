//! Closest points between two segments (one of the nine edge–edge tests of the
//! comparison-based kernel, seed 000 §3 "Direct distance calculation").

use super::vec64::{axpy, clamp01, dist_sq, dot, narrow, norm_sq, sub, widen, V};
use crate::math::P32;

/// Segments whose direction cross product is below this fraction (squared sine of the angle
/// between them below 1e-14) are treated as parallel.
const PARALLEL_SIN_SQ: f64 = 1e-14;

/// Closest points between segments `[p0, p1]` and `[q0, q1]`: the point on the first, the
/// point on the second and their squared distance \[m²\].
///
/// Minimises `|p0 + s(p1 − p0) − q0 − t(q1 − q0)|²` over `s, t ∈ [0, 1]` (computed in `f64`).
/// Robust for parallel segments (one optimal pair is returned; the distance is exact) and
/// for zero-length segments (treated as points). Never NaN for finite input.
pub fn closest_points_segments(p0: P32, p1: P32, q0: P32, q1: P32) -> (P32, P32, f32) {
    let (a, b, d) = closest_points_segments64(widen(p0), widen(p1), widen(q0), widen(q1));
    (narrow(a), narrow(b), d as f32)
}

/// `f64` core of [`closest_points_segments`].
pub(crate) fn closest_points_segments64(p0: V, p1: V, q0: V, q1: V) -> (V, V, f64) {
    let d1 = sub(p1, p0);
    let d2 = sub(q1, q0);
    let r = sub(p0, q0);
    let a = norm_sq(d1);
    let e = norm_sq(d2);
    let f = dot(d2, r);
    let (s, t) = if a <= 0.0 && e <= 0.0 {
        (0.0, 0.0)
    } else if a <= 0.0 {
        (0.0, clamp01(f / e))
    } else {
        let c = dot(d1, r);
        if e <= 0.0 {
            (clamp01(-c / a), 0.0)
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            // Parallel: any s works for the unclamped line problem; start from s = 0 and let
            // the clamping below pick the overlap or the nearest end points.
            let s0 = if denom > PARALLEL_SIN_SQ * a * e {
                clamp01((b * f - c * e) / denom)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                (clamp01(-c / a), 0.0)
            } else if t0 > 1.0 {
                (clamp01((b - c) / a), 1.0)
            } else {
                (s0, t0)
            }
        }
    };
    let cp = axpy(p0, s, d1);
    let cq = axpy(q0, t, d2);
    (cp, cq, dist_sq(cp, cq))
}
