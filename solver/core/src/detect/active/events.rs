//! The event-driven pair-set query on a kept active set (issue 15): every real triangle
//! pair within the margin at each pose, as [`ActiveSet::settle_pairs`] reports them, with
//! per step work only where a certificate expired.
//!
//! **Accumulated motion.** The set keeps `spent`, the sum of the motion bounds
//! ([`PairGeometry::motion_since`], `certify.rs`) of B between consecutive queries, each
//! rounded up. Along a path of poses the change of any element pair's distance is at most
//! the sum of the steps' bounds (triangle inequality), so a certificate `c` \[m\]
//! computed when the sum was `s₀` — a clearance beyond the check margin (idle pair) or an
//! in-margin slack (real pair in contact), both relative to the pose it was computed at —
//! still holds at every later pose while `spent < s₀ + c`. Each stored pair therefore
//! carries one *expiry* `s₀ + c` (rounded down) instead of a clearance that every step
//! re-spends: nothing is rebased, and a pair is looked at again only when `spent` reaches
//! its expiry.
//!
//! **Expired pairs.** The expiries are an array parallel to the leaves, carried through
//! the walks that rewrite the cut (`ActiveSet::expiry`), scanned per query (`scan.rs`:
//! two `f32` comparisons per stored pair, eight at a time, in leaf order:
//! deterministic); the query checks the expired pairs through the batched kernel
//! exactly as the check pass of
//! [`ActiveSet::settle`] checks a pair that its certificate does not decide (same
//! kernel, outcome, new clearance or slack from the kernel's bounds) and gives them new
//! expiries. A pair still certified is neither touched nor counted: an
//! idle one is certainly idle, a contact certainly within its margin (`certify.rs`).
//!
//! **Directional renewal.** The isotropic motion bound spends every pair's clearance by
//! the whole translation, also where B moves away from A or across the gap. Each idle pair
//! therefore also carries a directional certificate (`direction.rs`): its slab gap along
//! the set's direction `w` (A's sphere centre to B's at the first pose) at the pose of its
//! check, which only the translation along `−w` and the rotation term spend. The scan
//! flags a pair only when both its isotropic expiry and its directional room `K − S` are
//! spent; a pair held by the directional room alone is counted as `renewed`. An idle
//! pair the scan flags is first *re-anchored*: its slab gap measured anew at the current
//! pose (`K` from this pose, not carried from the pose of its last check through the
//! drift, so never smaller than the carried room); where that room is positive the pair
//! is held without a kernel call (counted as `renewed`), otherwise it is checked. The
//! pairs a walk creates get no `K` until they first expire (`LAZY`): most are rewritten
//! by a later walk or never expire. Both halves of the slab gap are cached
//! (`direction.rs`, `SlabCache`: A's triangles' for the set's life, B's per query).
//!
//! **Witness renewal.** A real pair in contact whose slack expired is first measured
//! from the witness points of its last kernel contact (`witness.rs`: the distance of the
//! two points moved rigidly with their bodies bounds the pair's distance from above):
//! where that still leaves it within its margin, the slack is renewed without a kernel
//! call (counted as `witnessed`); otherwise it is checked as any expired pair, and the
//! check's contact points become its witnesses. The witnesses are kept beside the
//! reported set (parallel to its sorted keys; merged by key after a walk).
//!
//! **Reported set.** The sorted keys of the stored real pairs in contact are kept with
//! the leaves; a check that turns a pair into or out of contact inserts or removes its
//! key, so a step without expiries costs the scan and the copy of the answer.
//! The answer is sorted by (A's, B's) soup index.
//!
//! **No skin, no refresh.** Every active pair is stored (`ActiveSet::keep_all`), however
//! far: a far pair just expires late. So no pair has to be re-screened because B moved
//! beyond a skin, and the set has no reference pose. A surrogate pair found in contact is
//! widened, and narrowings attempted, by the same walks and the same settle loop as in
//! [`ActiveSet::settle`] (after which the new leaves' expiries and the reported set are built
//! from the leaves, O(set) on such steps only); the narrowings a refresh would attempt for every
//! idle group are not attempted, so the cut may stay finer than under `settle_pairs`.
//!
//! **Widening ahead.** A walk rewrites the cut (O(set)) and the leaves' expiries and
//! reported set are rebuilt after it, so a step with a walk costs several steps without.
//! When a walk is due anyway (a surrogate pair came into contact), every idle surrogate
//! pair whose isotropic expiry *and* directional room are both within the skin (the base
//! skin, `CertificateSkin::DEFAULT`: 0.25 of the margin) of further motion is widened in
//! the same walk, and its narrowing vetoed for the query: the pairs that the approach
//! would bring into contact in the next steps are split now, one walk instead of one
//! each. Widening a separated
//! pair is always allowed (any cut covers every real pair, Lemma 5.7 of seed 000; its
//! children are checked by the same settle loop), so the reported set is unchanged; only
//! the set's size, checks and walks are. Along the `particle_pair` trajectory: walks in
//! 9 steps instead of 109, at most 3,156 stored pairs instead of 2,030
//! (docs/performance.md).
//!
//! **Same pairs.** A reported pair is one the kernel finds within the margin at this pose
//! or one certified within it; a pair not reported is found or certified outside it.
//! Certificates never decide a pair the kernel would decide otherwise (`certify.rs`), and
//! every cut covers every real pair (Lemma 5.7 of seed 000), so the reported set is the one
//! of [`ActiveSet::settle_pairs`] and of the kernel on every real pair at every pose,
//! whatever the two cuts are; only the checks differ.

