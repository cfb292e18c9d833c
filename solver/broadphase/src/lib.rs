//! Broad phase over bounding spheres (radius includes the halo ε): all-pairs, linked cells,
//! the hierarchical grid (HGrid) of Ogarko & Luding (seed 001) and the uniform bins of
//! Pazouki et al. (seed 002 §4). Lengths in metres.
//!
//! Every broad phase implements [`BroadPhase::find_pairs`]: all pairs `(i, j)`, `i < j`,
//! whose spheres overlap (`|c_i − c_j| ≤ r_i + r_j`, closed), sorted ascending, each
//! exactly once. The result is exact (no false positives) and deterministic: it does not
//! depend on thread count or on the internal grid parameters.
//!
//! * [`AllPairs`] — brute force, the reference.
//! * [`LinkedCells`] — one hashed uniform grid, cell = largest diameter (seed 001 §5.1).
//! * [`IncrementalHGrid`] — the HGrid under per-sphere insert / remove / update.
//! * [`HGrid`] — levels of independent cell sizes, a sphere on the lowest level whose cell
//!   fits its diameter (eq. 3), same-level search over half the neighbour cells, Top-Down
//!   cross-level search (§2.2), levels chosen by the constant-particles-per-cell rule (§5.2.3).
//! * [`Bins`] — uniform bins of seed 002 §4: each sphere's box registered in every bin it
//!   overlaps, (bin, body) keys radix-sorted, an exhaustive search per bin that reports a
//!   pair only from the bin holding the lower corner of the two boxes' intersection.
//!
//! Domains are unbounded (hashed cells): spheres may fly anywhere within |x| < 2⁴⁰ cell
//! sizes of the origin (≈ 10⁹ m for a 1 mm cell).
//!
//! Support modules: [`workload`] (seeded power-law packings, seed 001 §4) and [`compare`]
//! (timings and work counts behind the `hgrid_vs_linked` example and the `hgrid` bench).
//!
//! **Invalid input.** A NaN/infinite centre or radius, a negative radius, a sphere too far
//! from the origin or too large for a caller-given grid makes `find_pairs` return a
//! [`BroadPhaseError`] naming the lowest offending index; the output is then empty. Nothing
//! panics or loops.
//!
//! **Rebuild policy.** By default (skin 0) every query rebuilds the grid from scratch in
//! O(N) (a counting sort into hashed cells), which is cheap next to the narrow phase. With a
//! Verlet skin `δ > 0` ([`HGridConfig::skin`]) the grid is searched with radii inflated by
//! δ/2; the candidate list is kept and only re-filtered with the exact overlap test until
//! some sphere has moved more than δ/2 (or radii/count changed), which keeps the result
//! exact: two spheres that overlap now were within `r_i + r_j + δ` at the last rebuild.
//!
//! **Incremental grid.** [`IncrementalHGrid`] keeps spheres in hashed cells between queries
//! with expected O(1) `insert` / `remove` / `update` (slot per id, swap-remove in cell
//! buckets) and its own `find_pairs` (same contract, pairs of ids). Its query is several
//! times slower than the rebuild-and-search of [`HGrid`] (every neighbour cell is a hash
//! probe into scattered buckets, against contiguous CSR runs), so [`HGrid`] keeps
//! rebuilding; the incremental grid pays when few spheres change between queries that
//! touch only part of the set, not for a whole moving packing (`incremental` bench).
#![warn(missing_docs)]

mod all_pairs;
mod bins;
mod cells;
pub mod compare;
mod error;
mod hgrid;
mod incremental;
mod incremental_search;
mod kind;
pub mod levels;
mod linked_cells;
mod radix;
mod search;
mod sphere;
mod sweep;
pub mod workload;

pub use all_pairs::AllPairs;
pub use bins::Bins;
pub use error::{short_number, BroadPhaseError};
pub use hgrid::{HGrid, HGridConfig, LevelInfo};
pub use incremental::IncrementalHGrid;
pub use kind::BroadPhaseKind;
pub use linked_cells::LinkedCells;
pub use sphere::{spheres_overlap, validate, BroadPhaseStats, Sphere};

/// Below this many spheres the broad phase stays on the calling thread: dispatching to the
/// rayon pool costs more than it saves.
const PARALLEL_MIN: usize = 4096;

/// A broad phase: finds the overlapping pairs of a set of bounding spheres.
pub trait BroadPhase: Send {
    /// Clears `out` and fills it with all pairs `(i, j)`, `i < j`, whose spheres overlap
    /// (`|c_i − c_j| ≤ r_i + r_j`), sorted ascending, each exactly once; deterministic.
    ///
    /// On invalid input (see the crate docs) returns the error of the lowest offending
    /// index and leaves `out` empty.
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError>;

    /// Work counters of the last query (sphere tests, cell visits).
    fn stats(&self) -> BroadPhaseStats {
        BroadPhaseStats::default()
    }
}
