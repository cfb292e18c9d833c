//! Separation witnesses kept from one narrowing to the next (issue 12, step 4: reuse what
//! the previous step found to prune): for every particle pair and particle–obstacle pair
//! of the pruned graph, the real triangle pair that gave the distance of its last search
//! ([`super::distance::Witness`]). The next narrowing of the pair starts its branch and
//! bound from that pair's distance, which prunes the descent from the first node pair on
//! (a resting contact is searched again in every sweep, a closing pair in every
//! conservative-advancement iteration). The distances found do not change (see
//! [`super::distance`]), so neither do the time steps.
//!
//! Kept by the lower particle id of a pair (by the particle for an obstacle pair), in
//! global ids; a cluster's narrowing replaces the entries of its particles (committed in
//! cluster order, so the store is the same at any thread count), which drops the pairs
//! that left the pruned graph. Carried into a checkpoint ([`super::carry`]).

use serde::{Deserialize, Serialize};

use super::distance::Witness;
use crate::model::Other;

/// One kept witness: the other body (global particle id or obstacle) and the real triangle
/// pair (soup indices of the lower particle's tree and of the other's).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    other: Other,
    tri_a: u32,
    tri_b: u32,
}

/// The witnesses of every particle's pairs (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WitnessStore {
    kept: Vec<Vec<Entry>>,
}

impl WitnessStore {
    /// Particles the store has room for.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether the store has room for no particle.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Makes room for `n` particles, forgetting everything when the count changes.
    pub fn resize(&mut self, n: usize) {
        if self.kept.len() != n {
            self.kept.clear();
            self.kept.resize_with(n, Vec::new);
        }
    }

    /// Forgets every witness.
    pub fn clear(&mut self) {
        self.kept.iter_mut().for_each(Vec::clear);
    }

    /// The witness of the pair of particle `a` (the lower id) and `other` (global ids).
    pub fn get(&self, a: u32, other: Other) -> Witness {
        self.kept
            .get(a as usize)?
            .iter()
            .find(|e| e.other == other)
            .map(|e| (e.tri_a, e.tri_b))
    }

    /// Replaces the witnesses of the particles `members` (global ids) by `found`: every
    /// pair of a cluster's narrowing as `(a, other, witness)` (global ids, `a` the lower
    /// particle id).
    pub fn replace(&mut self, members: &[u32], found: &[(u32, Other, Witness)]) {
        for &p in members {
            if let Some(k) = self.kept.get_mut(p as usize) {
                k.clear();
            }
        }
        for &(a, other, w) in found {
            let (Some(k), Some((tri_a, tri_b))) = (self.kept.get_mut(a as usize), w) else {
                continue;
            };
            k.push(Entry {
                other,
                tri_a,
                tri_b,
            });
        }
    }
}