use super::certify::{rho, rho_real, MOTION_SLACK};
use super::check::Pass;
use super::direction::{down32, next_up, Drift, Expiry, SlabCache};
use super::element::{Element, Leaf, Outcome};
use super::geometry::{CoarseHit, PairGeometry, Scratch};
use super::kernel::{count, pair_tris, CHUNK};
use super::scan;
use super::set::{ActiveSet, IterationReport};
use super::walk::Mode;
use super::witness::Witness;
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::Point3;
use msdem_tree::TriContact;

/// The event-driven pair-set query of one particle pair (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct EventSet {
    /// The cut and its leaves (every active pair stored) with their expiries
    /// (`ActiveSet::expiry`, carried through the walks: a compact array, scanned per
    /// query); a leaf's clearance and slack hold only where written anew (a check, a
    /// walk's new pairs) or materialised (a validation).
    set: ActiveSet,
    /// Accumulated motion bound of B since the set started \[m\].
    spent: f64,
    /// B's sphere centre now and the drift of the directional certificates
    /// (`direction.rs`).
    drift: Drift,
    /// The halves of the directional certificates' slab gaps (`direction.rs`).
    slab: SlabCache,
    /// Sorted keys of the stored real pairs in contact: the reported set.
    pairs: Vec<u64>,
    /// The witness points of each pair of `pairs` (parallel to it; `witness.rs`).
    wit: Vec<Witness>,
    /// The previous `pairs` and `wit` while a rebuild merges them (kept for their
    /// capacity).
    prev: (Vec<u64>, Vec<Witness>),
    /// Leaves whose narrowing trigger was set by the last query.
    flagged: Vec<u32>,
    /// Leaves expired at this query.
    expired: Vec<u32>,

    hits: Vec<TriContact>,
    coarse: Vec<CoarseHit>,
}

/// The certificate of a leaf relative to the pose it was computed at \[m\]: the slack of
/// a real pair in contact, the clearance of an idle pair, none (`-inf`) otherwise.
fn certificate(l: &Leaf) -> f32 {
    match l.state {
        Outcome::FineContact => l.slack,
        s if s.idle() => l.clear,
        _ => f32::NEG_INFINITY,
    }
}

impl EventSet {
    /// Number of active pairs (all stored).
    pub fn active_len(&self) -> usize {
        self.set.active_len()
    }

