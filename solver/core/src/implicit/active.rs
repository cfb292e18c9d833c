//! Active set of one particle pair for multiscale Picard (seed 000 Alg. 6, remarks 4–6).
//!
//! The active set `𝔸(p_i, p_j) × 𝔸(p_j, p_i)` is kept *pair-wise*: as the set of element
//! pairs (surrogate node or real triangle of either side) still to be checked, i.e. a cut
//! through the tree of simultaneous descent that Alg. 5 walks ([`msdem_tree::traverse`]:
//! a surrogate pair in contact is replaced by the pairs of the larger side's children).
//! The cut is stored explicitly as the unfolded part of that descent tree; its leaves are
//! the active pairs. Per Picard iteration:
//!
//! * [`ActiveSet::check`] runs the kernel on every active pair (the iteration's contact
//!   detection): real–real pairs give contacts (exact fallback only there, Cor. 5.3);
//!   surrogate pairs in contact additionally give a force *estimate* when the inner halos
//!   `E = ε − h` guarantee a real contact (poster §4, see [`CoarseHit`]);
//! * [`ActiveSet::update`] **widens** every surrogate pair that was in contact or not
//!   converged by one level (its children are checked in the *next* iteration: at most one
//!   level per Picard step) and **narrows** a group of sibling pairs back to their parent
//!   when none of them contributes (all separated or real without contact). The parent is
//!   checked first and replaces its children only if it is separated itself: the paper's
//!   order (replace, check in the next iteration, re-widen if in contact) would re-widen at
//!   once in that case, so a parent found in contact is vetoed for the rest of the step
//!   instead. A parent that is widened again after a narrowing is remembered (memory set
//!   `𝕌`, remark 5) and never narrowed again, which rules out cycles (Cor. 5.10).
//!
//! Remark 6 (consistency with the tree when nodes hold several triangles): a node's pair
//! and its descendants are never active together, and siblings (e.g. all real triangles
//! of a leaf) enter and leave the set together — by construction of the explicit cut;
//! [`ActiveSet::validate`] checks it.
//!
//! Because the cut always covers every real triangle pair, a terminated iteration (no
//! active surrogate pair in contact) has found exactly the flat contacts (Lemma 5.7).

use msdem_geom::kernel::{IterativeParams, KernelKind, PairBatch, PairOutcome};
use msdem_geom::math::{Iso3, Tri, P32};
use msdem_tree::{LevelStats, SurrogateTree, TriContact};
use std::collections::VecDeque;

mod kernel;
mod validate;

use kernel::{batch_kind, check_single, classify, prepare, CHUNK};

/// One side of an active pair: an internal tree node (its surrogate triangle) or a real
/// triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// Node index (surrogate) or soup index (real triangle).
    pub index: u32,
    /// Tree level (a real triangle has the level of its leaf).
    pub level: u32,
    /// True for a real mesh triangle.
    pub real: bool,
}

impl Element {
    fn key(&self) -> u64 {
        u64::from(self.index) << 1 | u64::from(self.real)
    }
}

/// Result of the last check of an active pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not checked yet (fresh after a widening or narrowing).
    Unchecked,
    /// Surrogate pair separated: the subtrees cannot touch.
    Separated,
    /// Surrogate pair in contact or not converged: widen.
    Widen,
    /// Real–real pair in contact.
    FineContact,
    /// Real–real pair without contact.
    FineNone,
}

/// A surrogate-level contact whose inner halos guarantee a real contact (poster §4), in
/// A's mesh frame: the fine distance is at most `d + h_a + h_b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoarseHit {
    /// Closest point on A's element \[m\].
    pub p: P32,
    /// Closest point on B's element \[m\].
    pub q: P32,
    /// Upper bound of the real triangles' distance `d + h_a + h_b` \[m\] (≤ margin).
    pub dist: f32,
}

/// The geometry of one particle pair, in A's mesh frame.
#[derive(Clone, Copy, Debug)]
pub struct PairGeometry<'a> {
    /// A's tree.
    pub a: &'a SurrogateTree,
    /// A's halo \[m\].
    pub eps_a: f32,
    /// B's tree.
    pub b: &'a SurrogateTree,
    /// B's halo \[m\].
    pub eps_b: f32,
    /// B's mesh frame → A's mesh frame.
    pub b_to_a: Iso3,
    /// Triangle kernel: `Exact`, or `Hybrid` (iterative on surrogates, exact fallback on
    /// real pairs).
    pub kernel: KernelKind,
}

impl PairGeometry<'_> {
    fn halo(&self, e: Element, of_a: bool) -> (f32, f32) {
        let (tree, eps) = if of_a {
            (self.a, self.eps_a)
        } else {
            (self.b, self.eps_b)
        };
        if e.real {
            (eps, 0.0)
        } else {
            let n = &tree.nodes[e.index as usize];
            (n.offset + eps, n.inner)
        }
    }
}

