//! Walks of an [`ActiveSet`]'s cut: the descent is regenerated from the trees in
//! depth-first order, matched against the stored preorder keys of unfolded pairs and the
//! stored active pairs, and written anew (start, certificate refresh, widening and
//! narrowing; see the parent module's docs). A widening/narrowing walk copies the
//! subtrees that hold nothing to widen or narrow instead of regenerating them (`span.rs`).

use super::certify::{certified, clearance_from, slack, tight_clearance};
use super::held::{self, Held};
use super::kernel::{check_single, count, pair_tris};
use msdem_geom::kernel::PairBatch;

use super::buffers::Buffers;
use super::direction::Expiry;
use super::element::{key, Element, Leaf, Outcome};
use super::expand::{expand, roots};
use super::geometry::{PairGeometry, Scratch};
use super::set::{store, ActiveSet, IterationReport};
use super::span::{close, copy, hot_prefix, min_cut, open, Old};

/// What a walk does at the leaves of the cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Start: unfold every surrogate pair the separating-axis screen does not prove
    /// separated (one full descent); clearances at the current (reference) pose.
    Seed,
    /// New clearances for every active pair at the current (reference) pose.
    Refresh,
    /// Widen the pairs found in contact, narrow idle sibling groups (`all`: every one, else
    /// those with a pair that became idle in this iteration), drop stored pairs that are
    /// certified beyond the skin.
    Update {
        /// Attempt every idle group (after a refresh).
        all: bool,
    },
    /// Store every active pair (the unstored ones with their certain outcome and an
    /// infinite clearance), for a check pass that re-checks all of them.
    Expand,
}

struct Ctx<'s, 'g> {
    g: &'s PairGeometry<'g>,
    mode: Mode,
    /// Motion since the reference pose \[m\].
    m: f64,
    skin: f32,
    /// Clearance beyond which an idle pair is not stored: the skin plus the set's shift.
    far: f32,
    /// The stored cut, leaves and spans being rewritten.
    old: Old<'s>,
    /// Expiries are carried (`ActiveSet::expiry`).
    track: bool,
    pos: usize,
    np: usize,
    memory: &'s mut Vec<u64>,
    vetoes: &'s mut Vec<u64>,
    /// Narrowing vetoes held across steps (`held.rs`), used where `hold`.
    held: &'s mut Held,
    hold: bool,
    leaves: u32,
    rep: &'s mut IterationReport,
}

fn insert_sorted(v: &mut Vec<u64>, k: u64) {
    if let Err(p) = v.binary_search(&k) {
        v.insert(p, k);
    }
}

impl Ctx<'_, '_> {
    /// A leaf of the new cut with clearance `c` and `state`; stored unless far.
    fn leaf(&mut self, buf: &mut Buffers, x: Element, y: Element, c: f32, state: Outcome) {
        self.leaves += 1;
        if !(state.idle() && c > self.far) {
            buf.near.push(Leaf::new(x, y, c, state));
            if self.track {
                buf.expiry.push(Expiry::NEW);
            }
        }
    }

    /// A stored leaf kept as it is (with its clearance and slack, its flags cleared);
    /// dropped if far, as [`Ctx::leaf`] drops.
    fn keep(&mut self, buf: &mut Buffers, e: Leaf, expiry: Expiry) {
        self.leaves += 1;
        if !(e.state.idle() && e.clear > self.far) {
            buf.near.push(Leaf { flags: 0, ..e });
            if self.track {
                buf.expiry.push(expiry);
            }
        }
    }