    /// The pair-set query at the pose `g.b_to_a`: every real triangle pair within the
    /// margin as soup indices `(A's, B's)`, sorted, to `out` (see the module docs). The
    /// first query starts the set from one full descent and settles it
    /// ([`ActiveSet::settle`]); later ones check the pairs whose certificates expired
    /// and settle the cut where a surrogate pair came into contact.
    pub fn query(
        &mut self,
        g: &PairGeometry,
        s: &mut Scratch,
        out: &mut Vec<(u32, u32)>,
    ) -> IterationReport {
        self.hits.clear();
        self.coarse.clear();
        let mut rep = IterationReport::default();
        if !self.set.initialised {
            self.set.keep_all = true;
            self.spent = 0.0;
            let a = g.a_sphere;
            self.drift = Drift::start([a[0], a[1], a[2]], sphere_centre(g));
            self.slab.reset();
            rep = self
                .set
                .settle_with(g, Pass::Certified, s, &mut self.hits, &mut self.coarse);
            self.rebuild();
        } else {
            s.begin(g.b.soup.len());
            self.slab.begin(g.a.soup.len(), g.b.soup.len());
            self.set.memory.clear();
            self.set.vetoes.clear();
            self.advance(g);
            for &i in &self.flagged {
                if let Some(l) = self.set.near.get_mut(i as usize) {
                    l.set_now_idle(false);
                }
            }
            self.flagged.clear();
            rep.renewed = self.find_expired();
            self.check_expired(g, s, &mut rep);
            rep.skipped =
                self.set.near.len().saturating_sub(self.expired.len()) as u64 + rep.witnessed;
            if self.set.walk_due {
                rep.ahead += self.prewiden(g, s);
                let mut r = IterationReport::default();
                self.set
                    .walk(g, s, Mode::Update { all: false }, 0.0, &mut r);
                absorb(&mut rep, &r);
                let widened = r.counts.unfolds > 0;
                let (hits, coarse) = (&mut self.hits, &mut self.coarse);
                self.set
                    .settle_widened(g, 0.0, widened, s, hits, coarse, &mut rep);
                self.rebuild();
            }
        }
        self.harvest(g);
        out.clear();
        out.extend(
            self.pairs
                .iter()
                .map(|&k| ((k >> 33) as u32, (k as u32) >> 1)),
        );
        rep
    }

    /// Marks for widening, along with a walk that is due anyway, every idle surrogate pair
    /// whose certificates both expire within the base skin (`g.skin`) of further
    /// motion, and vetoes their narrowing in this query (see the module docs).
    fn prewiden(&mut self, g: &PairGeometry, s: &mut Scratch) -> u64 {
        let h = f64::from(g.skin());
        let mut n = 0;
        let (now, sd) = (self.spent, self.drift.s());
        for (l, e) in self.set.near.iter_mut().zip(&mut self.set.expiry) {
            let soon = f64::from(e.at) - now < h;
            if l.state != Outcome::Separated || !soon {
                continue;
            }
            if e.k.is_nan() {
                e.k = anchor(g, s, &self.drift, &mut self.slab, l);
            }
            if f64::from(e.k) - sd < h {
                l.state = Outcome::Widen;
                n += 1;
                let k = l.key();
                if let Err(p) = self.set.vetoes.binary_search(&k) {
                    self.set.vetoes.insert(p, k);
                }
            }
        }
        n
    }

    /// Checks the set's structure and certificates at the pose `g.b_to_a`, which must be
    /// the pose of the last query ([`ActiveSet::validate`] on the materialised
    /// certificates), and that the reported set is the set of stored contacts.
    pub fn validate(&mut self, g: &PairGeometry) -> Result<(), String> {
        self.materialise();
        self.set.validate(g)?;
        let mut want: Vec<u64> = (self.set.near.iter())
            .filter(|l| l.state == Outcome::FineContact)
            .map(Leaf::key)
            .collect();
        want.sort_unstable();
        if want != self.pairs {
            return Err("the reported set is not the set of stored contacts".into());
        }
        if self.set.expiry.len() != self.set.near.len() {
            return Err("one expiry per stored pair".into());
        }
        if self.wit.len() != self.pairs.len() {
            return Err("one witness per reported pair".into());
        }
        // Every witness bounds its pair's distance from above (`witness.rs`).
        for (&k, w) in self.pairs.iter().zip(&self.wit) {
            let u = w.distance(&g.b_to_a);
            if u.is_nan() {
                continue;
            }
            let (ia, ib) = ((k >> 33) as usize, ((k as u32) >> 1) as usize);
            let (Some(t1), Some(t2)) = (g.a.soup.get(ia), g.b.soup.get(ib)) else {
                return Err(format!("witness of an unknown pair ({ia}, {ib})"));
            };
            let d = triangle_triangle_exact(t1, &t2.transformed(&g.b_to_a)).dist();
            // Up to the rounding allowance ρ of the certificates (`witness.rs`).
            let rho = f64::from(rho_real(g.coord_bound, g.eps_a + g.eps_b));
            if f64::from(d) > u + rho {
                return Err(format!(
                    "pair ({ia}, {ib}): distance {d} beyond its witness distance {u}"
                ));
            }
        }
        Ok(())
    }

