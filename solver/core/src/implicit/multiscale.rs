//! Contact detection of one multiscale Picard iteration (seed 000 Alg. 6 lines 3–21):
//! broad phase at the guessed state, then per candidate pair its persistent
//! [`ActiveSet`] is checked, widened and narrowed, in parallel over pairs (each pair owns
//! its state, results are read back in pair order: deterministic for any thread count).

use super::active::{ActiveSet, BCache, CoarseHit, PairGeometry, UpdateCounts};
use super::raw::{coarse_contacts, fine_contacts, PairSides};
use crate::broad::{BroadStage, CandidatePair};
use crate::contact::merge::merge_pair;
use crate::contact::pair::PairParams;
use crate::contact::{Contact, RawContact};
use crate::frames::{Other, PhaseTimes};
use crate::narrow::kernel_kind;
use crate::step::StepError;
use crate::world::World;
use msdem_tree::{LevelStats, TriContact};
use rayon::prelude::*;
use std::time::Instant;

/// Sort key of a candidate pair, in the broad phase's output order: particle pairs first,
/// then particle–obstacle pairs, each ascending.
type PairKey = (u8, u32, u32);

fn key(p: &CandidatePair) -> PairKey {
    match p.b {
        Other::Particle(j) => (0, p.a, j),
        Other::Obstacle(o) => (1, p.a, o),
    }
}

/// Persistent state and per-iteration results of one particle pair.
#[derive(Debug, Default)]
struct PairState {
    key: PairKey,
    set: ActiveSet,
    hits: Vec<TriContact>,
    coarse_hits: Vec<CoarseHit>,
    raw: Vec<RawContact>,
    coarse_raw: Vec<RawContact>,
    stats: LevelStats,
    counts: UpdateCounts,
    active: u64,
}

/// What one multiscale detection reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct MultiscaleDetect {
    /// Candidate pairs.
    pub pairs: u32,
    /// Kernel calls per level.
    pub stats: LevelStats,
    /// Widenings and narrowings of this iteration.
    pub counts: UpdateCounts,
    /// Active pairs checked (summed over particle pairs).
    pub active: u64,
}

/// Broad phase, active sets and buffers of multiscale Picard.
#[derive(Debug, Default)]
pub struct MultiscaleStage {
    broad: BroadStage,
    pairs: Vec<CandidatePair>,
    states: Vec<PairState>,
}

impl MultiscaleStage {
    /// Starts a time step: forgets all active sets (`restart`) or only the memory sets.
    pub fn begin_step(&mut self, restart: bool) {
        if restart {
            self.states.clear();
        } else {
            self.states.iter_mut().for_each(|s| s.set.forget());
        }
    }

    /// Total number of active pairs over all particle pairs.
    pub fn active_len(&self) -> usize {
        self.states.iter().map(|s| s.set.active_len()).sum()
    }

    /// Validates every active set ([`ActiveSet::validate`]) against `world`'s current
    /// candidate pairs; returns the first violation.
    pub fn validate(&mut self, world: &World) -> Result<(), String> {
        for (pair, st) in self.pairs.iter().zip(self.states.iter_mut()) {
            let s = PairSides::of(world, pair);
            let g = geometry(world, &s);
            st.set
                .validate(&g)
                .map_err(|e| format!("pair {pair:?}: {e}"))?;
        }
        Ok(())
    }