    /// Clearances of the pairs `kids` at the current pose after the motion `self.m` from
    /// the reference, into `out`, with whether the pair is certainly separated: the SIMD
    /// separating-axis screen of the kernel batch ([`PairBatch::screen`]) on every pair;
    /// its lower bound of each distance gives the clearance ([`clearance_from`]). No
    /// kernel runs here: a pair the screen does not separate is unfolded (surrogate, as
    /// Alg. 5's traversal does) or checked by the next check pass, whose kernel call
    /// tightens its clearance. Counted as `bounds`.
    fn clearances(
        &mut self,
        s: &mut Scratch,
        batch: &mut PairBatch<u32>,
        screened: &mut Vec<(bool, f32)>,
        kids: &[(Element, Element)],
        out: &mut Vec<(f32, bool)>,
    ) {
        out.clear();
        batch.clear();
        for (i, &(x, y)) in kids.iter().enumerate() {
            let (t1, t2, margin) = pair_tris(self.g, s, x, y);
            batch.push(&t1, &t2, margin, i as u32, false);
        }
        self.rep.bounds += kids.len() as u64;
        batch.screen(screened);
        for (j, &(apart, lower)) in screened.iter().enumerate() {
            let c = match batch.pair(j) {
                Some((t1, t2, margin)) => {
                    clearance_from(lower, self.g.coord_bound, (&t1, &t2), margin, self.m)
                }
                None => f32::NEG_INFINITY,
            };
            out.push((c, apart));
        }
    }

    /// A pair that is not stored as unfolded becomes a leaf at the current pose with
    /// clearance `c`, checked (or certified) in the next check pass.
    fn fresh_leaf(&mut self, buf: &mut Buffers, x: Element, y: Element, c: f32) {
        let state = if certified(c, self.m) {
            Outcome::certain(x, y)
        } else {
            Outcome::Unchecked
        };
        self.leaf(buf, x, y, c, state);
    }
}

/// Visits the children of the unfolded pair (`a`, `b`) (the root pairs if `root`), writing
/// the new cut; `fresh`: the pair was unfolded in this walk (no stored descendants).
/// Returns whether every child ended as an idle leaf and whether one of them became idle
/// in this iteration (a narrowing candidate).
#[allow(clippy::too_many_arguments)]
fn visit(
    cx: &mut Ctx,
    s: &mut Scratch,
    buf: &mut Buffers,
    a: Element,
    b: Element,
    depth: usize,
    root: bool,
    fresh: bool,
) -> (bool, bool) {
    if buf.kids.len() <= depth {
        buf.kids.resize_with(depth + 1, Vec::new);
    }
    let mut kids = std::mem::take(&mut buf.kids[depth]);
    kids.clear();
    if root {
        buf.ka.clear();
        buf.kb.clear();
        roots(cx.g.a, &mut buf.ka);
        roots(cx.g.b, &mut buf.kb);
    } else {
        expand(cx.g, a, b, &mut buf.ka, &mut buf.kb);
    }
    // Nested loops into reserved space: a `flat_map` extend has no exact size hint and
    // grows element by element (a tenth of a trajectory's detection time in a profile).
    kids.reserve(buf.ka.len() * buf.kb.len());
    for &x in &buf.ka {
        kids.extend(buf.kb.iter().map(|&y| (x, y)));
    }
    if buf.clears.len() <= depth {
        buf.clears.resize_with(depth + 1, Vec::new);
    }
    let mut clears = std::mem::take(&mut buf.clears[depth]);
    clears.clear();
    if matches!(cx.mode, Mode::Seed | Mode::Refresh) || fresh {
        cx.clearances(s, &mut buf.batch, &mut buf.screened, &kids, &mut clears);
    }
    let mut all_idle = true;
    let mut any_new = false;
    for (i, &(x, y)) in kids.iter().enumerate() {
        let k = key(x, y);
        let (c, apart) = clears.get(i).copied().unwrap_or((f32::NEG_INFINITY, false));
        if !fresh && cx.old.cut.get(cx.pos) == Some(&k) {
            cx.pos += 1;
            all_idle &= unfolded(cx, s, buf, x, y, k, depth);
            continue;
        }
        let stored = if !fresh && cx.old.near.get(cx.np).map(Leaf::key) == Some(k) {
            cx.np += 1;
            Some(cx.old.near[cx.np - 1])
        } else {
            None
        };
        all_idle &= match cx.mode {
            Mode::Seed => {
                let surrogate = !(x.real && y.real);
                if surrogate && !apart && !certified(c, 0.0) {
                    // Not proven separated: unfolded without a kernel call, as the
                    // explicit traversal does (its survivors mostly come back in contact).
                    let o = open(buf, k, cx.leaves);
                    visit(cx, s, buf, x, y, depth + 1, false, true);
                    close(buf, o, cx.leaves);
                } else {
                    let state = if certified(c, 0.0) || (surrogate && apart) {
                        Outcome::certain(x, y)
                    } else {
                        Outcome::Unchecked
                    };
                    cx.leaf(buf, x, y, c, state);
                }
                false
            }
            Mode::Refresh => {
                cx.fresh_leaf(buf, x, y, c);
                false
            }
            Mode::Expand => {
                cx.leaves += 1;
                if cx.track {
                    let kept = stored.map(|_| cx.old.expiry.get(cx.np - 1).copied());
                    buf.expiry.push(kept.flatten().unwrap_or(Expiry::NEW));
                }
                buf.near.push(
                    stored
                        .unwrap_or_else(|| Leaf::new(x, y, f32::INFINITY, Outcome::certain(x, y))),
                );
                false
            }
            Mode::Update { .. } => match stored {
                Some(e) if e.state == Outcome::Widen => {
                    let o = open(buf, k, cx.leaves);
                    cx.rep.counts.unfolds += 1;
                    // Remark 5: re-added after a narrowing → never narrowed again.
                    if cx.memory.binary_search(&k).is_ok() {
                        insert_sorted(cx.vetoes, k);
                    }
                    visit(cx, s, buf, x, y, depth + 1, false, true);
                    close(buf, o, cx.leaves);
                    false
                }
                Some(e) => {
                    any_new |= e.now_idle();
                    let expiry = cx.old.expiry.get(cx.np - 1).copied();
                    cx.keep(buf, e, expiry.unwrap_or(Expiry::NEW));
                    e.state.idle()
                }
                None if fresh => {
                    cx.fresh_leaf(buf, x, y, c);
                    false
                }
                // Not stored: certified beyond the skin.
                None => {
                    cx.leaves += 1;
                    true
                }
            },
        };
    }
    buf.kids[depth] = kids;
    buf.clears[depth] = clears;
    (all_idle, any_new)
}

