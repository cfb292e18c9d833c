//! The check pass of an [`ActiveSet`] in one Picard iteration: certified pairs are
//! skipped, the others run through the batched kernel (see the parent module's docs).
//!
//! A checked pair found idle gets a new clearance at the current pose from the lower bound
//! of the distance that its kernel call produced anyway
//! ([`msdem_geom::kernel::PairOutcome::lower`]: the iterative kernel's separating-axis
//! bound, or the exact distance where the exact kernel decided), so tightening a
//! certificate costs no extra distance evaluation. Only the check and skip counts depend
//! on the clearances; outcomes never do (a pair not certified is checked).

use super::certify::{certified, clearance_from, slack};
use super::element::Outcome;
use super::geometry::{CoarseHit, PairGeometry, Scratch};
use super::kernel::{batch_kind, batch_params, classify, count, pair_tris, resolve_dist, CHUNK};
use super::set::{ActiveSet, IterationReport};
use msdem_geom::kernel::KernelResult;
use msdem_tree::TriContact;

/// Which stored pairs a check pass visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass {
    /// Every pair its clearance does not certify (the others are skipped).
    Certified,
    /// Every pair (the `recheck_all` diagnostic).
    All,
    /// Only the pairs not checked yet (fresh after a widening at the same pose); the
    /// others keep the outcome of the pass that just ran at this pose.
    Fresh,
    /// As `Certified`, and real pairs in contact whose in-margin slack certifies them
    /// ([`super::certify::slack`]) are *held* without a kernel call: appended to `hits`
    /// with their triangle indices only (`p`, `q` and `dist` NaN) — for pair-set queries
    /// ([`ActiveSet::settle_pairs`]), never for forces.
    Pairs,
}

impl ActiveSet {
    /// Checks the stored pairs that `pass` selects: those that their clearance does not
    /// certify after a motion `m` \[m\] from the reference pose, all of them, or the
    /// unchecked ones (see [`Pass`] and the module docs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check(
        &mut self,
        g: &PairGeometry,
        m: f64,
        pass: Pass,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
        rep: &mut IterationReport,
    ) {
        let mut i = 0;
        self.walk_due = false;
        while i < self.near.len() {
            s.batch.clear();
            // Pairs apart at their last check whose certificate expired (after a large
            // step, or with a wide skin) are mostly still apart: pre-screened where they
            // are the majority of the batch (the pairs in contact, which the screen
            // never rejects, pay for no screen otherwise).
            let mut apart = 0;
            while i < self.near.len() && s.batch.len() < CHUNK {
                let leaf = &mut self.near[i];
                if pass == Pass::Fresh && leaf.state != Outcome::Unchecked {
                    i += 1;
                    continue;
                }
                if pass == Pass::Pairs
                    && leaf.state == Outcome::FineContact
                    && certified(leaf.slack, m)
                {
                    rep.skipped += 1;
                    leaf.set_now_idle(false);
                    let nan = [f32::NAN; 3];
                    let (a, b) = leaf.elements();
                    hits.push(TriContact {
                        p: nan,
                        q: nan,
                        dist: f32::NAN,
                        tri_a: a.index,
                        tri_b: b.index,
                    });
                    i += 1;
                    continue;
                }
                if pass != Pass::All && certified(leaf.clear, m) {
                    rep.skipped += 1;
                    // An idle state is the certain one of its pair kind; written only
                    // where it changes (most leaves stay clean in the cache).
                    let idle = leaf.state.idle();
                    if !idle || leaf.now_idle() {
                        let (a, b) = leaf.elements();
                        leaf.set_now_idle(!idle);
                        leaf.state = Outcome::certain(a, b);
                    }
                } else {
                    let (a, b) = leaf.elements();
                    count(a, b, &mut rep.stats);
                    let (t1, t2, margin) = pair_tris(g, s, a, b);
                    s.batch.push(&t1, &t2, margin, i as u32, a.real && b.real);
                    apart += usize::from(leaf.state.idle());
                }
                i += 1;
            }
            if s.batch.is_empty() {
                continue;
            }
            s.prescreen = !self.keep_all && 2 * apart > s.batch.len();
            self.run_batch(g, m, s, hits, coarse, rep);
            s.prescreen = false;
        }
    }

    /// Runs the kernel on the pairs of `s.batch` (tagged with their index in `near`) and
    /// records each outcome in its leaf: state (real contacts to `hits`, guaranteed
    /// surrogate contacts to `coarse`), in-margin slack of a real contact, tightened
    /// clearance of an idle pair (after a motion `m` \[m\] from the base pose), the
    /// narrowing trigger, and whether a walk is due (a pair to widen).
    pub(super) fn run_batch(
        &mut self,
        g: &PairGeometry,
        m: f64,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
        rep: &mut IterationReport,
    ) {
        if s.batch.is_empty() {
            return;
        }
        let bs = s.batch.run(
            batch_kind(g.kernel),
            &batch_params(s.prescreen),
            &mut s.results,
        );
        rep.stats.fallbacks += bs.fallbacks;
        for (j, o) in s.results.iter().enumerate() {
            let Some(leaf) = self.near.get_mut(o.tag as usize) else {
                continue;
            };
            let (a, b) = leaf.elements();
            let pair = s.batch.pair(j);
            let (r, lower) = match o.result {
                KernelResult::NotConverged => resolve_dist(o.result, pair, &mut rep.stats),
                r => (r, o.lower),
            };
            let before = leaf.state;
            leaf.state = classify(g, a, b, r, hits, coarse);
            leaf.slack = match (r, pair) {
                (KernelResult::Contact(c), Some((t1, t2, margin))) if a.real && b.real => {
                    slack(c.dist(), g.coord_bound, (&t1, &t2), margin, m)
                }
                _ => f32::NEG_INFINITY,
            };
            if leaf.state.idle() {
                match pair {
                    // Only a bound beyond the margin by more than the current
                    // clearance can raise it (the allowances only lower it further).
                    Some((t1, t2, margin)) if lower - margin > leaf.clear.max(0.0) => {
                        let c = clearance_from(lower, g.coord_bound, (&t1, &t2), margin, m);
                        leaf.clear = leaf.clear.max(c);
                    }
                    _ => {}
                }
                leaf.set_now_idle(!before.idle());
            } else {
                leaf.set_now_idle(false);
                self.walk_due |= leaf.state == Outcome::Widen;
            }
        }
    }
}
