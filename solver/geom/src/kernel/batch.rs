//! Batched pair stream (seed 000 §5.4, Alg. 4): the traversal collects pending
//! triangle-pair checks in a [`PairBatch`] and runs them together; the iterative kernel
//! processes [`LANES`] pairs per pass in struct-of-arrays lanes.

use super::contact::exact_dist;
use super::iterative::{solve_batch, IterativeParams, Lanes, CONTACT, SEPARATED};
use super::screen::screen_lanes_bound;
use super::{ClosestPair, KernelKind, KernelResult};
use crate::math::Tri;

/// Pairs per SIMD pass of the iterative kernel (eight `f32`: one AVX register, two SSE
/// registers).
pub const LANES: usize = 8;

/// Outcome of one batched pair, in push order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairOutcome<T> {
    /// The caller's tag given to [`PairBatch::push`].
    pub tag: T,
    /// Kernel result.
    pub result: KernelResult,
    /// A lower bound of the pair's distance \[m\], up to the `f32` rounding of the
    /// computations that gave it (a few units in the last place of the coordinates): the
    /// largest of the pre-screen's six separating-axis bounds (with
    /// [`IterativeParams::prescreen`]) and the kernel's own — the exact distance where the
    /// exact kernel ran, the iterative kernel's separating-axis bound otherwise (valid
    /// whether or not the iteration converged: the separation of the vertex sets along
    /// the closest-point direction and both face normals). 0 where neither
    /// gives one.
    pub lower: f32,
}

/// Counters of one [`PairBatch::run`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Pairs processed.
    pub pairs: u64,
    /// Pairs that went through the iterative kernel.
    pub iterative: u64,
    /// Pairs that fell back to the exact kernel after the iterative one (hybrid, fine–fine).
    pub fallbacks: u64,
    /// Pairs that ran the exact kernel directly ([`KernelKind::Exact`]).
    pub exact: u64,
    /// Pairs left [`KernelResult::NotConverged`].
    pub not_converged: u64,
    /// Pairs answered [`KernelResult::Separated`] by the pre-screen alone
    /// ([`IterativeParams::prescreen`]).
    pub screened: u64,
}

impl BatchStats {
    /// Adds another set of counters.
    pub fn add(&mut self, o: &BatchStats) {
        self.pairs += o.pairs;
        self.iterative += o.iterative;
        self.fallbacks += o.fallbacks;
        self.exact += o.exact;
        self.not_converged += o.not_converged;
        self.screened += o.screened;
    }
}

/// A buffer of pending triangle-pair checks, stored directly in SIMD lane layout.
///
/// Reuse one batch across calls ([`PairBatch::clear`] keeps the allocation).
#[derive(Clone, Debug)]
pub struct PairBatch<T> {
    chunks: Vec<Lanes<LANES>>,
    tags: Vec<T>,
    fine: Vec<bool>,
}

impl<T: Copy> Default for PairBatch<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> PairBatch<T> {
    /// An empty batch.
    pub fn new() -> Self {
        PairBatch {
            chunks: Vec::new(),
            tags: Vec::new(),
            fine: Vec::new(),
        }
    }