/// Per-thread scratch: B's triangles transformed into A's frame, the kernel batch.
#[derive(Debug, Default)]
pub struct BCache {
    batch: PairBatch<u32>,
    results: Vec<PairOutcome<u32>>,
    tris: Vec<Tri>,
    stamp: Vec<u32>,
    current: u32,
}

impl BCache {
    fn begin(&mut self, len: usize) {
        if self.stamp.len() < len {
            self.stamp.resize(len, 0);
            self.tris.resize(len, Tri::default());
        }
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.current = 1;
        }
    }

    fn get(&mut self, b: &SurrogateTree, b_to_a: &Iso3, i: u32) -> Tri {
        let i = i as usize;
        if self.stamp[i] != self.current {
            self.stamp[i] = self.current;
            self.tris[i] = b.soup[i].transformed(b_to_a);
        }
        self.tris[i]
    }
}

#[derive(Clone, Copy, Debug)]
struct Pair {
    a: Element,
    b: Element,
    /// First child in the arena; children are contiguous.
    first: u32,
    /// Number of children; 0 = active.
    count: u32,
    outcome: Outcome,
    /// Re-unfolded after a narrowing (remark 5): never narrowed again.
    vetoed: bool,
}

/// Counts of one [`ActiveSet::update`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Active pairs replaced by their children (widening).
    pub unfolds: u32,
    /// Sibling groups replaced by their parent (narrowing).
    pub narrows: u32,
}

/// The active set of one particle pair (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct ActiveSet {
    /// Explicit descent tree; index 0 is a virtual root whose children are the root
    /// pairs. Empty = not initialised.
    nodes: Vec<Pair>,
    spare: Vec<Pair>,
    /// Memory set 𝕌: keys of pairs whose children were removed by a narrowing.
    memory: Vec<(u64, u64)>,
    queue: VecDeque<(u32, u32)>,
    kids_a: Vec<Element>,
    kids_b: Vec<Element>,
}

/// Elements replacing node `n` when it is unfolded: internal children and the real
/// triangles of leaf children (the same expansion as Alg. 5's traversal).
fn children(tree: &SurrogateTree, n: u32, out: &mut Vec<Element>) {
    let node = &tree.nodes[n as usize];
    for c in node.first..node.first + node.count {
        let ch = &tree.nodes[c as usize];
        if ch.is_leaf() {
            out.extend((ch.first..ch.first + ch.count).map(|t| Element {
                index: t,
                level: ch.level,
                real: true,
            }));
        } else {
            out.push(Element {
                index: c,
                level: ch.level,
                real: false,
            });
        }
    }
}

fn roots(tree: &SurrogateTree, out: &mut Vec<Element>) {
    let r = &tree.nodes[0];
    if r.is_leaf() {
        out.extend((r.first..r.first + r.count).map(|t| Element {
            index: t,
            level: 0,
            real: true,
        }));
    } else {
        out.push(Element {
            index: 0,
            level: 0,
            real: false,
        });
    }
}

fn fresh(a: Element, b: Element) -> Pair {
    Pair {
        a,
        b,
        first: 0,
        count: 0,
        outcome: Outcome::Unchecked,
        vetoed: false,
    }
}

