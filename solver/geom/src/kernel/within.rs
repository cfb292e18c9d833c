//! Decision kernel for the pair-set query (issue 15): is the distance of two triangles
//! within the margin? Answered without closest points where a cheap bound settles it,
//! [`LANES`] pairs per SIMD pass; only the undecided pairs need a distance kernel.
//!
//! * **Out** (distance > margin): the conservative separating-axis pre-screen of
//!   `screen.rs` (coordinate axes, centroid axis, both face normals).
//! * **In** (distance ≤ margin): an upper bound of the distance (seed 000 §2: the
//!   distance is the smallest `|p − q|` over `p ∈ T₁`, `q ∈ T₂`, so any such pair bounds it
//!   from above). Twelve candidate pairs: each vertex of one triangle against its
//!   projection onto the other triangle's plane with the barycentric coordinates clamped
//!   into the triangle (the exact point–triangle distance where the projection lies
//!   inside, the vertex–face contacts of seed 000 §3), and each edge's crossing with the
//!   other triangle's plane (parameter clamped into the edge) against that point's clamped
//!   projection (distance ≈ 0 for intersecting triangles, the edge–plane crossings of
//!   seed 000 §3). Every candidate is a point of `T₁` and a point of `T₂` whatever the
//!   rounding of the projections, so the bound needs no case analysis.
//! * **Unknown**: neither; run a distance kernel.
//!
//! **Rounding.** The candidate points are formed as `b₀ + λ₁e₁ + λ₂e₂` with clamped
//! `λ₁, λ₂ ≥ 0`, `λ₁ + λ₂ ≤ 1` (up to one rounding of the normalisation), in `f32`: each
//! lies within `≈ 20u·M` of the triangle (`u = 2⁻²⁴`, `M` the largest absolute coordinate
//! of the six vertices), and the computed `|p − q|²` carries a relative error below `6u`.
//! "In" is answered only when the computed distance is at most
//! `margin − 4·10⁻⁶·(M + margin)` (`4·10⁻⁶ ≥ 64u`): the true distance is then below the
//! margin. Pairs within that slack of the margin stay unknown and go to the kernel, so
//! the decision never reports a pair a kernel would reject beyond its own rounding. NaN
//! coordinates make every comparison false: such pairs are never "in" (the screen never
//! calls them "out" either) and reach the kernels unchanged.

use super::batch::{PairBatch, LANES};
use super::iterative::Lanes;
use super::lane::{dot, sub, Lane, Mask, V3};
use super::screen::{screen_centroid_lanes, screen_lanes};
use crate::math::Tri;

/// Relative slack of the "in" answer (see the module docs).
const SLACK: f32 = 4e-6;

/// What the decision kernel knows about one pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// Distance ≤ margin, proven by an upper bound.
    In,
    /// Distance > margin, proven by a separating axis.
    Out,
    /// Neither bound settles it: a distance kernel must.
    Unknown,
}

/// The decision for one pair (`t1`, `t2`) and `margin` \[m\] (a single lane of the batched
/// kernel; for streams use [`PairBatch::decide`]).
pub fn within_margin(t1: &Tri, t2: &Tri, margin: f32) -> Within {
    let mut lanes = Lanes::<1>::zeroed();
    lanes.set(0, t1, t2, margin);
    let (inn, out) = decide_lanes(&lanes);
    classify(inn.0[0], out.0[0])
}

fn classify(inn: bool, out: bool) -> Within {
    if out {
        Within::Out
    } else if inn {
        Within::In
    } else {
        Within::Unknown
    }
}

/// One triangle prepared for clamped projections: `b₀`, edges `e₁ = b₁ − b₀`,
/// `e₂ = b₂ − b₀`, their Gram entries and `1 / det`.
struct Proj<const L: usize> {
    b0: V3<L>,
    e1: V3<L>,
    e2: V3<L>,
    d00: Lane<L>,
    d01: Lane<L>,
    d11: Lane<L>,
    inv: Lane<L>,
}

impl<const L: usize> Proj<L> {
    #[inline(always)]
    fn of(t: &[V3<L>; 3]) -> Self {
        let e1 = sub(&t[1], &t[0]);
        let e2 = sub(&t[2], &t[0]);
        let (d00, d01, d11) = (dot(&e1, &e1), dot(&e1, &e2), dot(&e2, &e2));
        let inv = (d00 * d11 - d01 * d01).recip();
        Proj {
            b0: t[0],
            e1,
            e2,
            d00,
            d01,
            d11,
            inv,
        }
    }

