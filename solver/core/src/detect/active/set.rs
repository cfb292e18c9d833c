//! The data of one particle pair's active set (its methods are in the parent module and
//! its siblings): the stored cut, the near leaves with their clearances, the reference
//! poses of the certificates, and the memory set and vetoes of Alg. 6.

use super::direction::Expiry;
use super::element::Leaf;
use super::held::Held;
use super::span::Span;
use crate::detect::report::UpdateCounts;
use msdem_geom::math::Iso3;
use msdem_tree::LevelStats;

/// What one `ActiveSet::iterate` did.
#[derive(Clone, Copy, Debug, Default)]
pub struct IterationReport {
    /// Kernel checks per level (incl. narrowing attempts).
    pub stats: LevelStats,
    /// Active pairs resolved by their certificate without a check.
    pub skipped: u64,
    /// Element pairs screened for a certificate in a walk (not kernel checks).
    pub bounds: u64,
    /// Widenings and narrowings.
    pub counts: UpdateCounts,
    /// Whether the certificates were renewed at this pose.
    pub refreshed: bool,
    /// Stored idle pairs whose isotropic expiry had passed but whose directional
    /// certificate held them, so not checked (the event-driven pair-set query,
    /// `direction.rs`).
    pub renewed: u64,
    /// Real pairs in contact whose expired in-margin slack their witness points renewed
    /// without a kernel call (the event-driven pair-set query, `witness.rs`).
    pub witnessed: u64,
    /// Idle surrogate pairs widened ahead, along with a due walk (the event-driven
    /// pair-set query, `events.rs`).
    pub ahead: u64,
}

/// The active set of one particle pair (see the module docs).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ActiveSet {
    /// Unfolded pairs in depth-first preorder of the descent (packed keys).
    pub(super) cut: Vec<u64>,
    /// Subtree extents of the inner `cut` entries (those with an unfolded pair below
    /// them), sorted by cut position, for incremental walks; not serialised (see
    /// `span.rs`).
    #[serde(skip)]
    pub(super) spans: Vec<Span>,
    /// Active pairs within the skin, in the preorder of the walk.
    pub(super) near: Vec<Leaf>,
    /// Pose of B in A's frame at the last refresh: the refresh is due when B moved more
    /// than the skin from it.
    pub(super) reference: Iso3,
    /// Pose of B in A's frame the stored clearances refer to (rebased once per step).
    pub(super) base: Iso3,
    /// Upper bound of B's motion from `reference` to `base` \[m\]: a pair is dropped
    /// from the stored ones only with a clearance beyond `skin + shift`.
    pub(super) shift: f32,
    /// Skin of the certificates since the last refresh \[m\] (`skin.rs`): the refresh
    /// is due when B moved more than it from `reference`.
    pub(super) skin: f32,
    /// The first iteration of a step rebases the stored clearances.
    pub(super) rebase_due: bool,
    pub(super) initialised: bool,
    /// Number of active pairs (leaves of the cut).
    pub(super) leaves: u32,
    /// Memory set 𝕌 (sorted keys of pairs whose children were removed by a narrowing).
    pub(super) memory: Vec<u64>,
    /// Unfolded pairs whose narrowing was refused in this step (sorted keys).
    pub(super) vetoes: Vec<u64>,
    /// The cut must be walked after this iteration's checks.
    pub(super) walk_due: bool,
    /// Narrowing vetoes held across steps by their parent's in-margin slack (`held.rs`).
    pub(super) held: Held,
    /// Held vetoes are used in this iteration (not in the `recheck_all` diagnostic nor in
    /// the event-driven pair-set query); not serialised.
    #[serde(skip)]
    pub(super) hold: bool,
    /// Every active pair is stored, however far (the event-driven pair-set query,
    /// `events.rs`, which has no skin and no refresh); not serialised.
    #[serde(skip)]
    pub(super) keep_all: bool,
    /// With `keep_all`: per stored leaf (parallel to `near`), the accumulated motion at
    /// which its certificate expires \[m\] and its directional certificate (`events.rs`,
    /// `direction.rs`), carried through the walks; `Expiry::NEW` for a leaf a walk just
    /// created. Empty otherwise; not serialised.
    #[serde(skip)]
    pub(super) expiry: Vec<Expiry>,
}

/// Keeps a per-pair vector tight: copies `src` into `dst` with little spare capacity.
pub(super) fn store<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
    dst.clear();
    if dst.capacity() > 2 * src.len() + 4 {
        *dst = Vec::new();
    }
    dst.reserve_exact(src.len());
    dst.extend_from_slice(src);
}
