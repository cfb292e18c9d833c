//! Iterative triangle–triangle distance (seed 000 §3 "Iterative distance calculation",
//! eq. (3)/(4), Alg. 4 top), written over `L` lanes of pairs in lock-step
//! (struct-of-arrays) so that one code path serves the scalar call (`L = 1`) and the
//! batched stream (`L = 8`, see [`super::batch`]).
//!
//! **Unknowns.** Each triangle point is a barycentric combination `λ₀v₀ + λ₁v₁ + λ₂v₂`
//! (`λ ≥ 0`, `Σλ = 1`; eq. (3)'s `(a, b)` are `(λ₁, λ₂)`). `J = ½|d|²`, `d = p − q`.
//!
//! **Step (eq. (4)).** Per iteration each triangle in turn (Gauss–Seidel between the two)
//! moves its point towards the other one's current point:
//! 1. quadratic step with the triangle's own 2×2 block of the Hessian of `J` (the Gram
//!    matrix of its edges, regularised relative to its diagonal): the exact minimiser over
//!    the triangle's plane; then the constraint step: negative barycentric coordinates are
//!    cut and the rest renormalised (where the penalty terms of eq. (3) push the iterate
//!    back). Kept only where it lowers `J`, so the iteration is monotone;
//! 2. three Newton steps with a diagonal Hessian along the barycentric edge directions
//!    (moving mass from `λᵢ` to `λⱼ` moves the point along `e = vⱼ − vᵢ`; the Hessian along
//!    it is `|e|²` + [`IterativeParams::regulariser`]), each followed by the constraint
//!    step (clamp to `[−λⱼ, λᵢ]`). These pairwise moves on the simplex polish the boundary
//!    cases that the cut-and-renormalise step only approximates, without stalling on the
//!    hypotenuse `a + b = 1`.
//!
//! The cross-triangle coupling is handled by alternation rather than by a simultaneous
//! (Jacobi) diagonal step: the latter oscillates for parallel triangles, where both points
//! move the full distance towards each other.
//!
//! **Start.** The closest of the closed-form feature candidates ([`super::features`]:
//! edges crossing the other face, vertices above the other face, the nine segment pairs),
//! computed in the lanes: exact up to `f32` rounding, so that on the traversal's real pair
//! stream every pair is decided by the certificate at the start (issue 15; before, the
//! start was the best vertex pair or vertex–face foot and 26 % of that stream ended
//! undecided after the four iterations). The iterations of eq. (4) run only when the
//! start leaves a lane of the pass undecided (slivers, degenerate triangles, rounding at
//! extreme size ratios), and only lanes undecided at the start take their result.
//!
//! **Convergence (Alg. 4 line 11).** Alg. 4 compares two successive values of `J`, a
//! squared length, with `Cε`, a length: the test depends on the unit of length, and a
//! small change of `J` does not mean `J` is near its minimum (diagonal steps crawl along
//! near-parallel edges). We use a sound length-valued test instead: for a unit axis `w`,
//! the separation `min w·t₁ − max w·t₂` of the two vertex sets is a lower bound of the
//! true distance; `lower` is its maximum over `w ∈ {d/|d|, n₁, n₂}` (both orientations;
//! the face normals keep the bound sharp when `|d|` is tiny against the triangles, e.g.
//! 1:1000 sizes in `f32`), and `upper = |d|` is an upper bound (`p`, `q` lie on their
//! triangles). The iterate is
//! converged iff `upper − max(lower, 0) ≤ C·ε` with `ε = margin / 2` the halo width and
//! `C` = [`IterativeParams::c`]; the distance is then known to within `C·ε`.
//! Classification, certain in both directions: `lower > margin` → `⊥`; converged ∧
//! `upper ≤ margin` → contact (a point pair within the margin exists, and the reported
//! one is within `C·ε` of the closest); otherwise `⊙` (not converged), including a
//! converged iterate with `lower ≤ margin < upper`: the pair straddles the margin and only
//! the exact kernel can decide it (the hybrid kernel's fallback). Before issue 15 such a
//! pair was answered `⊥`, which missed real contacts up to `C·ε` inside the margin
//! (measured on the Stanford bunny: 1–2 pairs per touching pose at 0.01996–0.019998 m for
//! a margin of 0.02 m, `benches/vs_parry.rs` of `msdem-tree`).

