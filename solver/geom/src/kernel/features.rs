//! Closed-form feature candidates: the start of the iterative kernel
//! ([`super::iterative`], seed 000 §3 "Iterative distance calculation"), computed in the
//! same `f32` lanes.
//!
//! The distance of two triangles is attained by one of three kinds of feature pairs
//! (the case analysis of seed 000 §3 "Direct distance calculation", which the exact kernel
//! [`super::triangle_triangle_exact`] runs in `f64` with branches):
//! * an edge of one triangle crossing the other one (intersecting triangles, distance 0);
//! * a vertex whose foot on the other triangle's plane lies inside that triangle;
//! * two edges (segment–segment, which also covers vertex–edge and vertex–vertex).
//!
//! Here every candidate of every kind is evaluated branch-free on all lanes (6 edge–face
//! crossings, 6 vertex–face feet, 9 segment pairs) and the closest is kept as barycentric
//! coordinates on both triangles. Each candidate is a point pair on the two triangles
//! (convex combinations of their vertices), so whatever `f32` rounding does to the choice,
//! the kernel's certificate (`upper − lower` of the distance, see [`super::iterative`])
//! judges the result independently: rounding can make a pair undecided (then the
//! iteration and, for the hybrid kernel, the exact kernel take over), never wrong.
//!
//! Before this start (issue 15) it was the best vertex pair or vertex–face foot,
//! and the four iterations of eq. (4) had to find edge–edge optima and intersections: 26 %
//! of the traversal's real pair stream at touching poses ended undecided (mostly pairs
//! inside the margin with near-parallel faces and intersecting pairs) and fell back.

// Lane loops index parallel arrays by the same lane/axis index on purpose (struct of
// arrays).
#![allow(clippy::needless_range_loop)]

use super::iterative::Side;
use super::lane::{dot, sub, Lane, Mask, V3};

/// Sets `s1.lam`, `s2.lam` to the closest candidate pair of the module docs (ties: the
/// first taken; crossings come first, `t1`'s edges through `t2` before `t2`'s through
/// `t1`, as in the exact kernel, so that both report the same intersection point where
/// their `f32`/`f64` tests agree).
#[inline(always)]
pub(crate) fn feature_start<const L: usize>(s1: &mut Side<L>, s2: &mut Side<L>) {
    let mut best = Lane::splat(f32::INFINITY);
    let mut crossed = Mask([false; L]);
    face_candidates(s1, s2, &mut best, &mut crossed);
    face_candidates(s2, s1, &mut best, &mut crossed);
    edge_edge(s1, s2, &mut best);
}

/// One-hot-pair barycentric coordinates: `1 − s` at vertex `i`, `s` at `i + 1`.
#[inline(always)]
fn on_edge<const L: usize>(i: usize, s: Lane<L>) -> [Lane<L>; 3] {
    let zero = Lane::splat(0.0);
    let mut c = [zero; 3];
    c[i] = Lane::splat(1.0) - s;
    c[(i + 1) % 3] = s;
    c
}

/// Takes candidate (`ca` on `a`, `cb` on `b`) with squared distance `dsq` where `take`.
#[inline(always)]
fn keep<const L: usize>(
    a: &mut Side<L>,
    b: &mut Side<L>,
    take: Mask<L>,
    ca: &[Lane<L>; 3],
    cb: &[Lane<L>; 3],
    dsq: Lane<L>,
    best: &mut Lane<L>,
) {
    *best = take.select(dsq, *best);
    for k in 0..3 {
        a.lam[k] = take.select(ca[k], a.lam[k]);
        b.lam[k] = take.select(cb[k], b.lam[k]);
    }
}

