//! The event-driven pair-set query of a mesh–mesh pair (issue 15): the pair's
//! `EventSet` (`detect/active/events.rs`) queried at the poses of the bodies — every
//! real triangle pair within the margin, with per step work only where a certificate
//! expired. For queries of which triangles touch (the trajectory comparison with
//! parry3d), not for forces: no closest points.

use super::kept::{detection, pair_geometry, MeshScratch, TreeCache};
use super::PairSides;
use crate::detect::active::EventSet;
use crate::detect::broad::CandidatePair;
use crate::detect::report::Detection;
use crate::model::Model;
use crate::params::KernelChoice;
use crate::state::Body;

/// The event-driven query state of one mesh–mesh pair: its `EventSet` and the two trees
/// it was built on (addresses; a pair whose shapes changed starts a new set).
#[derive(Debug, Default)]
pub struct MeshEvents {
    set: EventSet,
    trees: (usize, usize),
}

impl MeshEvents {
    /// Number of active element pairs (all stored).
    pub fn active_len(&self) -> usize {
        self.set.active_len()
    }

    /// Records the trees of `sides`; a set built on other trees starts anew.
    fn adopt(&mut self, sides: &PairSides) {
        let trees = (
            std::ptr::from_ref(sides.tree_a) as usize,
            std::ptr::from_ref(sides.tree_b) as usize,
        );
        if self.trees != trees {
            self.set = EventSet::default();
        }
        self.trees = trees;
    }
}

/// The event-driven pair-set query of one mesh–mesh pair at the poses of `bodies`: every
/// real triangle pair within the margin as soup indices `(A's, B's)`, sorted, to `out`
/// (the pairs of [`super::kept::pair_set`], see `detect/active/events.rs`).
#[allow(clippy::too_many_arguments)]
pub fn pair_set(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    kept: &mut MeshEvents,
    ts: &mut MeshScratch,
    out: &mut Vec<(u32, u32)>,
) -> Detection {
    out.clear();
    let Some(sides) = PairSides::of(model, bodies, pair) else {
        return Detection::default();
    };
    kept.adopt(&sides);
    let g = pair_geometry(kernel, cache, pair, bodies, &sides);
    let rep = kept.set.query(&g, &mut ts.active, out);
    detection(&rep)
}

/// Checks the event set of `pair` at the poses of `bodies` (those of its last query):
/// structure, certificates and reported set (`EventSet::validate`).
pub fn validate(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    cache: &TreeCache,
    pair: &CandidatePair,
    kept: &mut MeshEvents,
) -> Result<(), String> {
    let s = PairSides::of(model, bodies, pair).ok_or("not a mesh–mesh pair")?;
    let g = pair_geometry(kernel, cache, pair, bodies, &s);
    kept.set.validate(&g)
}