// Lane loops index several parallel arrays by the same lane/axis index on purpose: that is
// the struct-of-arrays form the vectoriser needs.
#![allow(clippy::needless_range_loop)]

use super::features::feature_start;
use super::lane::{combine, cross, dot, sub, Lane, Mask, V3};
use crate::math::Tri;

/// Parameters of the iterative kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterativeParams {
    /// Fixed number of iterations (Alg. 4 `N_iterative`; seed 000 uses 4), run on a pass
    /// of lanes only when the closed-form start left one of them undecided. Each
    /// iteration takes, per triangle, one 2×2-block Newton step and three one-dimensional
    /// ones.
    pub iterations: u32,
    /// Convergence constant `C`: converged iff the certified distance gap ≤ `C·ε`,
    /// `ε = margin / 2` \[dimensionless\].
    pub c: f32,
    /// Regulariser added to the diagonal Hessian (`α_regulariser` of eq. (4)) \[m²\]; only
    /// matters for zero-length edges.
    pub regulariser: f32,
    /// Run the batched lanes with AVX2 when the CPU has it (detected at run time; the
    /// results are bit-identical to the SSE2 baseline path). On by default since the
    /// closed-form start (issue 15): on the traversal's real pair stream the AVX2 copy
    /// takes ~0.7× the SSE2 one's time (`examples/pair_stream.rs`; with the former
    /// iteration-only kernel it measured ~20 % slower, the lane state spilling out of the
    /// 16 `ymm` registers).
    pub use_avx2: bool,
    /// Run the conservative separation pre-screen ([`super::screened_separated`]) before
    /// the kernel, for every [`super::KernelKind`] (in [`super::contact_with`] and
    /// [`super::PairBatch::run`]): pairs it proves separated are answered
    /// [`super::KernelResult::Separated`] at once and never enter the lanes or the exact
    /// kernel. On by default; off only to time the kernels alone.
    pub prescreen: bool,
}

impl Default for IterativeParams {
    fn default() -> Self {
        IterativeParams {
            iterations: 4,
            c: 0.05,
            regulariser: 1e-30,
            use_avx2: true,
            prescreen: true,
        }
    }
}

/// Lane result codes.
pub(crate) const CONTACT: u32 = 0;
/// Certainly separated.
pub(crate) const SEPARATED: u32 = 1;
/// Not converged.
pub(crate) const NOT_CONVERGED: u32 = 2;

/// `L` triangle pairs in struct-of-arrays layout: `v1[vertex][axis][lane]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes<const L: usize> {
    pub v1: [[[f32; L]; 3]; 3],
    pub v2: [[[f32; L]; 3]; 3],
    pub margin: [f32; L],
}

impl<const L: usize> Lanes<L> {
    /// All lanes zero (degenerate point triangles at the origin, margin 0).
    pub fn zeroed() -> Self {
        Lanes {
            v1: [[[0.0; L]; 3]; 3],
            v2: [[[0.0; L]; 3]; 3],
            margin: [0.0; L],
        }
    }

    /// Writes pair `(t1, t2, margin)` into lane `l`.
    #[inline]
    pub fn set(&mut self, l: usize, t1: &Tri, t2: &Tri, margin: f32) {
        for k in 0..3 {
            for a in 0..3 {
                self.v1[k][a][l] = t1.v[k][a];
                self.v2[k][a][l] = t2.v[k][a];
            }
        }
        self.margin[l] = margin;
    }

    /// Copies lane `from` of `src` into lane `l`.
    #[inline]
    pub fn copy_lane(&mut self, l: usize, src: &Lanes<L>, from: usize) {
        for k in 0..3 {
            for a in 0..3 {
                self.v1[k][a][l] = src.v1[k][a][from];
                self.v2[k][a][l] = src.v2[k][a][from];
            }
        }
        self.margin[l] = src.margin[from];
    }

