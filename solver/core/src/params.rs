//! Run parameters: time stepping, gravity, the integrator and the contact detection
//! settings. Read by the run loop, which builds one [`crate::detect::Detector`] and one
//! [`crate::integrator::Integrator`] from them; nothing changes them during a run.

use msdem_broadphase::HGridConfig;
use msdem_geom::math::Vec3;

/// Settings of the local time stepping integrators (seed 004): pure data shared with the
/// scenario schema.
pub use msdem_scenario::lts::{ImpulseParams, LtsParams};
/// Settings of the implicit Euler (seed 000 Alg. 3 / Alg. 6, §6.1): pure data shared with
/// the scenario schema.
pub use msdem_scenario::picard::{
    NoConvergence, PicardAcceleration, PicardParamError, PicardParams, PicardScheme, PicardVariant,
    THETA,
};

/// Local or global time steps of the seed 004 integrators (§8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtsMode {
    /// `local_time_stepping`: clusters advance with their own step sizes.
    Local,
    /// `global_adaptive`: constraint (2) applied to every cluster.
    Global,
}

/// Which time integrator a run uses (seed 000 §2, §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegratorChoice {
    /// Explicit Euler (Alg. 1), Euler–Cromer ordering: velocities first, then positions.
    Explicit,
    /// Implicit Euler by Picard iterations (Alg. 3 / Alg. 6); the variant decides the
    /// contact detection inside the iterations, so [`Params::detection`] is not used (the
    /// kernel still is).
    Implicit(PicardVariant),
    /// Local time stepping (seed 004) or its globally adaptive baseline; `dt` is the
    /// synchronisation interval (`lts.interval_s`), settings in [`Params::lts`].
    Lts(LtsMode),
}

/// How contacts between two trees are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetectionMode {
    /// Multiresolution traversal over the surrogate trees (Alg. 5).
    Hierarchy,
    /// Every real triangle against every real triangle (Alg. 2 baseline).
    Flat,
}

/// Triangle–triangle kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// Comparison-based exact distance.
    Exact,
    /// Iterative penalty minimisation (eq. 3/4) without fallback on surrogate levels,
    /// exact fallback on the finest level.
    Hybrid,
}

/// Broad-phase algorithm and its parameters (scenario `broadphase:`,
/// [`crate::detect::broad`]).
#[derive(Clone, Debug, PartialEq)]
pub enum BroadPhaseChoice {
    /// The default: the hierarchical grid of seed 001 (`msdem_broadphase::HGrid`) with
    /// automatic levels and the default skin [`crate::detect::broad::default_skin`] of the
    /// particles.
    Grid,
    /// Every pair (for tests).
    AllPairs,
    /// Single-level linked cells (seed 001 §5.1).
    LinkedCells {
        /// Cell size \[m\]; `None` = the largest bounding diameter (incl. ε and skin).
        cell_size: Option<f64>,
        /// Verlet skin \[m\] ≥ 0.
        skin: f64,
    },
    /// Hierarchical grid with given levels, cell sizes and skin.
    HGrid(HGridConfig),
    /// Uniform bins of seed 002 §4 (no Verlet skin: rebuilt every step).
    Bins {
        /// Bin size \[m\]; `None` = chosen per rebuild from the bounding radii.
        bin_size: Option<f64>,
    },
}

/// Run parameters.
#[derive(Clone, Debug)]
pub struct Params {
    /// Time step \[s\]; of [`IntegratorChoice::Lts`] the synchronisation interval
    /// (scenario `lts.interval_s`, default `time.dt`).
    pub dt: f64,
    /// End time \[s\].
    pub end: f64,
    /// Steps (of [`Params::dt`]) between output frames.
    pub output_every: u32,
    /// Gravity [m/s²].
    pub gravity: Vec3,
    /// Integrator.
    pub integrator: IntegratorChoice,
    /// Contact detection mode of explicit steps.
    pub detection: DetectionMode,
    /// Explicit steps with [`DetectionMode::Hierarchy`]: keep each particle pair's active
    /// set from step to step ([`crate::detect::Search::Kept`]) instead of descending from
    /// the roots in every step. The contacts are the same either way; only the work
    /// differs.
    pub kept_sets: bool,
    /// Triangle kernel.
    pub kernel: KernelChoice,
    /// Broad phase.
    pub broadphase: BroadPhaseChoice,
    /// Settings of the Picard iterations (used by [`IntegratorChoice::Implicit`] only).
    pub picard: PicardParams,
    /// Settings of the local time stepping integrators (used by [`IntegratorChoice::Lts`]
    /// only).
    pub lts: LtsParams,
}