    /// Number of pending pairs.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// Whether no pair is pending.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Removes all pairs (keeps the allocation).
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.tags.clear();
        self.fine.clear();
    }

    /// Queues the pair (`t1`, `t2`) with contact `margin` \[m\] (sum of the two halos) and a
    /// caller `tag`. `fine` says that both are real mesh triangles (fine–fine): only such
    /// pairs fall back to the exact kernel under [`KernelKind::Hybrid`]; a surrogate-level
    /// pair keeps [`KernelResult::NotConverged`], which the traversal treats as "unfold"
    /// (seed 000 Cor. 5.3).
    pub fn push(&mut self, t1: &Tri, t2: &Tri, margin: f32, tag: T, fine: bool) {
        let l = self.tags.len() % LANES;
        if l == 0 {
            self.chunks.push(Lanes::zeroed());
        }
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.set(l, t1, t2, margin);
        }
        self.tags.push(tag);
        self.fine.push(fine);
    }

    /// The pending pairs in lane layout ([`LANES`] per entry; the last may be partly
    /// filled).
    pub(super) fn lanes(&self) -> &[Lanes<LANES>] {
        &self.chunks
    }

    /// The two triangles and the margin of pending pair `i` (push order).
    pub fn pair(&self, i: usize) -> Option<(Tri, Tri, f32)> {
        let c = self.chunks.get(i / LANES)?;
        if i >= self.len() {
            return None;
        }
        let (t1, t2) = c.get(i % LANES);
        Some((t1, t2, c.margin[i % LANES]))
    }

    /// Runs only the separating-axis pre-screen on every pending pair: `out` is cleared
    /// and receives, per pair in push order, whether the screen proves it farther apart
    /// than its margin (then every kernel classifies it as separated) and the screen's
    /// best separating-axis lower bound of its distance \[m\] (up to `f32` rounding, see
    /// [`PairOutcome::lower`]; `-inf` where no axis gives one).
    pub fn screen(&self, out: &mut Vec<(bool, f32)>) {
        out.clear();
        for (c, chunk) in self.chunks.iter().enumerate() {
            let n = (self.len() - c * LANES).min(LANES);
            let (m, b) = screen_lanes_bound(chunk);
            out.extend((0..n).map(|l| (m.0[l], b.0[l])));
        }
    }

    /// Runs kernel `kind` on every pending pair; `results` is cleared and receives one
    /// outcome per pair in push order. The batch itself is left unchanged.
    ///
    /// With [`IterativeParams::prescreen`] the pairs that the conservative pre-screen
    /// proves separated are answered at once; the others are compacted into full lanes
    /// before the iterative kernel runs (or go to the exact kernel one by one).
    pub fn run(
        &self,
        kind: KernelKind,
        params: &IterativeParams,
        results: &mut Vec<PairOutcome<T>>,
    ) -> BatchStats {
        results.clear();
        results.extend(self.tags.iter().map(|&tag| PairOutcome {
            tag,
            result: KernelResult::Separated,
            lower: 0.0,
        }));
        let mut stats = BatchStats {
            pairs: self.len() as u64,
            ..BatchStats::default()
        };
        let mut pending = Pending {
            lanes: Lanes::zeroed(),
            index: [0; LANES],
            n: 0,
        };
        for (c, chunk) in self.chunks.iter().enumerate() {
            let base = c * LANES;
            let n = (self.len() - base).min(LANES);
            let (screened, bound) = if params.prescreen {
                let (m, b) = screen_lanes_bound(chunk);
                (m.0, b.0)
            } else {
                ([false; LANES], [0.0; LANES])
            };
            for l in 0..n {
                results[base + l].lower = bound[l];
                if screened[l] {
                    stats.screened += 1;
                    // The screen proved the distance above the margin; its own bound is
                    // at least that (up to rounding).
                    results[base + l].lower = bound[l].max(chunk.margin[l]);
                    continue;
                }
                if kind == KernelKind::Exact {
                    let (t1, t2) = chunk.get(l);
                    let (r, d) = exact_dist(&t1, &t2, chunk.margin[l]);
                    results[base + l].result = r;
                    results[base + l].lower = d.max(bound[l]);
                    stats.exact += 1;
                    continue;
                }
                pending.lanes.copy_lane(pending.n, chunk, l);
                pending.index[pending.n] = base + l;
                pending.n += 1;
                if pending.n == LANES {
                    self.solve(&pending, kind, params, results, &mut stats);
                    pending.n = 0;
                }
            }
        }
        if pending.n > 0 {
            self.solve(&pending, kind, params, results, &mut stats);
        }
        stats
    }

    /// Runs the iterative kernel on the first `p.n` compacted lanes and stores their
    /// outcomes (hybrid fallback for fine–fine pairs).
    fn solve(
        &self,
        p: &Pending,
        kind: KernelKind,
        params: &IterativeParams,
        results: &mut [PairOutcome<T>],
        stats: &mut BatchStats,
    ) {
        let o = solve_batch(&p.lanes, params);
        stats.iterative += p.n as u64;
        for l in 0..p.n {
            let i = p.index[l];
            results[i].lower = results[i].lower.max(o.lower[l]);
            results[i].result = match o.class[l] {
                CONTACT => KernelResult::Contact(ClosestPair {
                    p: [o.p[0][l], o.p[1][l], o.p[2][l]],
                    q: [o.q[0][l], o.q[1][l], o.q[2][l]],
                    dist_sq: o.dist_sq[l],
                }),
                SEPARATED => KernelResult::Separated,
                _ if kind == KernelKind::Hybrid && self.fine[i] => {
                    stats.fallbacks += 1;
                    let (t1, t2) = p.lanes.get(l);
                    let (r, d) = exact_dist(&t1, &t2, p.lanes.margin[l]);
                    results[i].lower = results[i].lower.max(d);
                    r
                }
                _ => {
                    stats.not_converged += 1;
                    KernelResult::NotConverged
                }
            };
        }
    }
}

/// Pairs that passed the pre-screen, compacted into one lane set.
struct Pending {
    lanes: Lanes<LANES>,
    /// Push index of each filled lane.
    index: [usize; LANES],
    /// Filled lanes (the rest hold stale pairs whose results are ignored).
    n: usize,
}