    /// One iteration's detection at the state of `world`: fine contacts (merged, remark 1)
    /// to `fine`, merged coarse force estimates to `coarse`; the active sets are widened
    /// and narrowed for the next iteration.
    pub fn detect(
        &mut self,
        world: &World,
        fine: &mut Vec<Contact>,
        coarse: &mut Vec<Contact>,
        wall: &mut PhaseTimes,
    ) -> Result<MultiscaleDetect, StepError> {
        let t0 = Instant::now();
        self.broad
            .candidates(world, &mut self.pairs)
            .map_err(|source| StepError::BroadPhase {
                step: world.step + 1,
                source,
            })?;
        self.align();
        let t1 = Instant::now();
        self.states
            .par_iter_mut()
            .zip(self.pairs.par_iter())
            .for_each_init(BCache::default, |cache, (st, pair)| {
                process(world, pair, st, cache)
            });
        let t2 = Instant::now();
        fine.clear();
        coarse.clear();
        let mut out = MultiscaleDetect {
            pairs: self.pairs.len() as u32,
            ..MultiscaleDetect::default()
        };
        for (pair, st) in self.pairs.iter().zip(&self.states) {
            out.stats += &st.stats;
            out.counts.unfolds += st.counts.unfolds;
            out.counts.narrows += st.counts.narrows;
            out.active += st.active;
            if st.raw.is_empty() && st.coarse_raw.is_empty() {
                continue;
            }
            let radius = 0.5 * PairParams::of(world, pair.a, pair.b).margin;
            merge_pair(pair.a, pair.b, &st.raw, radius, fine);
            merge_pair(pair.a, pair.b, &st.coarse_raw, radius, coarse);
        }
        wall.broad += (t1 - t0).as_secs_f64();
        wall.narrow += (t2 - t1).as_secs_f64();
        wall.forces += t2.elapsed().as_secs_f64();
        Ok(out)
    }

    /// Lines the pair states up with the new candidate pairs, keeping the state of every
    /// pair that stays a candidate; pairs that left the broad phase lose theirs.
    fn align(&mut self) {
        let old = std::mem::take(&mut self.states);
        let sorted = |v: &[PairKey]| v.windows(2).all(|w| w[0] < w[1]);
        let new_keys: Vec<PairKey> = self.pairs.iter().map(key).collect();
        let old_keys: Vec<PairKey> = old.iter().map(|s| s.key).collect();
        let mut states = Vec::with_capacity(self.pairs.len());
        if sorted(&new_keys) && sorted(&old_keys) {
            let mut it = old.into_iter().peekable();
            for &k in &new_keys {
                while it.peek().is_some_and(|s| s.key < k) {
                    it.next();
                }
                match it.peek() {
                    Some(s) if s.key == k => states.push(it.next().unwrap_or_default()),
                    _ => states.push(PairState {
                        key: k,
                        ..PairState::default()
                    }),
                }
            }
        } else {
            let mut map: std::collections::BTreeMap<PairKey, PairState> =
                old.into_iter().map(|s| (s.key, s)).collect();
            for &k in &new_keys {
                states.push(map.remove(&k).unwrap_or_else(|| PairState {
                    key: k,
                    ..PairState::default()
                }));
            }
        }
        self.states = states;
    }
}

fn geometry<'a>(world: &World, s: &PairSides<'a>) -> PairGeometry<'a> {
    PairGeometry {
        a: s.tree_a,
        eps_a: s.eps_a as f32,
        b: s.tree_b,
        eps_b: s.eps_b as f32,
        b_to_a: s.b_to_a(),
        kernel: kernel_kind(world.params.kernel),
    }
}

fn process(world: &World, pair: &CandidatePair, st: &mut PairState, cache: &mut BCache) {
    let sides = PairSides::of(world, pair);
    let g = geometry(world, &sides);
    if !st.set.is_initialised() {
        st.set.reset(&g);
    }
    st.hits.clear();
    st.coarse_hits.clear();
    st.raw.clear();
    st.coarse_raw.clear();
    st.stats = LevelStats::default();
    st.set
        .check(&g, cache, &mut st.hits, &mut st.coarse_hits, &mut st.stats);
    st.active = st.stats.total();
    fine_contacts(world, pair, &sides, &mut st.hits, &mut st.raw);
    coarse_contacts(&sides, &st.coarse_hits, &mut st.coarse_raw);
    st.counts = st.set.update(&g, cache, &mut st.stats);
}