/// The candidates of `a`'s features against `b`'s face: `a`'s edges crossing the inside of
/// `b` (the first crossing per lane is kept, in edge order, as by the exact kernel's
/// edge–plane test), then `a`'s vertices whose foot on `b`'s plane lies inside `b` (taken
/// where closer than `best`).
///
/// Shared work: the signed heights `hₖ = n_b·(aₖ − b₀)` of `a`'s vertices over `b`'s plane
/// and their feet's barycentric coordinates `cₖ` on `b`. A vertex's foot is at distance
/// `|hₖ|`; an edge `(i, j)` whose heights straddle 0 crosses the plane at
/// `t = hᵢ / (hᵢ − hⱼ)`, whose foot has coordinates `cᵢ + t·(cⱼ − cᵢ)` (the plane
/// coordinates are affine; renormalised to sum 1) and distance 0. These distances only
/// choose the candidate: the certificate measures the chosen point pair itself.
/// Degenerate `b` (zero normal) and edges in `b`'s plane (equal heights) give no
/// candidate here (the segment pairs cover them).
#[inline(always)]
fn face_candidates<const L: usize>(
    a: &mut Side<L>,
    b: &mut Side<L>,
    best: &mut Lane<L>,
    crossed: &mut Mask<L>,
) {
    let (zero, one) = (Lane::splat(0.0), Lane::splat(1.0));
    let h = [
        dot(&b.n, &sub(&a.v[0], &b.v[0])),
        dot(&b.n, &sub(&a.v[1], &b.v[0])),
        dot(&b.n, &sub(&a.v[2], &b.v[0])),
    ];
    let c = [
        b.plane_coords(&a.v[0]),
        b.plane_coords(&a.v[1]),
        b.plane_coords(&a.v[2]),
    ];
    let has_plane = dot(&b.n, &b.n).gt(zero);
    let inside = |c: &[Lane<L>; 3]| c[0].ge(zero).and(c[1].ge(zero)).and(c[2].ge(zero));
    for i in 0..3 {
        let j = (i + 1) % 3;
        let (hi, hj) = (h[i], h[j]);
        let straddles = (hi * hj).le(zero).and(hi.ne(hj));
        let t = (hi * (hi - hj).recip()).max(zero).min(one);
        let cx = [
            c[i][0] + t * (c[j][0] - c[i][0]),
            c[i][1] + t * (c[j][1] - c[i][1]),
            c[i][2] + t * (c[j][2] - c[i][2]),
        ];
        // Renormalised: far vertices (large `cₖ`) leave the interpolated sum visibly off
        // 1 in `f32`, and a point pair is only a certificate's upper bound if both
        // points are convex combinations of their triangle's vertices.
        let norm = (cx[0] + cx[1] + cx[2]).recip();
        let cx = [cx[0] * norm, cx[1] * norm, cx[2] * norm];
        let take = straddles
            .and(has_plane)
            .and(inside(&cx))
            .and(crossed.negate());
        *crossed = crossed.or(take);
        keep(a, b, take, &on_edge(i, t), &cx, zero, best);
    }
    for i in 0..3 {
        let s = h[i] * h[i];
        let mut ca = [zero; 3];
        ca[i] = one;
        let take = has_plane.and(inside(&c[i])).and(s.lt(*best));
        keep(a, b, take, &ca, &c[i], s, best);
    }
}

/// The nine segment pairs (closest points of two segments with clamping, the classic
/// two-step solution: the unconstrained parameter of `a`'s edge clamped, `b`'s parameter
/// for it clamped, then `a`'s recomputed for that and clamped). Parallel edges (zero
/// denominator) start from an end of `a`'s edge; near-parallel ones whose denominator
/// cancels still give a point pair on the edges, judged by the certificate.
#[inline(always)]
fn edge_edge<const L: usize>(s1: &mut Side<L>, s2: &mut Side<L>, best: &mut Lane<L>) {
    let (zero, one) = (Lane::splat(0.0), Lane::splat(1.0));
    let clamp = |x: Lane<L>| x.max(zero).min(one);
    for i in 0..3 {
        let d1 = s1.e[i];
        let aa = s1.len_sq[i];
        for j in 0..3 {
            let d2 = s2.e[j];
            let ee = s2.len_sq[j];
            let r = sub(&s1.v[i], &s2.v[j]);
            let b = dot(&d1, &d2);
            let c = dot(&d1, &r);
            let f = dot(&d2, &r);
            let denom = aa * ee - b * b;
            // Parallel edges (denominator 0) give ±inf or NaN here, which the clamp maps
            // into [0, 1] (`max` keeps 0 against NaN): any start on the edge will do.
            let s = clamp((b * f - c * ee) * denom.recip());
            let t = clamp((b * s + f) * s2.inv[j]);
            let s = clamp((b * t - c) * s1.inv[i]);
            let d: V3<L> = [
                r[0] + s * d1[0] - t * d2[0],
                r[1] + s * d1[1] - t * d2[1],
                r[2] + s * d1[2] - t * d2[2],
            ];
            let dsq = dot(&d, &d);
            keep(
                s1,
                s2,
                dsq.lt(*best),
                &on_edge(i, s),
                &on_edge(j, t),
                dsq,
                best,
            );
        }
    }
}