    /// Adds B's motion bound since the last query to `spent` (rounded up) and moves the
    /// base pose to the current one.
    fn advance(&mut self, g: &PairGeometry) {
        // The directional certificates' drift: B's rotation term, plus the slack on B's
        // displacement bound (`direction.rs`).
        let centre = sphere_centre(g);
        let base = &self.set.base;
        let c = Point3::new(g.b_sphere[0], g.b_sphere[1], g.b_sphere[2]);
        let shift = (g.b_to_a * c - base * c).norm();
        let dq = g.b_to_a.rotation * base.rotation.inverse();
        let turn = 2.0 * dq.quaternion().imag().norm() * g.b_sphere[3];
        let step = (turn + MOTION_SLACK * (shift + turn)) * (1.0 + 2.0 * MOTION_SLACK);
        self.drift.advance(step, centre);
        let d = g.motion_since(&self.set.base) * (1.0 + 2.0 * MOTION_SLACK);
        if d > 0.0 {
            // One ulp up covers the rounding of the sum.
            self.spent = next_up(self.spent + d);
        } else if d.is_nan() {
            self.spent = f64::INFINITY;
        }
        self.set.base = g.b_to_a;
    }

    /// Writes every leaf's certificate relative to the current pose into its clearance
    /// (idle pairs) or slack (contacts; their clearance certifies nothing), for a
    /// validation.
    fn materialise(&mut self) {
        for i in 0..self.set.near.len() {
            self.materialise_leaf(i);
        }
    }

    /// [`EventSet::materialise`] for leaf `i`.
    fn materialise_leaf(&mut self, i: usize) {
        let spent = self.spent;
        let Some(l) = self.set.near.get_mut(i) else {
            return;
        };
        let x = self.set.expiry.get(i).copied().unwrap_or(Expiry {
            at: f32::NEG_INFINITY,
            ..Expiry::NEW
        });
        let mut c = left(f64::from(x.at), spent);
        if l.state.idle() {
            // The directional room where larger (a clearance at this pose too).
            c = c.max(down32(self.drift.room(&x)));
        }
        if l.state == Outcome::FineContact {
            l.slack = c;
            l.clear = f32::NEG_INFINITY;
        } else if l.state.idle() {
            l.clear = c;
        }
    }

    /// Expiries (of the new leaves from their certificates, which refer to the current
    /// pose), reported set and narrowing triggers anew from the leaves.
    fn rebuild(&mut self) {
        std::mem::swap(&mut self.prev.0, &mut self.pairs);
        std::mem::swap(&mut self.prev.1, &mut self.wit);
        self.pairs.clear();
        self.wit.clear();
        self.flagged.clear();
        let spent = self.spent;
        let expiry = &mut self.set.expiry;
        if expiry.len() != self.set.near.len() {
            // Not carried (cannot happen with `keep_all`): every pair is checked next.
            expiry.clear();
            expiry.resize(
                self.set.near.len(),
                Expiry {
                    at: f32::NEG_INFINITY,
                    ..Expiry::NEW
                },
            );
        }
        for (i, (l, e)) in self.set.near.iter().zip(expiry.iter_mut()).enumerate() {
            if e.at.is_nan() {
                e.at = down32(expiry_of(certificate(l), spent));
                if l.state.idle() {
                    // Its directional certificate when first needed (`LAZY`).
                    e.k = LAZY;
                }
            }
            if l.state == Outcome::FineContact {
                self.pairs.push(l.key());
            }
            if l.now_idle() {
                self.flagged.push(i as u32);
            }
        }
        self.pairs.sort_unstable();
        // The witnesses of the pairs that stay (both lists sorted).
        let (old, old_wit) = (&self.prev.0, &self.prev.1);
        let mut j = 0;
        for &k in &self.pairs {
            while j < old.len() && old[j] < k {
                j += 1;
            }
            let kept = (old.get(j) == Some(&k)).then(|| old_wit.get(j)).flatten();
            self.wit.push(kept.copied().unwrap_or(Witness::NONE));
        }
    }

