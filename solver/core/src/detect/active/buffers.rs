//! Reusable buffers of a walk of an active set's cut (per thread).

use super::direction::Expiry;
use super::element::{Element, Leaf};
use super::span::Span;
use msdem_geom::kernel::PairBatch;

/// Reusable buffers of a walk (per thread).
#[derive(Debug, Default)]
pub(super) struct Buffers {
    pub(super) kids: Vec<Vec<(Element, Element)>>,
    /// Clearances of the kids per depth and whether the kernel found them separated
    /// (where the mode needs them).
    pub(super) clears: Vec<Vec<(f32, bool)>>,
    pub(super) batch: PairBatch<u32>,
    pub(super) screened: Vec<(bool, f32)>,
    pub(super) ka: Vec<Element>,
    pub(super) kb: Vec<Element>,
    pub(super) cut: Vec<u64>,
    pub(super) near: Vec<Leaf>,
    /// Spans of the new cut's keys (parallel to `cut`).
    pub(super) spans: Vec<Span>,
    /// Kept-leaf prefix counts of the subtree being copied.
    pub(super) kept: Vec<u32>,
    /// Hot-leaf prefix counts of the old leaves (empty: a full walk).
    pub(super) hot: Vec<u32>,
    /// Expiries of the new leaves where the set keeps them (`ActiveSet::expiry`).
    pub(super) expiry: Vec<Expiry>,
    /// Fewest cut entries of a subtree that keeps a span in this walk
    /// ([`super::span::min_cut`]).
    pub(super) span_min: u32,
}
