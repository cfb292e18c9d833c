//! `L` single-precision values processed in lock-step (one per triangle pair).
//!
//! Every operation is one loop over the lanes with a branch-free body, so that after
//! inlining the compiler emits packed instructions (`mulps`, `minps`, `cmpltps`, blends) on
//! the x86-64 baseline (SSE2: two registers per 8 lanes) and on AVX targets alike.

// Lane loops index parallel arrays by the lane index on purpose.
#![allow(clippy::needless_range_loop)]

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// `L` lanes of `f32`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub(crate) struct Lane<const L: usize>(pub [f32; L]);

/// `L` lanes of booleans (comparison results).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub(crate) struct Mask<const L: usize>(pub [bool; L]);

macro_rules! lanewise {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
        let mut o = [0.0f32; L];
        for l in 0..L {
            let ($x, $y) = ($a.0[l], $b.0[l]);
            o[l] = $e;
        }
        Lane(o)
    }};
}

macro_rules! compare {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
        let mut o = [false; L];
        for l in 0..L {
            let ($x, $y) = ($a.0[l], $b.0[l]);
            o[l] = $e;
        }
        Mask(o)
    }};
}

impl<const L: usize> Lane<L> {
    /// All lanes `x`.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Lane([x; L])
    }

    /// Lane-wise minimum (`a < b ? a : b`, no NaN special case).
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        lanewise!(self, b, |x, y| if x < y { x } else { y })
    }

    /// Lane-wise maximum.
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        lanewise!(self, b, |x, y| if x > y { x } else { y })
    }

    /// Lane-wise square root.
    #[inline(always)]
    pub fn sqrt(self) -> Self {
        let mut o = [0.0f32; L];
        for l in 0..L {
            o[l] = self.0[l].sqrt();
        }
        Lane(o)
    }

    /// Lane-wise `1 / x`.
    #[inline(always)]
    pub fn recip(self) -> Self {
        let mut o = [0.0f32; L];
        for l in 0..L {
            o[l] = 1.0 / self.0[l];
        }
        Lane(o)
    }

    /// `self < b`.
    #[inline(always)]
    pub fn lt(self, b: Self) -> Mask<L> {
        compare!(self, b, |x, y| x < y)
    }

    /// `self <= b`.
    #[inline(always)]
    pub fn le(self, b: Self) -> Mask<L> {
        compare!(self, b, |x, y| x <= y)
    }

    /// `self > b`.
    #[inline(always)]
    pub fn gt(self, b: Self) -> Mask<L> {
        compare!(self, b, |x, y| x > y)
    }

    /// `self != b`.
    #[inline(always)]
    pub fn ne(self, b: Self) -> Mask<L> {
        compare!(self, b, |x, y| x != y)
    }

    /// `self >= b`.
    #[inline(always)]
    pub fn ge(self, b: Self) -> Mask<L> {
        compare!(self, b, |x, y| x >= y)
    }
}

impl<const L: usize> Mask<L> {
    /// `self ? a : b` lane-wise.
    #[inline(always)]
    pub fn select(self, a: Lane<L>, b: Lane<L>) -> Lane<L> {
        let mut o = [0.0f32; L];
        for l in 0..L {
            o[l] = if self.0[l] { a.0[l] } else { b.0[l] };
        }
        Lane(o)
    }

    /// `self ? a : b` lane-wise, for masks.
    #[inline(always)]
    pub fn select_mask(self, a: Mask<L>, b: Mask<L>) -> Mask<L> {
        let mut o = [false; L];
        for l in 0..L {
            o[l] = if self.0[l] { a.0[l] } else { b.0[l] };
        }
        Mask(o)
    }

    /// Lane-wise and.
    #[inline(always)]
    pub fn and(self, b: Self) -> Self {
        let mut o = [false; L];
        for l in 0..L {
            o[l] = self.0[l] & b.0[l];
        }
        Mask(o)
    }

    /// Lane-wise not.
    #[inline(always)]
    pub fn negate(self) -> Self {
        let mut o = [false; L];
        for l in 0..L {
            o[l] = !self.0[l];
        }
        Mask(o)
    }

    /// Whether every lane is set.
    #[inline(always)]
    pub fn all(self) -> bool {
        self.0.iter().all(|&x| x)
    }

    /// Lane-wise or.
    #[inline(always)]
    pub fn or(self, b: Self) -> Self {
        let mut o = [false; L];
        for l in 0..L {
            o[l] = self.0[l] | b.0[l];
        }
        Mask(o)
    }
}

impl<const L: usize> Add for Lane<L> {
    type Output = Self;
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        lanewise!(self, b, |x, y| x + y)
    }
}

impl<const L: usize> Sub for Lane<L> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        lanewise!(self, b, |x, y| x - y)
    }
}

impl<const L: usize> Mul for Lane<L> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        lanewise!(self, b, |x, y| x * y)
    }
}

impl<const L: usize> Neg for Lane<L> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        let mut o = [0.0f32; L];
        for l in 0..L {
            o[l] = -self.0[l];
        }
        Lane(o)
    }
}

impl<const L: usize> AddAssign for Lane<L> {
    #[inline(always)]
    fn add_assign(&mut self, b: Self) {
        *self = *self + b;
    }
}

impl<const L: usize> SubAssign for Lane<L> {
    #[inline(always)]
    fn sub_assign(&mut self, b: Self) {
        *self = *self - b;
    }
}

/// A 3-vector of lanes.
pub(crate) type V3<const L: usize> = [Lane<L>; 3];

/// Dot product.
#[inline(always)]
pub(crate) fn dot<const L: usize>(a: &V3<L>, b: &V3<L>) -> Lane<L> {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Difference `a − b`.
#[inline(always)]
pub(crate) fn sub<const L: usize>(a: &V3<L>, b: &V3<L>) -> V3<L> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Cross product.
#[inline(always)]
pub(crate) fn cross<const L: usize>(a: &V3<L>, b: &V3<L>) -> V3<L> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `Σ wₖ vₖ` over three points.
#[inline(always)]
pub(crate) fn combine<const L: usize>(w: &[Lane<L>; 3], v: &[V3<L>; 3]) -> V3<L> {
    let mut o = [Lane::splat(0.0); 3];
    for a in 0..3 {
        o[a] = w[0] * v[0][a] + w[1] * v[1][a] + w[2] * v[2][a];
    }
    o
}