    /// Squared distance from `p` to a point of the triangle: the projection of `p` with
    /// its barycentric coordinates clamped (exact where the projection lies inside).
    #[inline(always)]
    fn dist_sq(&self, p: &V3<L>) -> Lane<L> {
        let zero = Lane::splat(0.0);
        let one = Lane::splat(1.0);
        let d = sub(p, &self.b0);
        let (d20, d21) = (dot(&d, &self.e1), dot(&d, &self.e2));
        // A degenerate triangle (`inv` infinite) gives NaN or infinite coordinates: `max`
        // maps NaN to 0 and `min` infinity to 1, so the point stays finite and on the
        // triangle.
        let v = ((self.d11 * d20 - self.d01 * d21) * self.inv)
            .max(zero)
            .min(one);
        let w = ((self.d00 * d21 - self.d01 * d20) * self.inv)
            .max(zero)
            .min(one);
        let s = v + w;
        let over = s.gt(one);
        let k = over.select(s.recip(), one);
        let (v, w) = (v * k, w * k);
        let mut r = zero;
        for (a, pa) in p.iter().enumerate() {
            let x = *pa - (self.b0[a] + v * self.e1[a] + w * self.e2[a]);
            r += x * x;
        }
        r
    }

    /// Squared distance bound for the edge `p0 → p1` of the other triangle: its crossing
    /// with this triangle's plane (parameter clamped into the edge) against that point's
    /// clamped projection.
    #[inline(always)]
    fn edge_dist_sq(&self, n: &V3<L>, p0: &V3<L>, p1: &V3<L>) -> Lane<L> {
        let zero = Lane::splat(0.0);
        let h0 = dot(n, &sub(p0, &self.b0));
        let h1 = dot(n, &sub(p1, &self.b0));
        // NaN (h0 = h1) clamps to 0: the edge's first end, still a point of the edge.
        let t = (h0 * (h0 - h1).recip()).max(zero).min(Lane::splat(1.0));
        let e = sub(p1, p0);
        let x = [p0[0] + t * e[0], p0[1] + t * e[1], p0[2] + t * e[2]];
        self.dist_sq(&x)
    }

    #[inline(always)]
    fn normal(&self) -> V3<L> {
        super::lane::cross(&self.e1, &self.e2)
    }
}

/// The decision on `L` lanes: (`in`, `out`) masks; `out` wins where both hold (they never
/// both hold beyond rounding; [`PairBatch::decide`] runs the bounds only where the screen
/// did not answer).
#[inline(always)]
pub(crate) fn decide_lanes<const L: usize>(x: &Lanes<L>) -> (Mask<L>, Mask<L>) {
    (upper_in(x), screen_lanes(x))
}

/// Where the upper bound of the distance proves the pair within its margin: the vertex
/// candidates first, the edge crossings only where a lane is still open.
#[inline(always)]
fn upper_in<const L: usize>(x: &Lanes<L>) -> Mask<L> {
    let inn = upper_in_stage::<L, false>(x);
    if inn.all() {
        return inn;
    }
    inn.or(upper_in_stage::<L, true>(x))
}

/// One stage of the upper bound: the six vertex candidates (`EDGES` false) or the six
/// edge crossings (`EDGES` true). A pair is "in" when either stage proves it (the bound
/// is the smaller of the two stages' smallest candidates).
#[inline(always)]
fn upper_in_stage<const L: usize, const EDGES: bool>(x: &Lanes<L>) -> Mask<L> {
    let vk = |v: &[[[f32; L]; 3]; 3], k: usize| [Lane(v[k][0]), Lane(v[k][1]), Lane(v[k][2])];
    let a: [V3<L>; 3] = [vk(&x.v1, 0), vk(&x.v1, 1), vk(&x.v1, 2)];
    let b: [V3<L>; 3] = [vk(&x.v2, 0), vk(&x.v2, 1), vk(&x.v2, 2)];
    let margin = Lane(x.margin);
    let mut mag = Lane::splat(0.0);
    for t in [&a, &b] {
        for v in t {
            for c in v {
                mag = mag.max(c.max(-*c));
            }
        }
    }
    let (pa, pb) = (Proj::of(&a), Proj::of(&b));
    let reach = margin - Lane::splat(SLACK) * (mag + margin);
    let reach_sq = reach
        .ge(Lane::splat(0.0))
        .select(reach * reach, Lane::splat(-1.0));
    // `candidate.min(best)`: a NaN candidate (non-finite input) never replaces the best.
    let mut best = Lane::splat(f32::INFINITY);
    if EDGES {
        let (na, nb) = (pa.normal(), pb.normal());
        for i in 0..3 {
            let j = (i + 1) % 3;
            best = pb.edge_dist_sq(&nb, &a[i], &a[j]).min(best);
            best = pa.edge_dist_sq(&na, &b[i], &b[j]).min(best);
        }
    } else {
        for i in 0..3 {
            best = pb.dist_sq(&a[i]).min(best);
            best = pa.dist_sq(&b[i]).min(best);
        }
    }
    best.le(reach_sq)
}

