//! What an implicit step reports: per-iteration statistics (seed 000 Fig. 4) and the
//! step's output.

use crate::frames::{ContactRecord, StepStats};

/// Statistics of one Picard iteration (seed 000 Fig. 4: checks per level per iteration).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IterationStats {
    /// Triangle-pair checks per tree level, last entry fine–fine (as
    /// [`StepStats::checks_per_level`]).
    pub checks_per_level: Vec<u64>,
    /// Fine checks that fell back to the exact kernel.
    pub fallbacks: u64,
    /// Candidate body pairs of the broad phase.
    pub candidate_pairs: u32,
    /// Merged fine–fine contacts.
    pub contacts: u32,
    /// Merged coarse (surrogate-level) force estimates (multiscale only).
    pub coarse_contacts: u32,
    /// Active pairs widened by one level (multiscale only).
    pub unfolds: u32,
    /// Sibling groups narrowed to their parent (multiscale only).
    pub narrows: u32,
    /// Active pairs whose separation certificate decided their outcome without a check
    /// (multiscale only; not included in `checks_per_level`).
    pub skipped: u64,
    /// Element pairs given a certificate by the SIMD separating-axis screen when the
    /// active sets were walked (new pairs after a widening, a seed or a refresh;
    /// multiscale only; not kernel checks, not included in `checks_per_level`).
    pub bounds: u64,
    /// Particle pairs whose certificates were renewed at this guess (multiscale only).
    pub refreshed: u32,
    /// Particle pairs whose contacts were kept from the previous iteration because
    /// neither particle moved (multiscale only, [`super::PicardParams::local_updates`]).
    pub kept: u32,
    /// Particles whose guess moved since the previous detection (all in the first
    /// iteration).
    pub moved: u32,
    /// Largest relative force/torque update over all particles [-]; infinite in the first
    /// iteration (no previous wrench).
    pub residual: f64,
    /// Smallest relaxation weight ω in use after this iteration [-].
    pub relaxation: f64,
    /// Contacts and forces were those of the previous step's accepted state (first
    /// iteration only; no detection ran, see the module docs).
    pub reused: bool,
}

/// What one implicit step reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImplicitOutput {
    /// Step statistics: `iterations` = Picard iterations, `checks_per_level` and
    /// `fallbacks` summed over the iterations; pair and contact counts of the last
    /// iteration; energies and momenta of the accepted state.
    pub stats: StepStats,
    /// Fine contacts of the accepted state with their forces (empty unless requested).
    pub contacts: Vec<ContactRecord>,
    /// Spring energy of the accepted state's contacts \[J\].
    pub contact_energy: f64,
    /// True for every step returned (a step that does not converge is split or fails,
    /// see the module docs).
    pub converged: bool,
    /// Widenings over all iterations (multiscale).
    pub unfolds: u32,
    /// Narrowings over all iterations (multiscale).
    pub narrows: u32,
    /// Checks skipped by separation certificates over all iterations (multiscale).
    pub skipped: u64,
    /// Per-iteration breakdown.
    pub per_iteration: Vec<IterationStats>,
}