    /// The two triangles of lane `l`.
    #[inline]
    pub fn get(&self, l: usize) -> (Tri, Tri) {
        let t = |v: &[[[f32; L]; 3]; 3]| Tri {
            v: [0, 1, 2].map(|k| [v[k][0][l], v[k][1][l], v[k][2][l]]),
        };
        (t(&self.v1), t(&self.v2))
    }
}

/// Per-lane output of [`solve_lanes`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneOut<const L: usize> {
    pub p: [[f32; L]; 3],
    pub q: [[f32; L]; 3],
    pub dist_sq: [f32; L],
    pub class: [u32; L],
    /// Certified lower bound of the distance (≥ 0) \[m\].
    pub lower: [f32; L],
}

/// One triangle's side of the lane state.
pub(crate) struct Side<const L: usize> {
    /// Vertices \[m\].
    pub v: [V3<L>; 3],
    /// Edge `k` from vertex `k` to vertex `k + 1`.
    pub e: [V3<L>; 3],
    /// `|e_k|²` \[m²\].
    pub len_sq: [Lane<L>; 3],
    /// `1 / (|e_k|² + α_regulariser)`: inverse diagonal Hessian along edge `k`.
    pub inv: [Lane<L>; 3],
    /// Regularised Gram matrix of `(v₁ − v₀, v₂ − v₀)`: `ee, ef, ff` and `1/det`.
    gram: [Lane<L>; 4],
    /// Unit normal (zero for degenerate triangles).
    pub n: V3<L>,
    /// Barycentric coordinates of the iterate.
    pub lam: [Lane<L>; 3],
    /// The iterate `Σ λₖ vₖ` \[m\].
    pt: V3<L>,
}

impl<const L: usize> Side<L> {
    #[inline(always)]
    fn new(v: &[[[f32; L]; 3]; 3], reg: f32) -> Self {
        // Explicit array literals rather than `[..].map(closure)`: the latter is not
        // always inlined and then passes the lane arrays through memory.
        let vk = |k: usize| [Lane(v[k][0]), Lane(v[k][1]), Lane(v[k][2])];
        let v: [V3<L>; 3] = [vk(0), vk(1), vk(2)];
        let e = [sub(&v[1], &v[0]), sub(&v[2], &v[1]), sub(&v[0], &v[2])];
        let reg = Lane::splat(reg);
        let len_sq = [dot(&e[0], &e[0]), dot(&e[1], &e[1]), dot(&e[2], &e[2])];
        let inv = [
            (len_sq[0] + reg).recip(),
            (len_sq[1] + reg).recip(),
            (len_sq[2] + reg).recip(),
        ];
        let f = [-e[2][0], -e[2][1], -e[2][2]];
        let ee = dot(&e[0], &e[0]);
        let ef = dot(&e[0], &f);
        let ff = dot(&f, &f);
        // Regularised (α_regulariser of eq. (4), relative here) so that degenerate
        // triangles give a finite step, which the constraint step then clamps.
        let grow = Lane::splat(1.0 + 1e-6);
        let (eer, ffr) = (ee * grow + reg, ff * grow + reg);
        let idet = (eer * ffr - ef * ef).recip();
        let c = cross(&e[0], &f);
        let len = dot(&c, &c).sqrt();
        let zero = Lane::splat(0.0);
        let inv_len = len.gt(zero).select(len.recip(), zero);
        Side {
            v,
            e,
            len_sq,
            inv,
            gram: [eer, ef, ffr, idet],
            n: [c[0] * inv_len, c[1] * inv_len, c[2] * inv_len],
            // Vertex 0 until a start candidate is taken: the iterate always lies on the
            // triangle (where every candidate's squared distance overflows `f32` or is
            // NaN, none compares below the infinite initial best, and the iterate must
            // then stay undecided, never a contact at the origin).
            lam: [Lane::splat(1.0), zero, zero],
            pt: [zero; 3],
        }
    }

    /// Barycentric coordinates of the projection of `y` onto this triangle's plane (the
    /// exact minimiser of the quadratic over the plane: a Newton step with this triangle's
    /// 2×2 block of the Hessian), unclamped.
    #[inline(always)]
    pub(crate) fn plane_coords(&self, y: &V3<L>) -> [Lane<L>; 3] {
        let r = sub(y, &self.v[0]);
        let re = dot(&r, &self.e[0]);
        let rf = -dot(&r, &self.e[2]);
        let [ee, ef, ff, idet] = self.gram;
        let a = (ff * re - ef * rf) * idet;
        let b = (ee * rf - ef * re) * idet;
        [Lane::splat(1.0) - a - b, a, b]
    }

