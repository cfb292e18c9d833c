//! One explicit time step (seed 000 Alg. 1 with the multiresolution detection of Alg. 5):
//!
//! 1. **broad phase** — candidate body pairs from bounding spheres incl. ε
//!    ([`crate::broad`]);
//! 2. **narrow phase** — the multiresolution detection per candidate pair in body `a`'s
//!    mesh frame, in parallel. With [`DetectionMode::Hierarchy`] it works on an active set
//!    per particle pair kept from the previous step (the machinery of multiscale Picard,
//!    [`crate::implicit`]): a cut through the simultaneous descent of the two trees whose
//!    stored pairs carry exact separation certificates, widened at the current pose until
//!    no surrogate pair is in contact — the same contacts as Alg. 5 from the roots (both
//!    are the flat contacts, Lemma 5.7; tested step by step), with the pairs whose
//!    certificate still holds skipped. [`StepWorkspace::set_detection_from_roots`] runs the
//!    traversal of [`crate::narrow`] from the roots instead; flat mode always does;
//! 3. **merge** — contact points of one body pair closer than ε become their average
//!    (Implementation remark 1, [`crate::contact::merge`]);
//! 4. **forces** — fade-in spring, damping, friction; torques about the centres of mass
//!    ([`crate::contact::force`]);
//! 5. **integration** — explicit Euler in Euler–Cromer order ([`crate::integrate`]).
//!
//! [`StepWorkspace`] owns reusable buffers and the kept active sets (a cache: the
//! contacts do not depend on it); the simulation state lives in [`World`].

use crate::broad::{BroadStage, CandidatePair};
use crate::contact::force::{accumulate_forces, Wrench};
use crate::contact::merge::merge_pair;
use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::frames::{ContactRecord, PhaseTimes, StepStats};
use crate::implicit::MultiscaleStage;
use crate::integrate::energy::observables;
use crate::integrate::{explicit_euler, first_non_finite};
use crate::narrow::{narrow_phase, PairContacts};
use crate::world::{DetectionMode, World};
use msdem_broadphase::BroadPhaseError;
use msdem_tree::traverse::{LevelStats, MAX_LEVELS};
use std::time::Instant;

pub use crate::integrate::stable_dt_estimate;

/// Reusable buffers of [`step`] and the active sets kept between its steps (a cache of
/// the hierarchical detection; no simulation state). A set is rebuilt when its pair's
/// trees change; reusing one workspace for several worlds is allowed but loses the cache.
#[derive(Debug, Default)]
pub struct StepWorkspace {
    broad: BroadStage,
    pairs: Vec<CandidatePair>,
    narrow: Vec<PairContacts>,
    contacts: Vec<Contact>,
    wrenches: Vec<Wrench>,
    /// Kept active sets of the hierarchical detection (see the module docs).
    kept: MultiscaleStage,
    /// Run Alg. 5 from the roots in every step instead of on the kept active sets.
    from_roots: bool,
}

impl StepWorkspace {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Diagnostic switch: with `on`, the hierarchical detection of [`step`] descends from
    /// the roots of every candidate pair in every step (Alg. 5 read literally) instead of
    /// working on the active sets kept from the previous step. The contacts are the same
    /// either way (both are the flat contacts, Lemma 5.7); only the work differs.
    pub fn set_detection_from_roots(&mut self, on: bool) {
        self.from_roots = on;
    }
}

/// What one step reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepOutput {
    /// Statistics. Energies and momenta describe the state at the end of the step; pair,
    /// contact and check counts the detection at its start.
    pub stats: StepStats,
    /// Merged contacts with their forces (empty unless requested).
    pub contacts: Vec<ContactRecord>,
    /// Potential energy of the contact springs at the start of the step \[J\]
    /// ([`PairParams::spring_energy`]).
    pub contact_energy: f64,
}

/// Errors of a step. The caller stops the run.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// A particle's state became NaN or infinite (time step too large, or bad input).
    #[error("step {step}: particle {particle} has a non-finite {quantity} (time step too large?)")]
    NonFinite {
        /// Number of the step that found it (1 = the first step).
        step: u64,
        /// Particle id.
        particle: u32,
        /// Which quantity: position, orientation, velocity or angular velocity.
        quantity: &'static str,
    },
    /// The broad phase refused its input.
    #[error("step {step}: broad phase: {source}")]
    BroadPhase {
        /// Number of the step.
        step: u64,
        /// Underlying error.
        source: BroadPhaseError,
    },
}

/// Entries of [`StepStats::checks_per_level`] for `world`: one per tree level (the deepest
/// level of any shape or obstacle tree, capped at the traversal's counters) plus a last
/// entry with the fine–fine checks (which are also counted on their level).
pub fn stats_levels(world: &World) -> u32 {
    let depth = world
        .shapes
        .iter()
        .map(|s| &s.tree)
        .chain(world.obstacles.iter().map(|o| &o.tree))
        .flat_map(|t| t.nodes.iter().map(|n| n.level + 1))
        .max()
        .unwrap_or(1);
    depth.min(MAX_LEVELS as u32) + 1
}

