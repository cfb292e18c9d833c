//! Incremental walks of an active set's cut: the extent of every unfolded pair's subtree
//! in the stored cut and leaves ([`Span`]), recorded by each walk, lets the next
//! widening/narrowing walk copy a subtree that holds nothing to widen or narrow instead
//! of regenerating it from the trees.
//!
//! A walk in `Mode::Update { all: false }` changes the cut only below a stored leaf in
//! state `Widen` (it is unfolded) and at a group of sibling leaves one of which became
//! idle in this iteration (a narrowing candidate, seed 000 Alg. 6 remarks 4–5); everywhere
//! else it rewrites the stored keys and leaves unchanged, dropping only the idle leaves
//! certified beyond the skin. A subtree without such a leaf is therefore copied —
//! keys verbatim, leaves through the same drop rule, its leaf count from the span — with
//! exactly the result of regenerating it. Spans are not serialised: a set read back from
//! a checkpoint has none and its next walk regenerates everything (and records them).
//!
//! Only the unfolded pairs whose subtree holds at least [`min_cut`] cut entries keep a
//! span (sorted by cut position, looked up by a cursor that follows the walk's monotone
//! position): a smaller subtree is regenerated from the trees — one expansion and a key
//! comparison per child — with the same result as its copy. Small subtrees are most of
//! a large cut (the §6.7 grid: 24 million unfolded pairs, 11.4 million of them with an
//! unfolded pair below), and a span for each unfolded pair (16 bytes beside its 8-byte
//! key) had doubled the memory of the kept sets (`docs/performance.md`, "§6.7 grid").

use super::buffers::Buffers;
use super::direction::Expiry;
use super::element::{Leaf, Outcome};

/// Fewest cut entries (the unfolded pair and those below it) of a subtree that keeps a
/// span in a kept set of a scene, one per particle pair: smaller subtrees are regenerated.
/// 8 brings the §6.7 grid's peak from 787 to 478 MiB (explicit) at the same step time;
/// the pair-set query of `trajectory_vs_parry` runs 5 % slower than with a span for every
/// unfolded pair (`docs/performance.md`, "§6.7 grid").
pub(super) const MIN_CUT: u32 = 8;

/// [`MIN_CUT`] of the event-driven pair-set query's set (`keep_all`, one per thread's
/// query, not one per pair of a large scene): a span for every unfolded pair, as before.
pub(super) const MIN_CUT_EVENTS: u32 = 1;

/// The fewest cut entries of a subtree with a span in a set that keeps every pair
/// (`keep_all`) or not.
pub(super) fn min_cut(keep_all: bool) -> u32 {
    if keep_all {
        MIN_CUT_EVENTS
    } else {
        MIN_CUT
    }
}

/// Extent of the subtree of the unfolded pair at one position of the stored cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Span {
    /// Cut position of the unfolded pair.
    pub(super) at: u32,
    /// One past the last cut position of the subtree.
    pub(super) cut_end: u32,
    /// First stored leaf of the subtree.
    pub(super) near_start: u32,
    /// One past its last stored leaf.
    pub(super) near_end: u32,
    /// Active pairs (leaves of the cut, stored or not) in the subtree.
    pub(super) leaves: u32,
}

/// Whether a stored leaf makes an update walk change its group: it widens, or it became
/// idle in this iteration (a narrowing candidate).
fn hot(l: &Leaf) -> bool {
    l.state == Outcome::Widen || l.now_idle()
}

/// Prefix counts of the hot leaves of `near` into `out` (`out[i]`: hot leaves before `i`).
pub(super) fn hot_prefix(near: &[Leaf], out: &mut Vec<u32>) {
    out.clear();
    out.reserve(near.len() + 1);
    let mut n = 0u32;
    out.push(0);
    for l in near {
        n += u32::from(hot(l));
        out.push(n);
    }
}

/// The old cut, leaves and spans a walk copies from, with the hot-leaf prefix counts.
pub(super) struct Old<'s> {
    pub(super) cut: &'s [u64],
    pub(super) near: &'s [Leaf],
    pub(super) spans: &'s [Span],
    /// Empty: no subtree may be copied (a full walk).
    pub(super) hot: &'s [u32],
    /// Index of the first span of `spans` whose position is not before the walk's
    /// (the walk's positions only grow).
    pub(super) next: usize,
    /// Expiries of the old leaves (parallel to `near`) where the set keeps them, else
    /// empty (`ActiveSet::expiry`).
    pub(super) expiry: &'s [Expiry],
}

impl Old<'_> {
    /// The span of the stored unfolded pair at cut position `p` when its subtree can be
    /// copied: it holds no hot leaf and its leaves start at `np`, the next stored leaf.
    /// A pair without a span (a small subtree) is not copyable. Positions `p` must not decrease from
    /// one call to the next.
    pub(super) fn copyable(&mut self, p: usize, np: usize) -> Option<Span> {
        if self.hot.is_empty() {
            return None;
        }
        let at = u32::try_from(p).ok()?;
        while self.spans.get(self.next).is_some_and(|s| s.at < at) {
            self.next += 1;
        }
        let sp = *self.spans.get(self.next).filter(|s| s.at == at)?;
        let (ns, ne, ce) = (
            sp.near_start as usize,
            sp.near_end as usize,
            sp.cut_end as usize,
        );
        let ok = ns == np && ns <= ne && ne < self.hot.len() && p < ce && ce <= self.cut.len();
        (ok && self.hot[ne] == self.hot[ns]).then_some(sp)
    }
}

