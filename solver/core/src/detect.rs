//! The detection layer every integrator calls (seed 000 Alg. 1 lines 3–5, Alg. 5, Alg. 6):
//!
//! 1. **broad phase** — candidate body pairs from bounding spheres incl. ε
//!    ([`broad`]; one broad-phase instance per [`Detector`], so per run);
//! 2. **narrow phase per pair, dispatched by the pair of particle kinds**
//!    ([`dispatch`]), by one of three searches:
//!    * [`Search::Roots`] — a complete search from scratch: the multiresolution descent
//!      of the two surrogate trees from their roots (Alg. 5) or the flat search of every
//!      real triangle pair (Alg. 2);
//!    * [`Search::Kept`] — the same contacts from active sets kept from the previous
//!      detection, whose stored pairs carry exact separation certificates, widened at the
//!      current pose until no surrogate pair is in contact (both are the flat contacts,
//!      Lemma 5.7; tested step by step); the pairs whose certificate still holds are
//!      skipped;
//!    * [`Detector::iterate`] — one multiscale Picard iteration on the kept sets: widened
//!      by at most one level, narrowed, with coarse force estimates (Alg. 6);
//! 3. **merge** — contact points of one body pair closer than ε become their average
//!    (Implementation remark 1, [`crate::contact::merge`]).
//!
//! The detector owns the broad phase, the per-pair buffers and the kept sets (a cache:
//! the contacts do not depend on it); the model and state are borrowed per call.

pub mod broad;
pub mod dispatch;

mod active;
mod ellipsoid_ellipsoid;
mod ellipsoid_mesh;
mod kept;
pub mod mesh_mesh;
mod report;
mod roots;
mod sides;

pub use active::CertificateSkin;
pub use mesh_mesh::{fine_contacts, kernel_kind, traverse_mode, tree_normals, PairSides};
pub use report::{Detection, KeptPass, Search, UpdateCounts};

use std::time::Instant;

use broad::{BroadStage, CandidatePair};
use kept::KeptSets;
use roots::PairContacts;

use crate::contact::patch::pair_contacts;
use crate::contact::Contact;
use crate::error::StepError;
use crate::frames::PhaseTimes;
use crate::model::Model;
use crate::params::{BroadPhaseChoice, KernelChoice, Params};
use crate::state::State;
use msdem_broadphase::BroadPhaseStats;
use msdem_tree::traverse::{LevelStats, MAX_LEVELS};

/// The detection layer of a run: one broad phase, the per-pair buffers and the kept
/// sets (see the module docs).
#[derive(Debug)]
pub struct Detector {
    kernel: KernelChoice,
    broadphase: BroadPhaseChoice,
    broad: BroadStage,
    pairs: Vec<CandidatePair>,
    roots: Vec<PairContacts>,
    kept: KeptSets,
}

impl Detector {
    /// A detector with the kernel and broad phase of `params`.
    pub fn new(params: &Params) -> Self {
        Self::with(params.kernel, params.broadphase.clone())
    }

    /// A detector with the given triangle kernel and broad phase.
    pub fn with(kernel: KernelChoice, broadphase: BroadPhaseChoice) -> Self {
        Detector {
            kernel,
            broadphase,
            broad: BroadStage::default(),
            pairs: Vec::new(),
            roots: Vec::new(),
            kept: KeptSets::default(),
        }
    }

    /// The state a checkpoint must carry for a resumed run to do exactly the work of an
    /// uninterrupted one: the kept active sets (the broad phase re-filters its pairs
    /// exactly and the other buffers are scratch).
    pub fn snapshot(&self) -> Vec<u8> {
        self.kept.snapshot()
    }