impl<T: Copy> PairBatch<T> {
    /// Runs the decision kernel on every pending pair: `out` is cleared and receives one
    /// [`Within`] per pair in push order. The batch is left unchanged. The screen runs on
    /// every pair; the pairs it cannot prove out are compacted into full lanes for the
    /// upper bounds.
    pub fn decide(&self, out: &mut Vec<Within>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { self.decide_avx2::<true>(out) };
            return;
        }
        self.decide_lanes::<true>(out);
    }

    /// [`PairBatch::decide`] for pairs already filtered by the caller with the coordinate
    /// axes (bounding boxes grown by at least the screen's slack) and both face planes
    /// (each triangle's vertices beyond the other's plane by at least that slack): of the
    /// screen only its centroid axis runs, the other five would repeat those filters. The
    /// answers are those of [`PairBatch::decide`] except that a pair the full screen
    /// would prove out may be "unknown" (never a wrong "in" or "out").
    pub fn decide_prefiltered(&self, out: &mut Vec<Within>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { self.decide_avx2::<false>(out) };
            return;
        }
        self.decide_lanes::<false>(out);
    }

    /// [`PairBatch::decide`] (`FULL`) or [`PairBatch::decide_prefiltered`] compiled for
    /// AVX2: the same IEEE operations lane by lane (no FMA contraction without fast-math),
    /// so bit-identical decisions.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    unsafe fn decide_avx2<const FULL: bool>(&self, out: &mut Vec<Within>) {
        self.decide_lanes::<FULL>(out);
    }

    /// The body of [`PairBatch::decide`]: the screen on every pair, the vertex candidates
    /// on the pairs it leaves (compacted into full lanes), the edge crossings on those the
    /// vertices leave (compacted again).
    #[inline(always)]
    fn decide_lanes<const FULL: bool>(&self, out: &mut Vec<Within>) {
        out.clear();
        let mut open = Open::new();
        let mut edges = Open::new();
        for (c, chunk) in self.lanes().iter().enumerate() {
            let n = (self.len() - c * LANES).min(LANES);
            let o = if FULL {
                screen_lanes(chunk)
            } else {
                screen_centroid_lanes(chunk)
            };
            for l in 0..n {
                if o.0[l] {
                    out.push(Within::Out);
                    continue;
                }
                out.push(Within::Unknown);
                if open.push(chunk, l, c * LANES + l) {
                    flush_stage::<false>(&mut open, Some(&mut edges), out);
                }
            }
        }
        flush_stage::<false>(&mut open, Some(&mut edges), out);
        flush_stage::<true>(&mut edges, None, out);
    }
}

/// Pairs compacted into full lanes, with their indices in the output.
struct Open {
    lanes: Lanes<LANES>,
    index: [usize; LANES],
    n: usize,
}

impl Open {
    #[inline(always)]
    fn new() -> Self {
        Open {
            lanes: Lanes::zeroed(),
            index: [0; LANES],
            n: 0,
        }
    }

    /// Appends lane `l` of `src` (pair `i`); `true` when the lanes are full.
    #[inline(always)]
    fn push(&mut self, src: &Lanes<LANES>, l: usize, i: usize) -> bool {
        self.lanes.copy_lane(self.n, src, l);
        self.index[self.n] = i;
        self.n += 1;
        self.n == LANES
    }
}

/// Runs one stage of the upper bound on the pending lanes of `open`: marks "in" those it
/// proves and passes the rest to `next` (the edge stage) when there is one.
#[inline(always)]
fn flush_stage<const EDGES: bool>(
    open: &mut Open,
    mut next: Option<&mut Open>,
    out: &mut [Within],
) {
    if open.n == 0 {
        return;
    }
    let inn = upper_in_stage::<LANES, EDGES>(&open.lanes);
    for l in 0..open.n {
        let i = open.index[l];
        if inn.0[l] {
            out[i] = Within::In;
        } else if let Some(next) = next.as_deref_mut() {
            if next.push(&open.lanes, l, i) {
                flush_stage::<true>(next, None, out);
            }
        }
    }
    open.n = 0;
}