/// Copies the subtree of the old cut position `p` with span `sp` (found by
/// [`Old::copyable`], at `old.spans[old.next]`) into the walk's new cut, dropping idle
/// leaves whose clearance exceeds `far` (the walk's rule); returns its number of active
/// pairs.
pub(super) fn copy(buf: &mut Buffers, old: &Old, p: usize, sp: Span, far: f32) -> u32 {
    let (ns, ne, ce) = (
        sp.near_start as usize,
        sp.near_end as usize,
        sp.cut_end as usize,
    );
    let base = buf.near.len() as u32;
    let q = buf.cut.len() as u32;
    if far == f32::INFINITY {
        // Nothing is dropped (the event-driven query stores every pair) and a copyable
        // subtree holds no hot leaf, so no flag to clear: the leaves copy verbatim.
        buf.near
            .extend_from_slice(old.near.get(ns..ne).unwrap_or_default());
        if !old.expiry.is_empty() {
            buf.expiry
                .extend_from_slice(old.expiry.get(ns..ne).unwrap_or_default());
        }
        buf.cut
            .extend_from_slice(old.cut.get(p..ce).unwrap_or_default());
        let at = |i: u32| i.wrapping_sub(sp.near_start).wrapping_add(base);
        for o in nested(old, ce) {
            buf.spans.push(Span {
                at: o.at.wrapping_sub(p as u32).wrapping_add(q),
                cut_end: o.cut_end.wrapping_sub(p as u32).wrapping_add(q),
                near_start: at(o.near_start),
                near_end: at(o.near_end),
                leaves: o.leaves,
            });
        }
        return sp.leaves;
    }
    buf.kept.clear();
    let mut kept = 0u32;
    for l in &old.near[ns..ne] {
        buf.kept.push(kept);
        if !(l.state.idle() && l.clear > far) {
            let mut l = *l;
            l.flags = 0;
            buf.near.push(l);
            kept += 1;
        }
    }
    buf.kept.push(kept);
    buf.cut.extend_from_slice(&old.cut[p..ce]);
    for o in nested(old, ce) {
        let at = |i: u32| base + buf.kept[(i - sp.near_start) as usize];
        let s = Span {
            at: o.at - p as u32 + q,
            cut_end: o.cut_end - p as u32 + q,
            near_start: at(o.near_start),
            near_end: at(o.near_end),
            leaves: o.leaves,
        };
        buf.spans.push(s);
    }
    sp.leaves
}

/// The spans of the copied subtree: from the one of its root (`old.next`) to the last one
/// before the cut position `ce`.
fn nested<'o>(old: &'o Old, ce: usize) -> &'o [Span] {
    let rest = old.spans.get(old.next..).unwrap_or_default();
    let n = rest.partition_point(|s| (s.at as usize) < ce);
    &rest[..n]
}

/// Opens the unfolded pair `k` in the walk's new cut: its key and a span to be closed
/// after its subtree; `leaves`: active pairs written so far in the walk. Returns the
/// span's index and `leaves`.
pub(super) fn open(buf: &mut Buffers, k: u64, leaves: u32) -> (usize, u32) {
    buf.cut.push(k);
    buf.spans.push(Span {
        at: (buf.cut.len() - 1) as u32,
        near_start: buf.near.len() as u32,
        ..Span::default()
    });
    (buf.spans.len() - 1, leaves)
}

/// Closes the span opened at `(idx, leaves_before)` with `leaves` active pairs written so
/// far in the walk; drops it if the subtree holds fewer than `buf.span_min` cut entries
/// (then so do the subtrees below it, which kept no span: its span is the last one).
pub(super) fn close(buf: &mut Buffers, (idx, before): (usize, u32), leaves: u32) {
    let (cut_end, near_end) = (buf.cut.len() as u32, buf.near.len() as u32);
    if let Some(s) = buf.spans.get_mut(idx) {
        if cut_end - s.at < buf.span_min {
            buf.spans.truncate(idx);
            return;
        }
        s.cut_end = cut_end;
        s.near_end = near_end;
        s.leaves = leaves - before;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records kept per unfolded pair with a span and per stored leaf: a field added to
    /// either grows every large scene's kept sets (the §6.7 grid: 11 million spans at
    /// [`MIN_CUT`] 1, 7.5 million leaves; `tests/physics/kept_memory.rs` bounds the whole).
    #[test]
    fn span_and_leaf_records_stay_20_bytes() {
        assert_eq!(std::mem::size_of::<Span>(), 20);
        assert_eq!(std::mem::size_of::<Leaf>(), 20);
    }
}
