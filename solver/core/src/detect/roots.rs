//! Complete detection from scratch (seed 000 Alg. 5 from the roots, or the flat search of
//! Alg. 2): per candidate pair, its kinds' search ([`super::dispatch::roots_pair`]), in
//! parallel. Every pair writes into its own buffer and buffers are read in pair order
//! afterwards, so the outcome does not depend on the number of threads.

use super::broad::CandidatePair;
use super::dispatch::{roots_pair, RootsScratches};
use crate::contact::RawContact;
use crate::model::Model;
use crate::params::{DetectionMode, KernelChoice};
use crate::state::Body;
use msdem_tree::LevelStats;
use rayon::prelude::*;

/// Raw contacts and check counters of one candidate pair.
#[derive(Clone, Debug, Default)]
pub struct PairContacts {
    /// Fine–fine contacts, world frame, in the pair code's order.
    pub raw: Vec<RawContact>,
    /// Triangle-pair checks of the search.
    pub stats: LevelStats,
}

/// Searches every candidate pair: `results[i]` receives the contacts and checks of
/// `pairs[i]` (buffers are reused between calls). Runs in parallel; deterministic.
pub fn search_all(
    model: &Model,
    bodies: &[Body],
    mode: DetectionMode,
    kernel: KernelChoice,
    pairs: &[CandidatePair],
    results: &mut Vec<PairContacts>,
) {
    results.resize_with(pairs.len(), PairContacts::default);
    results.par_iter_mut().zip(pairs.par_iter()).for_each_init(
        RootsScratches::default,
        |ts, (out, pair)| {
            out.raw.clear();
            out.stats = LevelStats::default();
            roots_pair(
                model,
                bodies,
                pair,
                mode,
                kernel,
                ts,
                &mut out.raw,
                &mut out.stats,
            );
        },
    );
}