    /// Records the witness points of the real contacts the kernel found at this query
    /// (`witness.rs`) for the pairs of the reported set.
    fn harvest(&mut self, g: &PairGeometry) {
        for h in &self.hits {
            if !(h.p.iter().chain(&h.q).all(|x| x.is_finite())) {
                continue;
            }
            let k = u64::from(h.tri_a << 1 | 1) << 32 | u64::from(h.tri_b << 1 | 1);
            if let Ok(i) = self.pairs.binary_search(&k) {
                if let Some(w) = self.wit.get_mut(i) {
                    *w = Witness::of(h.p, h.q, &g.a_to_b);
                }
            }
        }
    }

    /// The leaves whose expiry `spent` reached, into `expired` (in leaf order; `scan.rs`);
    /// returns the pairs held by the directional certificate alone.
    fn find_expired(&mut self) -> u64 {
        self.expired.clear();
        // `at ≤ spent` exactly when `at ≤ now` (`at` is an `f32`), and the directional
        // room `k − S` is not positive exactly when `k ≤ s`.
        let now = down32(self.spent);
        let s = down32(self.drift.s());
        scan::expired(&self.set.expiry, now, s, &mut self.expired)
    }

    /// Checks the expired leaves at the current pose (their stored clearances reset: an
    /// expired pair's certificates are spent), then gives them new expiries and updates
    /// the reported set.
    fn check_expired(&mut self, g: &PairGeometry, s: &mut Scratch, rep: &mut IterationReport) {
        self.set.walk_due = false;
        let (spent, drift) = (self.spent, self.drift);
        let s_now = down32(drift.s());
        let mut at = 0;
        while at < self.expired.len() {
            s.batch.clear();
            while at < self.expired.len() && s.batch.len() < CHUNK {
                let i = self.expired[at] as usize;
                at += 1;
                let Some(leaf) = self.set.near.get(i) else {
                    continue;
                };
                if leaf.state == Outcome::FineContact && g.coord_bound.is_finite() {
                    // Renewed from the witness points where they certify it: a new
                    // expiry, nothing else changes (the leaf's slack is materialised
                    // from its expiry where needed).
                    let w = (self.pairs.binary_search(&leaf.key()).ok())
                        .and_then(|p| self.wit.get(p))
                        .map_or(f32::NEG_INFINITY, |w| {
                            let margin = g.eps_a + g.eps_b;
                            w.slack(&g.b_to_a, margin, rho_real(g.coord_bound, margin))
                        });
                    if w > 0.0 {
                        if let Some(x) = self.set.expiry.get_mut(i) {
                            x.at = down32(expiry_of(w, spent));
                        }
                        rep.witnessed += 1;
                        self.expired[at - 1] = RENEWED;
                        continue;
                    }
                }
                let Some(&leaf) = self.set.near.get(i) else {
                    continue;
                };
                let (a, b) = leaf.elements();
                let (t1, t2, margin) = pair_tris(g, s, a, b);
                let (ia, ib) = soup(g, a, b);
                let r = rho(g.coord_bound, (&t1, &t2), margin);
                let k = self.slab.anchor(&drift, (ia, &t1), (ib, &t2), margin, r);
                let Some(x) = self.set.expiry.get_mut(i) else {
                    continue;
                };
                if leaf.state.idle() && k > s_now {
                    // Its directional certificate anew at this pose holds it (its first
                    // one where `LAZY`): as the scan holds a pair, nothing else changes.
                    x.k = k;
                    rep.renewed += 1;
                    self.expired[at - 1] = RENEWED;
                    continue;
                }
                // Kept below if the check finds the pair idle.
                x.k = k;
                // Its certificates are spent (≤ 0 at this pose): no clearance to keep, the
                // check's bound alone gives the new one (`check.rs`).
                if let Some(l) = self.set.near.get_mut(i) {
                    l.clear = f32::NEG_INFINITY;
                }
                count(a, b, &mut rep.stats);
                s.batch.push(&t1, &t2, margin, i as u32, a.real && b.real);
            }
            let (hits, coarse) = (&mut self.hits, &mut self.coarse);
            self.set.run_batch(g, 0.0, s, hits, coarse, rep);
        }
        for at in 0..self.expired.len() {
            let i = self.expired[at];
            let Some(&l) = self.set.near.get(i as usize) else {
                // `RENEWED` (or out of range): nothing changed.
                continue;
            };
            if let Some(x) = self.set.expiry.get_mut(i as usize) {
                x.at = down32(expiry_of(certificate(&l), spent));
                if !l.state.idle() {
                    x.k = f32::NEG_INFINITY;
                }
            }

            if l.now_idle() {
                self.flagged.push(i);
            }
            let k = l.key();
            match (
                self.pairs.binary_search(&k),
                l.state == Outcome::FineContact,
            ) {
                (Err(p), true) => {
                    self.pairs.insert(p, k);
                    self.wit.insert(p, Witness::NONE);
                }
                (Ok(p), false) => {
                    self.pairs.remove(p);
                    self.wit.remove(p);
                }
                _ => {}
            }
        }
    }
}