fn checks_per_level(levels: u32, s: &LevelStats) -> Vec<u64> {
    let tree_levels = levels.saturating_sub(1) as usize;
    let mut v = s.checks[..tree_levels.min(MAX_LEVELS)].to_vec();
    v.push(s.fine);
    v
}

/// Broad phase, narrow phase and merging on the current state of `world`: returns the
/// merged contacts (stages 1–3), the candidate pair count and the summed checks. Used by
/// [`step`] and reusable by other integrators or for diagnostics.
pub fn detect_contacts<'w>(
    world: &World,
    ws: &'w mut StepWorkspace,
) -> Result<(&'w [Contact], u32, LevelStats), StepError> {
    let mut times = PhaseTimes::default();
    detect(world, ws, &mut times)?;
    let mut checks = LevelStats::default();
    ws.narrow.iter().for_each(|r| checks += &r.stats);
    Ok((&ws.contacts, ws.pairs.len() as u32, checks))
}

fn detect(world: &World, ws: &mut StepWorkspace, times: &mut PhaseTimes) -> Result<(), StepError> {
    let t0 = Instant::now();
    ws.broad
        .candidates(world, &mut ws.pairs)
        .map_err(|source| StepError::BroadPhase {
            step: world.step + 1,
            source,
        })?;
    let t1 = Instant::now();
    narrow_phase(world, &ws.pairs, &mut ws.narrow);
    let t2 = Instant::now();
    ws.contacts.clear();
    for (pair, found) in ws.pairs.iter().zip(&ws.narrow) {
        if found.raw.is_empty() {
            continue;
        }
        let pp = PairParams::of(world, pair.a, pair.b);
        merge_pair(
            pair.a,
            pair.b,
            &found.raw,
            0.5 * pp.margin,
            &mut ws.contacts,
        );
    }
    times.broad = (t1 - t0).as_secs_f64();
    times.narrow = (t2 - t1).as_secs_f64();
    times.forces = t2.elapsed().as_secs_f64();
    Ok(())
}

/// Advances `world` by one explicit Euler step of `world.params.dt` (see the module docs)
/// and returns its statistics, plus the contacts when `record_contacts` is set.
///
/// Fails with [`StepError::NonFinite`] naming the first particle whose state is NaN or
/// infinite, checked before and after the step; in the latter case the bodies hold the
/// offending state for inspection while `world.time` and `world.step` are not advanced.
pub fn step(
    world: &mut World,
    ws: &mut StepWorkspace,
    record_contacts: bool,
) -> Result<StepOutput, StepError> {
    let non_finite = |world: &World| {
        first_non_finite(&world.bodies).map(|(particle, quantity)| StepError::NonFinite {
            step: world.step + 1,
            particle,
            quantity,
        })
    };
    if let Some(e) = non_finite(world) {
        return Err(e);
    }
    let mut wall = PhaseTimes::default();
    let kept = world.params.detection == DetectionMode::Hierarchy
        && world.params.kept_sets
        && !ws.from_roots;
    let (checks, pairs, activity) = if kept {
        ws.kept.begin_step(false);
        let d = ws.kept.detect_full(world, &mut ws.contacts, &mut wall)?;
        (
            d.stats,
            d.pairs,
            (d.counts.unfolds, d.counts.narrows, d.skipped),
        )
    } else {
        detect(world, ws, &mut wall)?;
        let mut checks = LevelStats::default();
        ws.narrow.iter().for_each(|r| checks += &r.stats);
        (checks, ws.pairs.len() as u32, (0, 0, 0))
    };

    let t_forces = Instant::now();
    let dt = world.params.dt;
    ws.wrenches.clear();
    ws.wrenches.resize(world.bodies.len(), Wrench::default());
    let mut records = Vec::new();
    let contact_energy = accumulate_forces(
        world,
        &world.bodies,
        &ws.contacts,
        dt,
        &mut ws.wrenches,
        record_contacts.then_some(&mut records),
    );
    wall.forces += t_forces.elapsed().as_secs_f64();

    let t_integrate = Instant::now();
    let gravity = world.params.gravity;
    explicit_euler(&mut world.bodies, &ws.wrenches, &gravity, dt);
    wall.integrate = t_integrate.elapsed().as_secs_f64();
    if let Some(e) = non_finite(world) {
        return Err(e);
    }
    world.step += 1;
    world.time += dt;

    let obs = observables(&world.bodies, &gravity);
    let stats = StepStats {
        step: world.step,
        time: world.time,
        checks_per_level: checks_per_level(stats_levels(world), &checks),
        fallbacks: checks.fallbacks,
        candidate_pairs: pairs,
        contacts: ws.contacts.len() as u32,
        kinetic_energy: obs.kinetic,
        potential_energy: obs.potential,
        linear_momentum: obs.linear_momentum.into(),
        angular_momentum: obs.angular_momentum.into(),
        iterations: 1,
        converged: true,
        unfolds: activity.0,
        narrows: activity.1,
        skipped: activity.2,
        iteration_checks: Vec::new(),
        wall,
    };
    Ok(StepOutput {
        stats,
        contacts: records,
        contact_energy,
    })
}