    /// Quadratic step with this triangle's 2×2 Hessian block towards `y`, followed by the
    /// constraint step (negative coordinates cut, the rest renormalised onto the simplex);
    /// kept only where it brings the iterate closer to `y`, so the iteration is monotone.
    #[inline(always)]
    fn block_step(&mut self, y: &V3<L>) {
        let zero = Lane::splat(0.0);
        let c = self.plane_coords(y);
        let c = [c[0].max(zero), c[1].max(zero), c[2].max(zero)];
        let inv = (c[0] + c[1] + c[2]).recip();
        let c = [c[0] * inv, c[1] * inv, c[2] * inv];
        let new = combine(&c, &self.v);
        let dn = sub(&new, y);
        let dold = sub(&self.pt, y);
        let take = dot(&dn, &dn).lt(dot(&dold, &dold));
        for k in 0..3 {
            self.lam[k] = take.select(c[k], self.lam[k]);
            self.pt[k] = take.select(new[k], self.pt[k]);
        }
    }

    /// Three one-dimensional Newton steps along the edges towards `y` (diagonal Hessian
    /// `|e|²`), each clamped to the simplex (the constraint step).
    #[inline(always)]
    fn edge_steps(&mut self, y: &V3<L>) {
        for k in 0..3 {
            let j = (k + 1) % 3;
            let de = dot(&sub(&self.pt, y), &self.e[k]);
            let t = (-(de * self.inv[k])).min(self.lam[k]).max(-self.lam[j]);
            self.lam[k] -= t;
            self.lam[j] += t;
            for a in 0..3 {
                self.pt[a] += t * self.e[k][a];
            }
        }
    }
}

/// Separation of the two vertex sets along unit axis `w` (either orientation), measured
/// from `r` to limit cancellation: a lower bound of the distance.
#[inline(always)]
fn separation<const L: usize>(s1: &Side<L>, s2: &Side<L>, r: &V3<L>, w: &V3<L>) -> Lane<L> {
    let a = [
        dot(w, &sub(&s1.v[0], r)),
        dot(w, &sub(&s1.v[1], r)),
        dot(w, &sub(&s1.v[2], r)),
    ];
    let b = [
        dot(w, &sub(&s2.v[0], r)),
        dot(w, &sub(&s2.v[1], r)),
        dot(w, &sub(&s2.v[2], r)),
    ];
    let (amin, amax) = (a[0].min(a[1]).min(a[2]), a[0].max(a[1]).max(a[2]));
    let (bmin, bmax) = (b[0].min(b[1]).min(b[2]), b[0].max(b[1]).max(b[2]));
    (amin - bmax).max(bmin - amax)
}

