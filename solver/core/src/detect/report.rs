//! What the detection layer is asked to do and what it reports.

use crate::params::DetectionMode;
use msdem_tree::LevelStats;

/// Counts of one iteration's widening and narrowing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Active pairs replaced by their children (widening).
    pub unfolds: u32,
    /// Sibling groups replaced by their parent (narrowing).
    pub narrows: u32,
}

/// How [`super::Detector::detect`] finds every contact of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// From scratch for every candidate pair: Alg. 5 from the roots
    /// ([`DetectionMode::Hierarchy`]) or every real triangle pair
    /// ([`DetectionMode::Flat`]).
    Roots(DetectionMode),
    /// On the active sets kept from the previous detection (same contacts as
    /// `Roots(Hierarchy)`, bit for bit; less work).
    Kept,
}

/// How a kept set is processed by its pair code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptPass {
    /// Widen at the current pose until no surrogate pair is in contact (explicit step).
    Settle,
    /// As `Settle`, checking every active pair and holding no narrowing veto (the
    /// `recheck_all` diagnostic: certificates not used).
    SettleRecheck,
    /// One multiscale Picard iteration.
    Iterate {
        /// New sets start from one full descent instead of the root pairs.
        seed: bool,
        /// Check every active pair (diagnostic: certificates not used).
        recheck_all: bool,
    },
}

/// What one detection reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Detection {
    /// Candidate pairs.
    pub pairs: u32,
    /// Kernel calls per level.
    pub stats: LevelStats,
    /// Widenings and narrowings (kept sets).
    pub counts: UpdateCounts,
    /// Active pairs whose certificate decided their outcome without a check.
    pub skipped: u64,
    /// Element pairs screened for a certificate in a walk (not kernel checks).
    pub bounds: u64,
    /// Particle pairs whose certificates were renewed (incl. new pairs).
    pub refreshed: u32,
    /// Stored pairs of the event-driven pair-set query whose isotropic expiry had passed
    /// but whose directional certificate held them, so not checked
    /// (`detect/active/direction.rs`; counted per query, part of `skipped`).
    pub renewed: u64,
    /// Real pairs in contact of the event-driven pair-set query whose in-margin slack
    /// their witness points renewed without a kernel call
    /// (`detect/active/witness.rs`; part of `skipped`).
    pub witnessed: u64,
    /// Idle surrogate pairs of the event-driven pair-set query widened ahead, along with
    /// a walk that was due anyway (`detect/active/events.rs`; part of `counts.unfolds`).
    pub ahead: u64,
    /// Particle pairs whose contacts were kept from the previous Picard iteration (neither
    /// particle moved, see [`crate::params::PicardParams::local_updates`]).
    pub kept: u32,
}

impl std::ops::Add for Detection {
    type Output = Detection;

    /// The sum of two reports (counts added).
    fn add(mut self, o: Detection) -> Detection {
        self.pairs += o.pairs;
        self.stats += &o.stats;
        self.counts.unfolds += o.counts.unfolds;
        self.counts.narrows += o.counts.narrows;
        self.skipped += o.skipped;
        self.bounds += o.bounds;
        self.refreshed += o.refreshed;
        self.renewed += o.renewed;
        self.witnessed += o.witnessed;
        self.ahead += o.ahead;
        self.kept += o.kept;
        self
    }
}
