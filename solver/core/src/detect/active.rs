//! Active set of one particle pair for multiscale Picard (seed 000 Alg. 6, remarks 4–6),
//! kept compact and re-checked only where the motion since the last check could change
//! an outcome.
//!
//! **Cut.** The active set `𝔸(p_i, p_j) × 𝔸(p_j, p_i)` is kept *pair-wise*: as the set of
//! element pairs (surrogate node or real triangle of either side) still to be checked, a
//! cut through the tree of simultaneous descent that Alg. 5 walks
//! ([`msdem_tree::traverse`]: a surrogate pair in contact is replaced by the pairs of the
//! larger side's children). Only the cut's *internal* pairs are stored, as packed keys in
//! depth-first preorder ([`ActiveSet::cut`]); the active pairs (the cut's leaves) are
//! regenerated from the trees when the cut is walked (`walk.rs`). Remark 6 holds by
//! construction: a pair is either unfolded or a leaf, and all children of an unfolded pair
//! (e.g. every real triangle of a leaf node) enter and leave together;
//! [`ActiveSet::validate`] checks it.
//!
//! **Temporal coherence (exact).** The set keeps a reference pose `P₀` of B in A's frame
//! and, per active pair near contact, a *clearance* `c` (`certify.rs`): a lower bound of
//! its distance minus its check margin and the rounding allowance, valid relative to
//! `P₀`. At a guess `P` where B moved at most `m` from `P₀`, a pair with `c > m` is
//! farther apart than its check margin `M` (plus the rounding allowance), and the check it
//! would get is certain to answer "separated" (surrogate) or "no contact" (real): the
//! pre-screen only proves separation; the iterative kernel answers contact only for a
//! computed upper bound `|p − q| ≤ M` of the distance, impossible above `M`; the exact
//! kernel (also the fallback of a not-converged iterative answer, `kernel.rs`) compares
//! the computed distance with `M`. So such a pair is *skipped* — counted as skipped, not
//! as a check — with exactly the outcome a re-check gives, and every iteration's contacts,
//! coarse estimates, widenings and narrowings equal those of re-checking every active
//! pair. Pairs whose clearance exceeds the *skin* `κ·(ε_a + ε_b)` (κ the base skin chosen by
//! the set's user, [`CertificateSkin`]) at the reference pose
//! are not stored at all ("far"); when `m` exceeds the skin, every active pair gets a new
//! clearance at the current pose, which becomes the new reference (a refresh), and the
//! skin is widened to the last step's motion (`skin.rs`). Real–real
//! contacts have negative clearance and are re-evaluated in every iteration. The first
//! iteration of each step *rebases* the stored clearances to its pose (each shrinks by
//! B's motion since the previous base, [`ActiveSet::rebase`]), so that within a step the
//! motion `m` is counted from the step's first guess, not from the last refresh; pairs
//! are then dropped as far only beyond the skin plus the accumulated rebase motion.
//!
//! **Per Picard iteration** ([`ActiveSet::iterate`]):
//!
//! * the stored pairs that are not certified are checked: real–real pairs give contacts
//!   (exact fallback only there and for not converged surrogate pairs, Cor. 5.3);
//!   surrogate pairs in contact additionally give a force *estimate* when the inner halos
//!   `E = ε − h` guarantee a real contact (poster §4, see [`CoarseHit`]);
//! * every surrogate pair in contact is **widened** by one level (its children are checked
//!   — or certified — in the *next* iteration: at most one level per Picard step); a group
//!   of sibling pairs that contributes nothing (all separated or real without contact) is
//!   **narrowed** back to its parent when the parent is separated itself — the parent is
//!   checked first; the paper's order (replace, check in the next iteration, re-widen if
//!   in contact) would re-widen at once otherwise, so a parent found in contact is vetoed
//!   for the rest of the step instead (and in later steps without a check while its
//!   in-margin slack certifies it still in contact, `held.rs`). A parent that is widened again after a narrowing is
//!   remembered (memory set `𝕌`, remark 5) and never narrowed again, which rules out
//!   cycles (Cor. 5.10). Narrowing is attempted whenever the cut is walked (after a
//!   widening, a refresh, or a pair becoming idle), not in every iteration: it never
//!   changes a contact (the parent is verified separated), it only keeps the cut small.
//!
//! **Clearances** cost no distance evaluation of their own: the pairs a walk creates (the
//! children of a pair being unfolded, or every active pair at a refresh) get the lower
//! bound of the SIMD separating-axis screen of the kernel batch
//! ([`msdem_geom::kernel::PairBatch::screen`]), and the check pass tightens the clearance
//! of every pair it checks with the lower bound its kernel call produced anyway
//! ([`msdem_geom::kernel::PairOutcome::lower`]).
//!
//! **Start (deviation from Alg. 6 line 1).** With `seed`, a new set starts from the cut of
//! one full multiresolution descent at the current pose (Alg. 5 as the explicit traversal
//! runs it: every surrogate pair the separating-axis screen does not prove separated is
//! unfolded without a kernel call) instead of from the roots, so the first step does not
//! spend one Picard iteration per tree level unfolding it. Every parent in the new cut was
//! just found possibly in contact at this pose, so no narrowing is attempted after a
//! seed. The
//! converged result is unchanged (Lemma 5.7): any cut covers every real pair, and
//! termination still requires that no active surrogate pair is in contact.
//!
//! Because the cut always covers every real triangle pair, a terminated iteration (no
//! active surrogate pair in contact) has found exactly the flat contacts (Lemma 5.7).