/// Runs the iterative kernel on all `L` lanes in lock-step. All arithmetic goes through
/// [`Lane`], whose operations are branch-free loops over the lanes: for `L = 8` the compiler
/// emits packed SSE (`mulps`, `addps`, `minps`/`maxps`, `cmpltps` + `andps`/`andnps`
/// blends) on the x86-64 baseline; checked with
/// `cargo rustc --release -p msdem-geom --lib -- --emit asm` on [`solve_batch`].
#[inline(always)]
pub(crate) fn solve_lanes<const L: usize>(x: &Lanes<L>, prm: &IterativeParams) -> LaneOut<L> {
    let mut s1 = Side::new(&x.v1, prm.regulariser);
    let mut s2 = Side::new(&x.v2, prm.regulariser);
    let margin = Lane(x.margin);
    feature_start(&mut s1, &mut s2);
    s1.pt = combine(&s1.lam, &s1.v);
    s2.pt = combine(&s2.lam, &s2.v);
    let mut cert = certify(&s1, &s2, margin, prm.c);

    // The iterations only where the start left a lane undecided; lanes decided by the
    // start keep its answer, so a pair's result does not depend on its lane neighbours
    // (the scalar call and the batch agree bit for bit).
    if prm.iterations > 0 && !cert.decided.all() {
        let (p0, q0) = (s1.pt, s2.pt);
        for _ in 0..prm.iterations {
            s1.block_step(&s2.pt);
            s1.edge_steps(&s2.pt);
            s2.block_step(&s1.pt);
            s2.edge_steps(&s1.pt);
        }
        let again = certify(&s1, &s2, margin, prm.c);
        let keep = cert.decided;
        for k in 0..3 {
            s1.pt[k] = keep.select(p0[k], s1.pt[k]);
            s2.pt[k] = keep.select(q0[k], s2.pt[k]);
        }
        cert = Certificate {
            dsq: keep.select(cert.dsq, again.dsq),
            lower: keep.select(cert.lower, again.lower),
            separated: keep.select_mask(cert.separated, again.separated),
            contact: keep.select_mask(cert.contact, again.contact),
            decided: keep.or(again.decided),
        };
    }

    let mut class = [NOT_CONVERGED; L];
    for l in 0..L {
        class[l] = if cert.separated.0[l] {
            SEPARATED
        } else if cert.contact.0[l] {
            CONTACT
        } else {
            NOT_CONVERGED
        };
    }
    LaneOut {
        p: [s1.pt[0].0, s1.pt[1].0, s1.pt[2].0],
        q: [s2.pt[0].0, s2.pt[1].0, s2.pt[2].0],
        dist_sq: cert.dsq.0,
        class,
        lower: cert.lower.0,
    }
}

/// The certificate of the current iterate (see the module docs).
struct Certificate<const L: usize> {
    /// `|p − q|²` \[m²\].
    dsq: Lane<L>,
    /// Certified lower bound of the distance (≥ 0) \[m\].
    lower: Lane<L>,
    /// `lower > margin`.
    separated: Mask<L>,
    /// Converged and `upper ≤ margin`.
    contact: Mask<L>,
    /// `separated` or `contact`.
    decided: Mask<L>,
}

#[inline(always)]
fn certify<const L: usize>(s1: &Side<L>, s2: &Side<L>, margin: Lane<L>, c: f32) -> Certificate<L> {
    let zero = Lane::splat(0.0);
    let d = sub(&s1.pt, &s2.pt);
    let dsq = dot(&d, &d);
    let upper = dsq.sqrt();
    let inv = upper.gt(zero).select(upper.recip(), zero);
    let u = [d[0] * inv, d[1] * inv, d[2] * inv];
    let lower = separation(s1, s2, &s2.pt, &u)
        .max(separation(s1, s2, &s2.pt, &s1.n))
        .max(separation(s1, s2, &s2.pt, &s2.n))
        .max(zero);
    let tol = margin * Lane::splat(c * 0.5);
    let converged: Mask<L> = (upper - lower).le(tol);
    let separated = lower.gt(margin);
    let contact = converged.and(upper.le(margin));
    Certificate {
        dsq,
        lower,
        separated,
        contact,
        decided: separated.or(contact),
    }
}

/// [`solve_lanes`] for the batch width (monomorphised here, once, so that the batched code
/// is compiled and checked in this crate whatever the caller's tag type).
///
/// On x86-64 CPUs with AVX2 (detected at run time, never required at compile time) and
/// with [`IterativeParams::use_avx2`], a copy compiled for AVX2 runs the 8 lanes in one
/// 256-bit register per value instead of two SSE registers. Results are bit-identical: the
/// same IEEE operations in the same order (no FMA contraction happens without fast-math).
#[inline(never)]
pub(crate) fn solve_batch(
    x: &Lanes<{ super::batch::LANES }>,
    prm: &IterativeParams,
) -> LaneOut<{ super::batch::LANES }> {
    #[cfg(target_arch = "x86_64")]
    if prm.use_avx2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { solve_batch_avx2(x, prm) };
    }
    solve_lanes(x, prm)
}

/// [`solve_lanes`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn solve_batch_avx2(
    x: &Lanes<{ super::batch::LANES }>,
    prm: &IterativeParams,
) -> LaneOut<{ super::batch::LANES }> {
    solve_lanes(x, prm)
}
