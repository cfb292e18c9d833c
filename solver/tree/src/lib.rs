//! Surrogate-triangle trees (seed 000 §4, App. A/B; docs/design.md §5) — pipeline stage 2 —
//! and the multiresolution contact detection over them (seed 000 §5.1, Alg. 5).
//!
//! * [`build_tree`]: top-down k-means construction (Alg. 7) with eq. (6) surrogate fits,
//!   conservative offsets and inner distances;
//! * [`validate()`]: structural and conservativeness checks;
//! * [`write_tree`] / [`load_tree`]: the versioned, checksummed `.tree` file;
//! * [`find_contacts`]: simultaneous descent of two trees (Alg. 5 / §5.4);
//! * [`find_pairs_boxed`]: the pair-set query (the pairs within the margin, decided by
//!   cheap bounds where they can, no closest points);
//! * [`find_pairs_grid`]: the same pair set with A's triangles in a [`CellGrid`] and only
//!   B's tree descended;
//! * [`summary`]: per-level statistics printed by `treebuild`.
//!
//! Lengths in metres.
#![warn(missing_docs)]

mod bounds;
pub mod build;
mod cull;
mod descend;
mod dist;
pub mod error;
mod fit;
pub mod format;
pub mod grid;
mod kmeans;
mod lanes;
mod lbfgs;
pub mod node_box;
pub mod node_obb;
mod pairs;
pub mod params;
mod refine;
mod screen;
mod split;
pub mod stage;
pub mod stats;
mod support;
pub mod traverse;
mod tree;
pub mod validate;

pub use build::{build_tree, build_tree_with_progress};
pub use error::TreeError;
pub use format::{decode_tree, encode_tree, load_tree, read_tree, write_tree};
pub use grid::{find_pairs_grid, CellGrid, GridScratch};
pub use node_box::NodeBoxes;
pub use pairs::{find_pairs_boxed, TriPair};
pub use params::BuildParams;
pub use stage::{run_treebuild, TreebuildJob, TreebuildOutcome};
pub use stats::{summary, LevelSummary, TreeSummary};
pub use traverse::{
    find_contacts, find_contacts_boxed, find_contacts_with, LevelStats, Mode, Scratch, TriContact,
    Unfold, MAX_LEVELS,
};
pub use tree::{Node, SurrogateTree, NO_TRIANGLE};
pub use validate::validate;
