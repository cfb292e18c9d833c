//! Double-precision 3-vector helpers used inside the exact kernels.
//!
//! The public kernels take and return `f32` ([`P32`]); internally the comparison-based
//! kernels widen to `f64` so that the reference they provide stays accurate for slivers and
//! nearly parallel edges, where `f32` cancellation would dominate.

use crate::math::P32;

/// A point or vector in `f64` \[m\].
pub(crate) type V = [f64; 3];

#[inline(always)]
pub(crate) fn widen(p: P32) -> V {
    [p[0] as f64, p[1] as f64, p[2] as f64]
}

#[inline(always)]
pub(crate) fn narrow(p: V) -> P32 {
    [p[0] as f32, p[1] as f32, p[2] as f32]
}

#[inline(always)]
pub(crate) fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn scale(a: V, s: f64) -> V {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `a + s·d`.
#[inline(always)]
pub(crate) fn axpy(a: V, s: f64, d: V) -> V {
    [a[0] + s * d[0], a[1] + s * d[1], a[2] + s * d[2]]
}

#[inline(always)]
pub(crate) fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub(crate) fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub(crate) fn norm_sq(a: V) -> f64 {
    dot(a, a)
}

#[inline(always)]
pub(crate) fn dist_sq(a: V, b: V) -> f64 {
    norm_sq(sub(a, b))
}

/// Clamps to `[0, 1]`; maps NaN to 0 so that a degenerate quotient never escapes.
#[inline(always)]
pub(crate) fn clamp01(x: f64) -> f64 {
    if x > 0.0 {
        if x < 1.0 {
            x
        } else {
            1.0
        }
    } else {
        0.0
    }
}
