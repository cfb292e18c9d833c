//! The cold pair-set query on a cell grid (issue 15): A's real triangles indexed once per
//! body by a uniform grid with a summed-volume table (`cells.rs`), B's tree descended
//! against it and the candidates decided by the decision and hybrid kernels (`query.rs`).
//! The same pairs as [`crate::find_pairs_boxed`] (tree against tree), by another route:
//! no surrogate pairs, no A-side descent.

mod cells;
mod query;

pub use cells::{CellGrid, MAX_CELLS_PER_TRIANGLE, MAX_ENTRIES_PER_TRIANGLE};
pub use query::{find_pairs_grid, GridScratch};
