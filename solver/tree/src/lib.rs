//! Surrogate-triangle trees (seed 000 §4, App. A/B; DESIGN.md §5) — pipeline stage 2 —
//! and the multiresolution contact detection over them (seed 000 §5.1, Alg. 5).
//!
//! Lengths in metres.
#![warn(missing_docs)]

mod tree;
pub use tree::{Node, SurrogateTree, NO_TRIANGLE};