    /// Restores a [`Detector::snapshot`].
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.kept.restore(bytes)
    }

    /// The triangle kernel.
    pub fn kernel(&self) -> KernelChoice {
        self.kernel
    }

    /// Candidate pairs of the last detection, in the broad phase's order.
    pub fn pairs(&self) -> &[CandidatePair] {
        &self.pairs
    }

    /// Work counters of the broad phase's last particle–particle query.
    pub fn broad_stats(&self) -> BroadPhaseStats {
        self.broad.stats()
    }

    fn broad_phase(&mut self, model: &Model, state: &State) -> Result<(), StepError> {
        self.broad
            .candidates(model, &state.bodies, &self.broadphase, &mut self.pairs)
            .map_err(|source| StepError::BroadPhase {
                step: state.step + 1,
                source,
            })
    }

    /// Every contact of `state` (merged, remark 1) into `out`, found by `search`; adds
    /// the phase times to `wall`.
    pub fn detect(
        &mut self,
        model: &Model,
        state: &State,
        search: Search,
        out: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<Detection, StepError> {
        let t0 = Instant::now();
        self.broad_phase(model, state)?;
        wall.broad += t0.elapsed().as_secs_f64();
        Ok(self.narrow(model, state, search, out, wall))
    }

    /// Every contact (merged, remark 1) of the given candidate pairs `pairs` at `state`
    /// into `out`, found by `search` — [`Detector::detect`] with the broad phase done by
    /// the caller (a distributed run passes the pairs its rank owns, in the broad phase's
    /// order; the kept sets follow the pairs by their key). Adds the phase times to `wall`.
    pub fn detect_candidates(
        &mut self,
        model: &Model,
        state: &State,
        search: Search,
        pairs: &[CandidatePair],
        out: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Detection {
        self.pairs.clear();
        self.pairs.extend_from_slice(pairs);
        self.narrow(model, state, search, out, wall)
    }

    /// Removes the kept sets of the pairs whose particle `a` `dest` sends to another rank
    /// (`Some(rank)`, below `parts`) and returns them encoded per rank (empty where none);
    /// [`Detector::insert_pair_states`] takes them in. A distributed run moves a pair's
    /// kept set with the particle that owns the pair, so that the work (and so the
    /// statistics) stay those of one process.
    pub fn take_pair_states(
        &mut self,
        dest: impl FnMut(u32) -> Option<usize>,
        parts: usize,
    ) -> Vec<Vec<u8>> {
        self.kept.take_states(dest, parts)
    }

    /// The kept sets of every pair, encoded as [`Detector::take_pair_states`] encodes
    /// them, without removing them: a distributed checkpoint gathers them on rank 0,
    /// which adds them with [`Detector::insert_pair_states`] so that its
    /// [`Detector::snapshot`] is that of one process.
    pub fn pair_states(&self) -> Vec<u8> {
        self.kept.copy_states()
    }

    /// Adds kept sets taken by [`Detector::take_pair_states`]; an error says what did not
    /// decode.
    pub fn insert_pair_states(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.kept.insert_states(bytes)
    }

    /// The narrow phase and merge over `self.pairs`.
    fn narrow(
        &mut self,
        model: &Model,
        state: &State,
        search: Search,
        out: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Detection {
        let t1 = Instant::now();
        let bodies = &state.bodies;
        let d = match search {
            Search::Kept => {
                let mut coarse = Vec::new();
                let d = self.kept.detect(
                    model,
                    bodies,
                    self.kernel,
                    &self.pairs,
                    None,
                    out,
                    &mut coarse,
                );
                let t2 = Instant::now();
                wall.narrow += (t2 - t1).as_secs_f64();
                wall.forces += t2.elapsed().as_secs_f64();
                d
            }
            Search::Roots(mode) => {
                roots::search_all(
                    model,
                    bodies,
                    mode,
                    self.kernel,
                    &self.pairs,
                    &mut self.roots,
                );
                let t2 = Instant::now();
                out.clear();
                let mut stats = LevelStats::default();
                for (pair, found) in self.pairs.iter().zip(&self.roots) {
                    stats += &found.stats;
                    if found.raw.is_empty() {
                        continue;
                    }
                    pair_contacts(model, bodies, pair.a, pair.b, &found.raw, out);
                }
                wall.narrow += (t2 - t1).as_secs_f64();
                wall.forces += t2.elapsed().as_secs_f64();
                Detection {
                    pairs: self.pairs.len() as u32,
                    stats,
                    ..Detection::default()
                }
            }
        };
        d
    }

    /// Every contact of `state` found by `search` (a convenience form of
    /// [`Detector::detect`] for one-off looks: a new vector, phase times dropped).
    pub fn contacts(
        &mut self,
        model: &Model,
        state: &State,
        search: Search,
    ) -> Result<(Vec<Contact>, Detection), StepError> {
        let mut out = Vec::new();
        let d = self.detect(model, state, search, &mut out, &mut PhaseTimes::default())?;
        Ok((out, d))
    }

    /// One multiscale Picard iteration's detection at `state` (Alg. 6 lines 3–21): fine
    /// contacts (merged) to `fine`, merged coarse force estimates to `coarse`; the kept
    /// sets are widened and narrowed for the next iteration. `moved[i]`: particle `i`'s
    /// pose changed since the previous iteration (pairs of two unmoved particles whose
    /// set was quiet keep their contacts).
    pub fn iterate(
        &mut self,
        model: &Model,
        state: &State,
        moved: &[bool],
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<Detection, StepError> {
        let t0 = Instant::now();
        self.broad_phase(model, state)?;
        wall.broad += t0.elapsed().as_secs_f64();
        Ok(self.iterate_kept(model, state, moved, fine, coarse, wall))
    }

    /// [`Detector::iterate`] on the given candidate pairs `pairs` (the broad phase done
    /// by the caller: a distributed run passes the pairs its rank owns, in the broad
    /// phase's order; the kept sets follow the pairs by their key).
    #[allow(clippy::too_many_arguments)]
    pub fn iterate_candidates(
        &mut self,
        model: &Model,
        state: &State,
        pairs: &[CandidatePair],
        moved: &[bool],
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Detection {
        self.pairs.clear();
        self.pairs.extend_from_slice(pairs);
        self.iterate_kept(model, state, moved, fine, coarse, wall)
    }

    /// The kept sets' detection of a Picard iteration on `self.pairs` (shared by
    /// [`Detector::iterate`] and [`Detector::iterate_candidates`]).
    fn iterate_kept(
        &mut self,
        model: &Model,
        state: &State,
        moved: &[bool],
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Detection {
        let t1 = Instant::now();
        let d = self.kept.detect(
            model,
            &state.bodies,
            self.kernel,
            &self.pairs,
            Some(moved),
            fine,
            coarse,
        );
        let t2 = Instant::now();
        wall.narrow += (t2 - t1).as_secs_f64();
        wall.forces += t2.elapsed().as_secs_f64();
        d
    }

    /// Starts a time step of the kept sets: forgets every set (`restart`: Alg. 6 line 1
    /// read literally) or only the per-step memory sets and vetoes (new sets then start
    /// from one full descent).
    pub fn begin_step(&mut self, restart: bool) {
        self.kept.begin_step(restart);
    }

    /// Diagnostic switch of the kept sets: with `on`, every active pair is checked in
    /// every Picard iteration instead of skipping the pairs whose separation certificate
    /// decides the outcome. The results are the same either way; only the counts differ.
    pub fn set_recheck_all(&mut self, on: bool) {
        self.kept.recheck_all = on;
    }

    /// Sets the certificate skin of the kept sets (base skin and refresh period; the
    /// setting of the sets' user: the explicit integrator sets
    /// [`CertificateSkin::EXPLICIT`] before each detection; the implicit detection keeps
    /// [`CertificateSkin::DEFAULT`]). The contacts do not depend on it.
    pub fn set_skin(&mut self, skin: CertificateSkin) {
        self.kept.set_skin(skin);
    }

    /// The certificate skin of the kept sets.
    pub fn skin(&self) -> CertificateSkin {
        self.kept.skin()
    }

    /// Number of active element pairs of the kept sets, over all particle pairs.
    pub fn active_pairs(&self) -> usize {
        self.kept.active_len()
    }

    /// Bytes held by the kept sets and their per-pair buffers.
    pub fn active_bytes(&self) -> usize {
        self.kept.bytes()
    }

    /// Checks the structural invariants of every kept set (complete cut of the
    /// simultaneous descent, siblings together, remark 6) at `state`, for the candidate
    /// pairs of the last detection; returns a description of the first violation.
    pub fn validate_kept_sets(&mut self, model: &Model, state: &State) -> Result<(), String> {
        self.kept
            .validate(model, &state.bodies, self.kernel, &self.pairs)
    }
}

/// Entries of [`crate::frames::StepStats::checks_per_level`] for `model`: one per tree
/// level (the deepest level of any shape or obstacle tree, capped at the traversal's
/// counters) plus a last entry with the fine–fine checks (which are also counted on their
/// level).
pub fn stats_levels(model: &Model) -> u32 {
    let depth = model
        .shapes
        .iter()
        .map(|s| &s.geometry)
        .chain(model.obstacles.iter().map(|o| &o.geometry))
        .filter_map(|g| g.tree())
        .flat_map(|t| t.nodes.iter().map(|n| n.level + 1))
        .max()
        .unwrap_or(1);
    depth.min(MAX_LEVELS as u32) + 1
}

/// [`crate::frames::StepStats::checks_per_level`] of `s` with `levels` entries
/// ([`stats_levels`]).
pub fn checks_per_level(levels: u32, s: &LevelStats) -> Vec<u64> {
    let tree_levels = (levels.saturating_sub(1) as usize).min(MAX_LEVELS);
    let mut v = s.checks[..tree_levels].to_vec();
    v.push(s.fine);
    v
}
