//! Kept active sets (seed 000 Alg. 6 lines 3–21, and explicit steps on the same sets):
//! per candidate pair a persistent state ([`KeptPair`], by pair kind) is processed at the
//! current poses — checked where its certificates do not already decide, widened and
//! narrowed — and its contacts merged, in parallel over pairs (each pair owns its state,
//! counters are integer sums and contacts are read back in pair order: deterministic for
//! any thread count).

use super::active::CertificateSkin;
use super::broad::CandidatePair;
use super::dispatch::{kept_pair, validate_pair, KeptCaches, KeptPair, KeptScratches};
use super::report::{Detection, KeptPass};
use crate::contact::merge::merge_pair;
use crate::contact::pair::PairParams;
use crate::contact::patch::pair_contacts;
use crate::contact::{Contact, RawContact};
use crate::model::{Model, Other};
use crate::params::KernelChoice;
use crate::state::Body;
use rayon::prelude::*;

/// Below this many candidate pairs a detection runs on the calling thread: a parallel
/// pass costs two thread wake-ups, which on a few dozen pairs (the staircase: ~0.2 ms per
/// step) weighed more than the work shared.
const SEQUENTIAL_BELOW: usize = 128;

/// Sort key of a candidate pair, in the broad phase's output order: particle pairs first,
/// then particle–obstacle pairs, each ascending.
type PairKey = (u8, u32, u32);

fn key(p: &CandidatePair) -> PairKey {
    match p.b {
        Other::Particle(j) => (0, p.a, j),
        Other::Obstacle(o) => (1, p.a, o),
    }
}

/// Persistent state and the last detection's merged contacts of one particle pair.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct PairState {
    key: PairKey,
    kept: KeptPair,
    fine: Vec<Contact>,
    coarse: Vec<Contact>,
    /// The last detection neither widened, narrowed nor refreshed this pair's set: at the
    /// same poses another one would find the same contacts.
    quiet: bool,
}

/// Per-thread buffers of the per-pair work.
#[derive(Debug, Default)]
struct ThreadScratch {
    kinds: KeptScratches,
    raw: Vec<RawContact>,
    coarse_raw: Vec<RawContact>,
}

/// The kept states of every candidate pair, aligned with the broad phase's pairs.
#[derive(Debug, Default)]
pub struct KeptSets {
    states: Vec<PairState>,
    caches: KeptCaches,
    /// Start new active sets from one full descent (kept sets) instead of the roots.
    seed: bool,
    /// Check every active pair in every iteration (diagnostic).
    pub recheck_all: bool,
    /// Scratch of the sequential path (few pairs).
    sequential: ThreadScratch,
}

/// The part of [`KeptSets`] a checkpoint carries: the per-pair states and whether new
/// sets start from a full descent (the caches are rebuilt from the model, the scratch is
/// scratch).
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptSnapshot {
    states: Vec<PairState>,
    seed: bool,
    recheck_all: bool,
}