use msdem_tree::TriContact;

mod buffers;
mod certify;
mod check;
mod direction;
mod element;
mod events;
mod expand;
mod geometry;
mod held;
mod kernel;
mod scan;
mod set;
mod skin;
mod span;
mod validate;
mod walk;
mod witness;

use element::Leaf;
pub use events::EventSet;
pub use geometry::{CoarseHit, PairGeometry, Scratch};
pub use set::{ActiveSet, IterationReport};
pub use skin::CertificateSkin;

use certify::MOTION_SLACK;

/// Relative allowance for the `f32` rounding of a rebase (see [`ActiveSet::rebase`]).
const REBASE_ROUNDING: f32 = 1.0 / 1_048_576.0;
pub(super) use certify::soup_sphere;
use check::Pass;
use walk::Mode;

impl ActiveSet {
    /// Clears the memory set and the vetoes (at the start of a time step).
    pub fn forget(&mut self) {
        self.memory = Vec::new();
        self.vetoes = Vec::new();
        self.rebase_due = true;
    }

    /// Moves the pose the stored clearances refer to to the current one (`g.b_to_a`):
    /// every clearance shrinks by the motion `δ` between the two poses (triangle
    /// inequality, rounded down), and `shift` grows by it. Later in the step, a pair is
    /// certified against the motion from this pose alone, and the clearances the check
    /// pass computes refer to it: without the rebase they would be charged twice the
    /// drift accumulated since the last refresh.
    fn rebase(&mut self, g: &PairGeometry) {
        let delta = g.motion_since(&self.base) * (1.0 + 2.0 * MOTION_SLACK);
        let d = (delta as f32) * (1.0 + REBASE_ROUNDING);
        held::rebase(&mut self.held, d, REBASE_ROUNDING);
        for l in &mut self.near {
            if l.clear.is_finite() {
                l.clear = l.clear - d - REBASE_ROUNDING * l.clear.abs();
            }
            if l.slack.is_finite() {
                l.slack = l.slack - d - REBASE_ROUNDING * l.slack.abs();
            }
        }
        self.base = g.b_to_a;
        self.shift = (self.shift + d) * (1.0 + REBASE_ROUNDING);
    }

    /// Number of active pairs.
    pub fn active_len(&self) -> usize {
        self.leaves as usize
    }

