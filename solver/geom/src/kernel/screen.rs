//! Conservative separation pre-screen run before the distance kernels (docs/design.md §4; a
//! separating-axis bound in the sense of the certificate of seed 000 Alg. 4 line 11, see
//! `iterative.rs`): pairs it proves farther apart than the margin never enter the SIMD
//! lanes or the exact kernel.
//!
//! **Bound.** For any vector `w ≠ 0`, the distance between triangles `T₁`, `T₂` is at least
//! `S(w)/|w|` with `S(w) = max(min_j w·b_j − max_i w·a_i, min_i w·a_i − max_j w·b_j)`
//! (`a_i`, `b_j` the vertices; projections are 1-Lipschitz and each triangle projects onto
//! the interval spanned by its vertices). The screen takes the largest bound over six
//! axes: the three coordinate axes (the bounding boxes), the centroid difference `c₂ − c₁`
//! and both face normals (the plane side test). In the traversal's leaf-level stream of the
//! `vs_parry` bench these reject ≈ 70 % of all checks, ≈ 90 % of the separated ones.
//!
//! **Rounding (why it is conservative in `f32`).** `w` is whatever `f32` vector was
//! computed; the bound above holds for it exactly, so only the evaluation of `S(w)` and
//! `|w|` is rounded. Projections are taken relative to `r = a₀`; with `u = 2⁻²⁴`,
//! `d = v − r`, each computed projection is within `(u + γ₃(1 + u))·Σₖ|wₖ||dₖ| ≤ 4.01u·|w|·D`
//! of `w·d` (Cauchy–Schwarz), where `D = max |v − r| ≤ E`, `E` the sum of the extents of the
//! union bounding box (all six vertices lie in it, `r` included). The final subtraction
//! adds `u|S|` with `|S| ≤ 2|w|D`, and `|w|` (a dot product and a square root) carries a
//! relative error `≤ 3u`. Hence the true `S/|w|` exceeds `margin` whenever the computed
//! `S̃ > |w̃|·(margin + 10⁻⁶·(margin + E))`: the total error is below
//! `(8.02u + 2u + 3u + 3u)·(margin + E)·|w| < 10⁻⁶·(margin + E)·|w|` (`u ≈ 5.96·10⁻⁸`),
//! the last `3u` covering the rounding of the right-hand side itself. For the coordinate
//! axes (`|w| = 1` exactly, no cancellation before the one subtraction) the same slack is
//! larger still than needed. NaN or infinite coordinates make every comparison false: such
//! pairs are never screened out and reach the kernels unchanged.

use super::iterative::Lanes;
use super::lane::{cross, dot, sub, Lane, Mask, V3};
use crate::math::Tri;

/// Relative slack of the screen (see the module docs: ≥ 16u of the `f32` unit roundoff).
const SLACK: f32 = 1e-6;

/// Whether the conservative pre-screen proves `t1` and `t2` farther apart than `margin`
/// \[m\] (then every kernel classifies the pair as separated). `false` means "unknown".
pub fn screened_separated(t1: &Tri, t2: &Tri, margin: f32) -> bool {
    let mut lanes = Lanes::<1>::zeroed();
    lanes.set(0, t1, t2, margin);
    screen_lanes(&lanes).0[0]
}

/// Separation `S(w)` of the two vertex sets along `w`, given relative to `r = a₀`
/// (`da = [a₁ − r, a₂ − r]`, `db = b − r`; the projection of `a₀ − r = 0` is 0).
#[inline(always)]
fn separation<const L: usize>(da: &[V3<L>; 2], db: &[V3<L>; 3], w: &V3<L>) -> Lane<L> {
    let zero = Lane::splat(0.0);
    let (pa1, pa2) = (dot(w, &da[0]), dot(w, &da[1]));
    let pb = [dot(w, &db[0]), dot(w, &db[1]), dot(w, &db[2])];
    let (amin, amax) = (zero.min(pa1).min(pa2), zero.max(pa1).max(pa2));
    let (bmin, bmax) = (pb[0].min(pb[1]).min(pb[2]), pb[0].max(pb[1]).max(pb[2]));
    (bmin - amax).max(amin - bmax)
}

/// The screen on `L` lanes: `true` where the pair is proven separated.
#[inline(always)]
pub(crate) fn screen_lanes<const L: usize>(x: &Lanes<L>) -> Mask<L> {
    screen_lanes_bound(x).0
}