/// Visits the stored unfolded pair (`x`, `y`) with key `k`; in an update, narrows it if its
/// children are all idle leaves, it is not vetoed and it is separated itself. Returns
/// false (an unfolded or just narrowed pair keeps its parent's group from narrowing).
fn unfolded(
    cx: &mut Ctx,
    s: &mut Scratch,
    buf: &mut Buffers,
    x: Element,
    y: Element,
    k: u64,
    depth: usize,
) -> bool {
    // Nothing to widen or narrow below: copied, not regenerated (`span.rs`).
    if let Some(sp) = cx.old.copyable(cx.pos - 1, cx.np) {
        cx.leaves += copy(buf, &cx.old, cx.pos - 1, sp, cx.far);
        cx.pos = sp.cut_end as usize;
        cx.np = sp.near_end as usize;
        return false;
    }
    let o = open(buf, k, cx.leaves);
    let (mark_near, mark_leaves) = (buf.near.len(), cx.leaves);
    let (idle, any_new) = visit(cx, s, buf, x, y, depth + 1, false, false);
    close(buf, o, cx.leaves);
    let Mode::Update { all } = cx.mode else {
        return false;
    };
    if !idle || !(all || any_new) || cx.vetoes.binary_search(&k).is_ok() {
        return false;
    }
    // A parent certainly still in contact is vetoed without its check (`held.rs`).
    if cx.hold && held::holds(cx.held, k, cx.m) {
        insert_sorted(cx.vetoes, k);
        return false;
    }
    let (o, (t1, t2, margin), dist) = check_single(cx.g, s, x, y, &mut cx.rep.stats);
    if o != Outcome::Separated {
        insert_sorted(cx.vetoes, k);
        if cx.hold {
            let sl = slack(dist, cx.g.coord_bound, (&t1, &t2), margin, cx.m);
            held::record(cx.held, k, sl);
        }
        return false;
    }
    if cx.hold {
        held::forget(cx.held, k);
    }
    // The children are leaves: `k` is the last unfolded key written.
    buf.cut.pop();
    // Its span, if its (one-entry) subtree kept one (`span::min_cut`).
    if buf
        .spans
        .last()
        .is_some_and(|s| s.at as usize == buf.cut.len())
    {
        buf.spans.pop();
    }
    buf.near.truncate(mark_near);
    buf.expiry.truncate(mark_near);
    cx.leaves = mark_leaves;
    insert_sorted(cx.memory, k);
    cx.rep.counts.narrows += 1;
    let (c, exact) = tight_clearance(&t1, &t2, margin, cx.m, cx.skin);
    if exact {
        count(x, y, &mut cx.rep.stats);
        cx.rep.bounds += 1;
    }
    cx.leaf(buf, x, y, c, Outcome::Separated);
    false
}