/// An entry of `EventSet::expired` whose pair its witness points or its first
/// directional certificate renewed (no leaf index).
const RENEWED: u32 = u32::MAX;

/// `K` of an idle leaf a walk created, whose directional certificate is not computed yet
/// (NaN: the scan finds it spent, `scan.rs`): computed at its first expiry, at that pose
/// (`EventSet::check_expired`; in `EventSet::prewiden` where its isotropic expiry is
/// within the skin). A leaf rewritten by a later walk, or whose isotropic expiry is never
/// reached, never needs it.
const LAZY: f32 = f32::NAN;

/// B's bounding-sphere centre in A's frame at the current pose \[m\].
fn sphere_centre(g: &PairGeometry) -> [f64; 3] {
    let c = g.b_to_a * Point3::new(g.b_sphere[0], g.b_sphere[1], g.b_sphere[2]);
    [c.x, c.y, c.z]
}

/// The directional certificate of leaf `l` at the current pose (`direction.rs`).
fn anchor(g: &PairGeometry, s: &mut Scratch, drift: &Drift, slab: &mut SlabCache, l: &Leaf) -> f32 {
    let (a, b) = l.elements();
    let (t1, t2, margin) = pair_tris(g, s, a, b);
    let (ia, ib) = soup(g, a, b);
    let r = rho(g.coord_bound, (&t1, &t2), margin);
    slab.anchor(drift, (ia, &t1), (ib, &t2), margin, r)
}

/// The soup indices of the triangles of the elements `a` (A's) and `b` (B's), as
/// `pair_tris` takes them (`u32::MAX` for an unknown node: not cached).
fn soup(g: &PairGeometry, a: Element, b: Element) -> (u32, u32) {
    let of = |t: &msdem_tree::SurrogateTree, e: Element| {
        if e.real {
            e.index
        } else {
            t.nodes.get(e.index as usize).map_or(u32::MAX, |n| n.tri)
        }
    };
    (of(g.a, a), of(g.b, b))
}

/// The expiry of a certificate `c` \[m\] computed at the pose where the accumulated
/// motion is `spent` \[m\] (rounded down; NaN gives `-inf`: expired).
fn expiry_of(c: f32, spent: f64) -> f64 {
    let e = spent + f64::from(c);
    if e.is_nan() {
        f64::NEG_INFINITY
    } else if e.is_finite() {
        -next_up(-e)
    } else {
        e
    }
}

/// The certificate left of expiry `e` when the accumulated motion is `spent` \[m\]
/// (rounded down; NaN gives `-inf`).
fn left(e: f64, spent: f64) -> f32 {
    let room = e - spent;
    if room.is_nan() {
        return f32::NEG_INFINITY;
    }
    let c = room as f32;
    if c == f32::INFINITY && room.is_finite() {
        f32::MAX
    } else if f64::from(c) > room && c.is_finite() {
        // The next `f32` below `c` (from a zero of either sign: the negative subnormal).
        f32::from_bits(if c > 0.0 {
            c.to_bits() - 1
        } else {
            c.to_bits() + 1
        })
    } else {
        c
    }
}

/// Adds the checks and updates of `r` to `rep`.
fn absorb(rep: &mut IterationReport, r: &IterationReport) {
    rep.stats += &r.stats;
    rep.skipped += r.skipped;
    rep.renewed += r.renewed;
    rep.witnessed += r.witnessed;
    rep.ahead += r.ahead;
    rep.bounds += r.bounds;
    rep.counts.unfolds += r.counts.unfolds;
    rep.counts.narrows += r.counts.narrows;
}