impl ActiveSet {
    /// True once [`ActiveSet::reset`] has run.
    pub fn is_initialised(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Restarts from the root pairs (Alg. 6 line 1) and clears the memory set.
    pub fn reset(&mut self, g: &PairGeometry) {
        self.nodes.clear();
        self.memory.clear();
        self.nodes.push(fresh(
            Element {
                index: 0,
                level: 0,
                real: false,
            },
            Element {
                index: 0,
                level: 0,
                real: false,
            },
        ));
        if g.a.nodes.is_empty() || g.b.nodes.is_empty() {
            return;
        }
        self.kids_a.clear();
        self.kids_b.clear();
        roots(g.a, &mut self.kids_a);
        roots(g.b, &mut self.kids_b);
        self.nodes[0].first = 1;
        for &x in &self.kids_a {
            for &y in &self.kids_b {
                self.nodes.push(fresh(x, y));
            }
        }
        self.nodes[0].count = (self.nodes.len() - 1) as u32;
    }

    /// Clears the memory set and the vetoes (at the start of a time step).
    pub fn forget(&mut self) {
        self.memory.clear();
        self.nodes.iter_mut().for_each(|n| n.vetoed = false);
    }

    /// Number of active pairs.
    pub fn active_len(&self) -> usize {
        self.nodes.iter().skip(1).filter(|p| p.count == 0).count()
    }

    /// Checks every active pair (one Picard iteration's detection): real contacts go to
    /// `hits`, guaranteed surrogate contacts to `coarse`, kernel calls to `stats`.
    pub fn check(
        &mut self,
        g: &PairGeometry,
        cache: &mut BCache,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
        stats: &mut LevelStats,
    ) {
        cache.begin(g.b.soup.len());
        let kind = batch_kind(g.kernel);
        let mut i = 1;
        while i < self.nodes.len() {
            cache.batch.clear();
            while i < self.nodes.len() && cache.batch.len() < CHUNK {
                let pr = self.nodes[i];
                if pr.count == 0 {
                    let (t1, t2, margin, fine) = prepare(g, cache, pr.a, pr.b, stats);
                    cache.batch.push(&t1, &t2, margin, i as u32, fine);
                }
                i += 1;
            }
            let bs = cache
                .batch
                .run(kind, &IterativeParams::default(), &mut cache.results);
            stats.fallbacks += bs.fallbacks;
            for o in &cache.results {
                let n = &mut self.nodes[o.tag as usize];
                n.outcome = classify(g, n.a, n.b, o.result, hits, coarse);
            }
        }
    }

    /// Widens and narrows the set after a [`ActiveSet::check`] (see the module docs);
    /// narrowing attempts check the parent pair (counted in `stats`). Must follow
    /// `check` with the same geometry (it reuses `cache`).
    pub fn update(
        &mut self,
        g: &PairGeometry,
        cache: &mut BCache,
        stats: &mut LevelStats,
    ) -> UpdateCounts {
        let mut counts = UpdateCounts::default();
        if self.nodes.is_empty() {
            return counts;
        }
        let old = std::mem::take(&mut self.nodes);
        let mut new = std::mem::take(&mut self.spare);
        new.clear();
        new.push(old[0]);
        self.queue.clear();
        self.queue.push_back((0, 0));
        while let Some((oi, ni)) = self.queue.pop_front() {
            let o = old[oi as usize];
            let key = (o.a.key(), o.b.key());
            if o.count == 0 {
                if oi != 0 && o.outcome == Outcome::Widen {
                    self.expand(g, o.a, o.b);
                    let first = new.len() as u32;
                    for &x in &self.kids_a {
                        for &y in &self.kids_b {
                            new.push(fresh(x, y));
                        }
                    }
                    let count = (new.len() as u32) - first;
                    let n = &mut new[ni as usize];
                    n.first = first;
                    n.count = count;
                    n.outcome = Outcome::Unchecked;
                    // Remark 5: re-added after a narrowing → never narrowed again.
                    n.vetoed = o.vetoed || self.memory.binary_search(&key).is_ok();
                    counts.unfolds += 1;
                }
                continue;
            }
            let kids = &old[o.first as usize..(o.first + o.count) as usize];
            let idle = kids.iter().all(|k| {
                k.count == 0 && matches!(k.outcome, Outcome::Separated | Outcome::FineNone)
            });
            if oi != 0 && !o.vetoed && idle {
                // Narrowing: the parent replaces its children if it is separated itself
                // now; otherwise it would be widened again at once, so it is vetoed.
                let r = check_single(g, cache, o.a, o.b, stats);
                if r == Outcome::Separated {
                    let n = &mut new[ni as usize];
                    n.first = 0;
                    n.count = 0;
                    n.outcome = Outcome::Separated;
                    if let Err(pos) = self.memory.binary_search(&key) {
                        self.memory.insert(pos, key);
                    }
                    counts.narrows += 1;
                    continue;
                }
                new[ni as usize].vetoed = true;
            }
            let first = new.len() as u32;
            new.extend_from_slice(kids);
            new[ni as usize].first = first;
            for c in 0..o.count {
                self.queue.push_back((o.first + c, first + c));
            }
        }
        self.spare = old;
        self.nodes = new;
        counts
    }

    /// Children of the pair (`a`, `b`) in the descent: the side with the larger halo
    /// (or the surrogate side of a surrogate–real pair) is unfolded, as in Alg. 5.
    fn expand(&mut self, g: &PairGeometry, a: Element, b: Element) {
        let (h1, _) = g.halo(a, true);
        let (h2, _) = g.halo(b, false);
        let open_a = !a.real && (b.real || h1 >= h2);
        let open_b = !b.real && (a.real || h2 > h1);
        self.kids_a.clear();
        self.kids_b.clear();
        if open_a {
            children(g.a, a.index, &mut self.kids_a);
        } else {
            self.kids_a.push(a);
        }
        if open_b {
            children(g.b, b.index, &mut self.kids_b);
        } else {
            self.kids_b.push(b);
        }
    }
}