impl ActiveSet {
    /// Walks the cut in `mode` at motion `m` \[m\] from the reference pose, replacing the
    /// stored cut and pairs.
    pub(super) fn walk(
        &mut self,
        g: &PairGeometry,
        s: &mut Scratch,
        mode: Mode,
        m: f64,
        rep: &mut IterationReport,
    ) {
        let mut buf = std::mem::take(&mut s.walk);
        buf.cut.clear();
        buf.near.clear();
        buf.expiry.clear();
        buf.spans.clear();
        buf.span_min = min_cut(self.keep_all);
        let mut old_cut = std::mem::take(&mut self.cut);
        let mut old_near = std::mem::take(&mut self.near);
        let mut old_spans = std::mem::take(&mut self.spans);
        let mut old_expiry = std::mem::take(&mut self.expiry);
        let track = self.keep_all && old_expiry.len() == old_near.len();
        if !track {
            old_expiry.clear();
        }
        // Only a narrowing/widening walk copies unchanged subtrees; the other modes
        // rewrite every pair.
        let mut hot = std::mem::take(&mut buf.hot);
        hot.clear();
        if mode == (Mode::Update { all: false }) && !old_spans.is_empty() {
            hot_prefix(&old_near, &mut hot);
        }
        let mut cx = Ctx {
            g,
            mode,
            m,
            skin: g.skin(),
            far: if self.keep_all {
                f32::INFINITY
            } else {
                self.skin + self.shift
            },
            old: Old {
                cut: &old_cut,
                near: &old_near,
                spans: &old_spans,
                hot: &hot,
                expiry: &old_expiry,
                next: 0,
            },
            track,
            pos: 0,
            np: 0,
            memory: &mut self.memory,
            vetoes: &mut self.vetoes,
            held: &mut self.held,
            hold: self.hold,
            leaves: 0,
            rep,
        };
        if !(g.a.nodes.is_empty() || g.b.nodes.is_empty()) {
            let none = Element {
                index: 0,
                level: 0,
                real: false,
            };
            visit(&mut cx, s, &mut buf, none, none, 0, true, false);
        }
        self.leaves = cx.leaves;
        if self.keep_all {
            // One set per thread's query, not one per pair of a large scene: the new
            // vectors are taken as they are (the old ones become the next walk's buffers).
            std::mem::swap(&mut old_cut, &mut buf.cut);
            std::mem::swap(&mut old_near, &mut buf.near);
            std::mem::swap(&mut old_spans, &mut buf.spans);
            std::mem::swap(&mut old_expiry, &mut buf.expiry);
        } else {
            store(&mut old_cut, &buf.cut);
            store(&mut old_near, &buf.near);
            store(&mut old_spans, &buf.spans);
        }
        self.cut = old_cut;
        self.near = old_near;
        self.spans = old_spans;
        self.expiry = old_expiry;
        buf.hot = hot;
        s.walk = buf;
    }
}