/// [`screen_lanes`] and, per lane, the largest of the six separating-axis bounds
/// `S(w)/|w|` \[m\]: a lower bound of the distance up to the rounding analysed in the
/// module docs (at most `10⁻⁶·(margin + E)` above it; `-inf` where no axis is defined).
/// The screen's decisions do not depend on it.
#[inline(always)]
pub(crate) fn screen_lanes_bound<const L: usize>(x: &Lanes<L>) -> (Mask<L>, Lane<L>) {
    let vk = |v: &[[[f32; L]; 3]; 3], k: usize| [Lane(v[k][0]), Lane(v[k][1]), Lane(v[k][2])];
    let a: [V3<L>; 3] = [vk(&x.v1, 0), vk(&x.v1, 1), vk(&x.v1, 2)];
    let b: [V3<L>; 3] = [vk(&x.v2, 0), vk(&x.v2, 1), vk(&x.v2, 2)];
    let margin = Lane(x.margin);

    // Coordinate axes (bounding boxes) and the extent sum E of the union box.
    let mut aabb = Lane::splat(f32::NEG_INFINITY);
    let mut extent = Lane::splat(0.0);
    for k in 0..3 {
        let (amin, amax) = (
            a[0][k].min(a[1][k]).min(a[2][k]),
            a[0][k].max(a[1][k]).max(a[2][k]),
        );
        let (bmin, bmax) = (
            b[0][k].min(b[1][k]).min(b[2][k]),
            b[0][k].max(b[1][k]).max(b[2][k]),
        );
        aabb = aabb.max(bmin - amax).max(amin - bmax);
        extent += amax.max(bmax) - amin.min(bmin);
    }
    let bound = margin + Lane::splat(SLACK) * (margin + extent);
    let mut out = aabb.gt(bound);
    let mut best = aabb;

    // Centroid difference (×3) and the two face normals.
    let mut wc = [Lane::splat(0.0); 3];
    for k in 0..3 {
        wc[k] = (b[0][k] + b[1][k] + b[2][k]) - (a[0][k] + a[1][k] + a[2][k]);
    }
    let r = a[0];
    let da = [sub(&a[1], &r), sub(&a[2], &r)];
    let db = [sub(&b[0], &r), sub(&b[1], &r), sub(&b[2], &r)];
    let n1 = cross(&da[0], &da[1]);
    let n2 = cross(&sub(&db[1], &db[0]), &sub(&db[2], &db[0]));
    let zero = Lane::splat(0.0);
    for w in [&wc, &n1, &n2] {
        let s = separation(&da, &db, w);
        let len = dot(w, w).sqrt();
        out = out.or(s.gt(len * bound));
        best = best.max(len.gt(zero).select(s * len.recip(), best));
    }
    (out, best)
}

/// The screen's centroid axis alone (with the same slack), for candidates that were
/// already filtered by the coordinate axes and both face planes with a slack at least the
/// screen's (the grid pair-set query, `msdem-tree`'s `grid/query.rs`): the other five axes
/// would repeat those tests. `true` where the pair is proven separated; any subset of the
/// axes is as conservative as the whole screen.
#[inline(always)]
pub(crate) fn screen_centroid_lanes<const L: usize>(x: &Lanes<L>) -> Mask<L> {
    let vk = |v: &[[[f32; L]; 3]; 3], k: usize| [Lane(v[k][0]), Lane(v[k][1]), Lane(v[k][2])];
    let a: [V3<L>; 3] = [vk(&x.v1, 0), vk(&x.v1, 1), vk(&x.v1, 2)];
    let b: [V3<L>; 3] = [vk(&x.v2, 0), vk(&x.v2, 1), vk(&x.v2, 2)];
    let margin = Lane(x.margin);
    let mut extent = Lane::splat(0.0);
    let mut wc = [Lane::splat(0.0); 3];
    for k in 0..3 {
        let lo = a[0][k].min(a[1][k]).min(a[2][k]);
        let lo = lo.min(b[0][k]).min(b[1][k]).min(b[2][k]);
        let hi = a[0][k].max(a[1][k]).max(a[2][k]);
        let hi = hi.max(b[0][k]).max(b[1][k]).max(b[2][k]);
        extent += hi - lo;
        wc[k] = (b[0][k] + b[1][k] + b[2][k]) - (a[0][k] + a[1][k] + a[2][k]);
    }
    let bound = margin + Lane::splat(SLACK) * (margin + extent);
    let r = a[0];
    let da = [sub(&a[1], &r), sub(&a[2], &r)];
    let db = [sub(&b[0], &r), sub(&b[1], &r), sub(&b[2], &r)];
    let s = separation(&da, &db, &wc);
    s.gt(dot(&wc, &wc).sqrt() * bound)
}
