//! Triangle–triangle distance kernels (seed 000 §2 eq. (2), §3 eq. (3)/(4), Alg. 4;
//! docs/design.md §4).
//!
//! * [`closest_point_on_triangle`], [`closest_points_segments`]: the primitive tests;
//! * [`triangle_triangle_exact`]: the comparison-based reference (6 point–triangle + 9
//!   edge–edge tests + edge–plane crossings for intersecting triangles);
//! * [`screened_separated`]: the conservative separating-axis pre-screen that every kernel
//!   call runs first (pairs proven separated skip the kernels);
//! * [`contact`]: one pair through the kernel of choice ([`KernelKind`]), classified as in
//!   Alg. 4 line 11 ([`KernelResult`]);
//! * [`within_margin`], [`PairBatch::decide`]: the decision kernel of the pair-set query
//!   (in / out / unknown from cheap bounds, no closest points);
//! * [`PairBatch`]: the batched stream (8 pairs per SIMD pass, hybrid fallback only for
//!   fine–fine pairs).
//!
//! `margin` is always the sum of the two halo widths \[m\] (`2ε` for equal halos): two
//! triangles are in contact iff their distance is ≤ `margin` (seed 000 §2: `|n| ≤ ε`).
//! All kernels take and return single precision ([`crate::math::P32`], [`crate::math::Tri`]).

mod batch;
mod closest_point_segment;
mod closest_point_triangle;
mod contact;
mod features;
mod iterative;
mod lane;
mod screen;
mod segment_segment;
mod triangle_triangle_exact;
mod vec64;
mod within;

pub use batch::{BatchStats, PairBatch, PairOutcome, LANES};
pub use closest_point_triangle::closest_point_on_triangle;
pub use contact::{contact, contact_with, exact_dist};
pub use iterative::IterativeParams;
pub use screen::screened_separated;
pub use segment_segment::closest_points_segments;
pub use triangle_triangle_exact::triangle_triangle_exact;
pub use within::{within_margin, Within};

use crate::math::P32;

/// Closest points between two triangles (seed 000 eq. (2)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPair {
    /// Closest point on the first triangle \[m\].
    pub p: P32,
    /// Closest point on the second triangle \[m\].
    pub q: P32,
    /// Squared distance `|p − q|²` \[m²\].
    pub dist_sq: f32,
}

impl ClosestPair {
    /// Distance `|p − q|` \[m\].
    pub fn dist(&self) -> f32 {
        self.dist_sq.sqrt()
    }

    /// Contact point `x = ½(p + q)` of eq. (2) (for equal halos) \[m\].
    pub fn midpoint(&self) -> P32 {
        [
            0.5 * (self.p[0] + self.q[0]),
            0.5 * (self.p[1] + self.q[1]),
            0.5 * (self.p[2] + self.q[2]),
        ]
    }
}

/// Which triangle–triangle kernel to run (seed 000 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// Comparison-based reference: never [`KernelResult::NotConverged`].
    Exact,
    /// Fixed-count iterative minimisation of eq. (3)/(4): may be
    /// [`KernelResult::NotConverged`].
    Iterative,
    /// Iterative, then [`KernelKind::Exact`] for the pairs that did not converge.
    Hybrid,
}

/// Three-valued outcome of a kernel (Alg. 4 line 11: `x`, `⊥`, `⊙`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelResult {
    /// Distance ≤ margin; the closest points.
    Contact(ClosestPair),
    /// Distance > margin.
    Separated,
    /// The iterative kernel could not decide within its iteration budget.
    NotConverged,
}

impl KernelResult {
    /// The closest pair if this is a contact.
    pub fn contact_pair(&self) -> Option<&ClosestPair> {
        match self {
            KernelResult::Contact(c) => Some(c),
            _ => None,
        }
    }
}