impl KeptSets {
    /// The kept sets as bytes for a checkpoint ([`KeptSets::restore`] reads them back).
    pub fn snapshot(&self) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct Ref<'a> {
            states: &'a [PairState],
            seed: bool,
            recheck_all: bool,
        }
        postcard::to_allocvec(&Ref {
            states: &self.states,
            seed: self.seed,
            recheck_all: self.recheck_all,
        })
        .unwrap_or_default()
    }

    /// Replaces the kept sets by a [`KeptSets::snapshot`]; an error names what did not
    /// decode.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let s: KeptSnapshot =
            postcard::from_bytes(bytes).map_err(|e| format!("kept active sets: {e}"))?;
        self.states = s.states;
        self.seed = s.seed;
        self.recheck_all = s.recheck_all;
        Ok(())
    }

    /// Removes the states of the pairs whose particle `a` `dest` maps to `Some(rank)`
    /// (`rank < parts`) and returns them postcard-encoded per rank (empty where none).
    pub fn take_states(
        &mut self,
        mut dest: impl FnMut(u32) -> Option<usize>,
        parts: usize,
    ) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<PairState>> = (0..parts).map(|_| Vec::new()).collect();
        for s in std::mem::take(&mut self.states) {
            match dest(s.key.1) {
                Some(r) if r < parts => out[r].push(s),
                _ => self.states.push(s),
            }
        }
        out.iter()
            .map(|v| match v.is_empty() {
                true => Vec::new(),
                false => postcard::to_allocvec(v).unwrap_or_default(),
            })
            .collect()
    }

    /// Every state, encoded as [`KeptSets::take_states`] encodes one rank's (empty when
    /// there is none), without removing any.
    pub fn copy_states(&self) -> Vec<u8> {
        match self.states.is_empty() {
            true => Vec::new(),
            false => postcard::to_allocvec(&self.states).unwrap_or_default(),
        }
    }

    /// Adds states taken by [`KeptSets::take_states`] (kept in key order); an error names
    /// what did not decode.
    pub fn insert_states(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            return Ok(());
        }
        let v: Vec<PairState> =
            postcard::from_bytes(bytes).map_err(|e| format!("kept active sets: {e}"))?;
        self.states.extend(v);
        self.states.sort_by_key(|s| s.key);
        Ok(())
    }

    /// Starts a time step: forgets all kept sets (`restart`: Alg. 6 line 1 read
    /// literally, new sets start from the root pairs) or only the memory sets and vetoes
    /// (new sets start from one full descent).
    pub fn begin_step(&mut self, restart: bool) {
        self.seed = !restart;
        if restart {
            self.states.clear();
        } else {
            self.states.iter_mut().for_each(|s| s.kept.forget());
        }
    }

    /// Total number of active pairs over all particle pairs.
    pub fn active_len(&self) -> usize {
        self.states.iter().map(|s| s.kept.active_len()).sum()
    }

    /// Bytes held by the kept sets and per-pair buffers.
    pub fn bytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<PairState>()
            + self
                .states
                .iter()
                .map(|s| {
                    s.kept.extra_bytes()
                        + (s.fine.capacity() + s.coarse.capacity()) * std::mem::size_of::<Contact>()
                })
                .sum::<usize>()
    }

    /// Validates every kept set against `pairs` (the candidate pairs of the last
    /// detection); returns the first violation.
    pub fn validate(
        &mut self,
        model: &Model,
        bodies: &[Body],
        kernel: KernelChoice,
        pairs: &[CandidatePair],
    ) -> Result<(), String> {
        self.caches.update(model);
        for (pair, st) in pairs.iter().zip(self.states.iter_mut()) {
            validate_pair(model, bodies, kernel, &self.caches, pair, &mut st.kept)
                .map_err(|e| format!("pair {pair:?}: {e}"))?;
        }
        Ok(())
    }

    /// One detection on the kept sets at the poses of `bodies`, for the candidate
    /// `pairs`: a Picard iteration (`moved`: which particles moved since the last one;
    /// pairs of two unmoved particles whose set was quiet keep their contacts) or, with
    /// `moved = None`, the complete detection of an explicit step. Fine contacts (merged,
    /// remark 1) to `fine`, merged coarse force estimates to `coarse`.
    #[allow(clippy::too_many_arguments)]
    pub fn detect(
        &mut self,
        model: &Model,
        bodies: &[Body],
        kernel: KernelChoice,
        pairs: &[CandidatePair],
        moved: Option<&[bool]>,
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
    ) -> Detection {
        self.caches.update(model);
        self.align(pairs);
        let (caches, seed, all) = (&self.caches, self.seed, self.recheck_all);
        let one = |ts: &mut ThreadScratch, (st, pair): (&mut PairState, &CandidatePair)| {
            let pass = match moved {
                None if all => KeptPass::SettleRecheck,
                None => KeptPass::Settle,
                Some(moved) => {
                    let moved_b = match pair.b {
                        Other::Particle(j) => moved.get(j as usize).copied().unwrap_or(true),
                        Other::Obstacle(_) => false,
                    };
                    let still = !moved.get(pair.a as usize).copied().unwrap_or(true) && !moved_b;
                    if still && st.quiet && !all {
                        return Detection {
                            kept: 1,
                            ..Detection::default()
                        };
                    }
                    KeptPass::Iterate {
                        seed,
                        recheck_all: all,
                    }
                }
            };
            process(model, bodies, kernel, caches, pair, st, ts, pass)
        };
        let mut out = if pairs.len() < SEQUENTIAL_BELOW {
            // Few pairs: waking the worker threads would cost more than the work.
            let ts = &mut self.sequential;
            self.states
                .iter_mut()
                .zip(pairs)
                .map(|item| one(ts, item))
                .fold(Detection::default(), |a, b| a + b)
        } else {
            self.states
                .par_iter_mut()
                .zip(pairs.par_iter())
                .with_min_len(8)
                .map_init(ThreadScratch::default, one)
                .reduce(Detection::default, |a, b| a + b)
        };
        out.pairs = pairs.len() as u32;
        fine.clear();
        coarse.clear();
        for st in &self.states {
            fine.extend_from_slice(&st.fine);
            coarse.extend_from_slice(&st.coarse);
        }
        out
    }

    /// Sets the certificate skin of the sets ([`super::Detector::set_skin`]).
    pub fn set_skin(&mut self, skin: CertificateSkin) {
        self.caches.set_skin(skin);
    }

    /// The certificate skin of the sets.
    pub fn skin(&self) -> CertificateSkin {
        self.caches.skin()
    }

    /// Lines the pair states up with the new candidate pairs, keeping the state of every
    /// pair that stays a candidate; pairs that left the broad phase lose theirs.
    fn align(&mut self, pairs: &[CandidatePair]) {
        let sorted_new = pairs.windows(2).all(|w| key(&w[0]) < key(&w[1]));
        let sorted_old = self.states.windows(2).all(|w| w[0].key < w[1].key);
        let unchanged = self.states.len() == pairs.len()
            && self.states.iter().zip(pairs).all(|(s, p)| s.key == key(p));
        if unchanged {
            return;
        }
        let old = std::mem::take(&mut self.states);
        let mut states = Vec::with_capacity(pairs.len());
        let fresh = |k| PairState {
            key: k,
            ..PairState::default()
        };
        if sorted_new && sorted_old {
            let mut it = old.into_iter().peekable();
            for p in pairs {
                let k = key(p);
                while it.peek().is_some_and(|s| s.key < k) {
                    it.next();
                }
                match it.peek() {
                    Some(s) if s.key == k => states.push(it.next().unwrap_or_default()),
                    _ => states.push(fresh(k)),
                }
            }
        } else {
            let mut map: std::collections::BTreeMap<PairKey, PairState> =
                old.into_iter().map(|s| (s.key, s)).collect();
            for p in pairs {
                let k = key(p);
                states.push(map.remove(&k).unwrap_or_else(|| fresh(k)));
            }
        }
        self.states = states;
    }
}

/// One pair: its kind's kept detection, then the merge of its contacts (remark 1).
#[allow(clippy::too_many_arguments)]
fn process(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    st: &mut PairState,
    ts: &mut ThreadScratch,
    pass: KeptPass,
) -> Detection {
    ts.raw.clear();
    ts.coarse_raw.clear();
    let rep = kept_pair(
        model,
        bodies,
        kernel,
        caches,
        pair,
        &mut st.kept,
        &mut ts.kinds,
        pass,
        &mut ts.raw,
        &mut ts.coarse_raw,
    );
    st.fine.clear();
    st.coarse.clear();
    if !ts.raw.is_empty() || !ts.coarse_raw.is_empty() {
        let radius = 0.5 * PairParams::of(model, bodies, pair.a, pair.b).margin;
        pair_contacts(model, bodies, pair.a, pair.b, &ts.raw, &mut st.fine);
        merge_pair(pair.a, pair.b, &ts.coarse_raw, radius, &mut st.coarse);
    }
    st.quiet = rep.counts.unfolds == 0 && rep.counts.narrows == 0 && rep.refreshed == 0;
    rep
}