    /// Bytes held by the set (its struct and heap buffers).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + 8 * (self.cut.capacity() + self.memory.capacity() + self.vetoes.capacity())
            + std::mem::size_of::<Leaf>() * self.near.capacity()
            + std::mem::size_of::<span::Span>() * self.spans.capacity()
            + std::mem::size_of::<(u64, f32)>() * self.held.capacity()
    }

    /// One Picard iteration's detection for this pair at the pose `g.b_to_a`: starts the
    /// set if needed (from one full descent with `seed`, else from the root pairs, Alg. 6
    /// line 1), renews the certificates if B moved more than the skin since the reference
    /// pose, checks every stored pair that is not certified (real contacts to `hits`,
    /// guaranteed surrogate contacts to `coarse`), then widens and narrows the set for the
    /// next iteration.
    ///
    /// With `recheck_all` every active pair is checked, certified or not (a diagnostic:
    /// the outcomes, hence contacts, widenings and narrowings, are the same, see the
    /// module docs; only the check counts differ).
    #[allow(clippy::too_many_arguments)]
    pub fn iterate(
        &mut self,
        g: &PairGeometry,
        seed: bool,
        recheck_all: bool,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
    ) -> IterationReport {
        let pass = if recheck_all {
            Pass::All
        } else {
            Pass::Certified
        };
        self.iterate_with(g, seed, pass, s, hits, coarse)
    }

    /// [`ActiveSet::iterate`] with the check pass `pass` (`All` for `recheck_all`).
    fn iterate_with(
        &mut self,
        g: &PairGeometry,
        seed: bool,
        pass: Pass,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
    ) -> IterationReport {
        let mut rep = IterationReport::default();
        s.begin(g.b.soup.len());
        let mut m = 0.0;
        let mut seeded = false;
        self.hold = pass != Pass::All && !self.keep_all;
        if !self.initialised {
            self.initialised = true;
            self.cut = Vec::new();
            self.spans = Vec::new();
            self.near = Vec::new();
            self.held = Vec::new();
            self.reference = g.b_to_a;
            self.base = g.b_to_a;
            self.shift = 0.0;
            self.skin = g.skin();
            let mode = if seed { Mode::Seed } else { Mode::Refresh };
            self.walk(g, s, mode, 0.0, &mut rep);
            rep.refreshed = true;
            seeded = seed;
        } else {
            m = g.motion_since(&self.reference);
            if m > f64::from(self.skin) {
                // The held vetoes survive a refresh, moved to the new base.
                let step = g.motion_since(&self.base);
                let delta = step * (1.0 + 2.0 * MOTION_SLACK);
                let d = (delta as f32) * (1.0 + REBASE_ROUNDING);
                held::rebase(&mut self.held, d, REBASE_ROUNDING);
                self.skin = skin::sized(g.skin(), step, g.skin.refresh_steps());
                self.reference = g.b_to_a;
                self.base = g.b_to_a;
                self.shift = 0.0;
                m = 0.0;
                self.walk(g, s, Mode::Refresh, 0.0, &mut rep);
                rep.refreshed = true;
            } else {
                if self.rebase_due {
                    self.rebase(g);
                }
                m = g.motion_since(&self.base);
            }
        }
        self.rebase_due = false;
        if pass == Pass::All {
            self.walk(g, s, Mode::Expand, m, &mut rep);
        }
        self.check(g, m, pass, s, hits, coarse, &mut rep);
        // After a seed every unfolded pair was just found in contact at this pose: no
        // narrowing to attempt (the check pass reproduces the seed's outcomes).
        if self.walk_due || (rep.refreshed && !seeded) {
            let mode = Mode::Update {
                all: rep.refreshed && !seeded,
            };
            self.walk(g, s, mode, m, &mut rep);
        }
        rep
    }

    /// The complete multiresolution detection of Alg. 5 at the pose `g.b_to_a` on this
    /// set (explicit steps): one [`ActiveSet::iterate`], then — as long as it widened
    /// surrogate pairs in contact — a check of the new pairs at the same pose and another
    /// widening, until no active surrogate pair is in contact. The cut then covers every
    /// real pair and every real contact has been found (Lemma 5.7): `hits` receives the
    /// flat contacts at this pose, each real pair checked once; `coarse` may receive
    /// estimates of surrogate pairs widened later (to be ignored).
    ///
    /// With `recheck_all` every active pair of the first pass is checked and no narrowing
    /// veto is held (the diagnostic of [`ActiveSet::iterate`]: same contacts, cut and
    /// counts of widenings and narrowings; more checks).
    pub fn settle(
        &mut self,
        g: &PairGeometry,
        recheck_all: bool,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
    ) -> IterationReport {
        let first = if recheck_all {
            Pass::All
        } else {
            Pass::Certified
        };
        self.settle_with(g, first, s, hits, coarse)
    }

    /// The pair-set query at the pose `g.b_to_a`: every real triangle pair within the
    /// margin, as [`ActiveSet::settle`] finds them, except that a real pair found in
    /// contact at an earlier pose whose in-margin slack still certifies it (the motion
    /// since cannot have moved it out of the margin, `certify.rs`) is *held* without a
    /// kernel call. `hits` receives every such pair: checked ones with their closest
    /// points, held ones with their triangle indices only (`p`, `q`, `dist` NaN) — a
    /// query for which pairs touch, not for contact forces. The set evolves exactly as
    /// under `settle` (a held pair keeps its state), so the two may be mixed.
    pub fn settle_pairs(
        &mut self,
        g: &PairGeometry,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
    ) -> IterationReport {
        let mut coarse = Vec::new();
        self.settle_with(g, Pass::Pairs, s, hits, &mut coarse)
    }

    /// [`ActiveSet::settle`] with the first check pass `first`.
    fn settle_with(
        &mut self,
        g: &PairGeometry,
        first: Pass,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
    ) -> IterationReport {
        let mut rep = self.iterate_with(g, true, first, s, hits, coarse);
        let widened = rep.counts.unfolds > 0;
        // The pose and the base stay the same within the call.
        let m = g.motion_since(&self.base);
        self.settle_widened(g, m, widened, s, hits, coarse, &mut rep);
        rep
    }

    /// The rest of a settle at motion `m` \[m\] from the base pose after a walk that
    /// `widened`: the new pairs are checked at the same pose and widened again until no
    /// active surrogate pair is in contact; checks and updates added to `rep`.
    #[allow(clippy::too_many_arguments)]
    fn settle_widened(
        &mut self,
        g: &PairGeometry,
        m: f64,
        mut widened: bool,
        s: &mut Scratch,
        hits: &mut Vec<TriContact>,
        coarse: &mut Vec<CoarseHit>,
        rep: &mut IterationReport,
    ) {
        while widened {
            let mut r = IterationReport::default();
            self.check(g, m, Pass::Fresh, s, hits, coarse, &mut r);
            if self.walk_due {
                self.walk(g, s, Mode::Update { all: false }, m, &mut r);
            }
            widened = r.counts.unfolds > 0;
            rep.stats += &r.stats;
            rep.skipped += r.skipped;
            rep.bounds += r.bounds;
            rep.counts.unfolds += r.counts.unfolds;
            rep.counts.narrows += r.counts.narrows;
        }
    }
}
