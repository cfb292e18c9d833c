//! Implicit Euler by Picard iterations (seed 000 §2 Alg. 3, §5.2–5.3 Alg. 6, §6.1).
//!
//! One step solves `v' = v + Δt·a(x', v')`, `x' = advance(x, v')` by fixed-point
//! iterations from the guess "current state" (Alg. 3):
//!
//! 1. **detect** contacts at the guessed configuration ([`PicardVariant`] decides how);
//! 2. **forces** at the guessed state (positions *and* velocities, so damping and friction
//!    are implicit too), [`crate::contact::force::accumulate_forces`];
//! 3. **residual** `r = F − W` against the wrench `W` that produced the guess; the step
//!    has converged when every particle's force and torque update is below
//!    [`PicardParams::tolerance`] relative to its force (with an absolute floor, see
//!    [`PicardParams::force_floor`]) — and, for multiscale Picard, no active pair was
//!    widened in this iteration;
//! 4. **relax** `W ← W + ω·r` per particle with the adaptive ω of §6.1
//!    ([`PicardParams`]);
//! 5. **advance** every particle from its start-of-step state with `W` and gravity
//!    (Euler–Cromer, [`crate::integrate::advance_body`]): the next guess.
//!
//! The accepted state is the last guess whose forces were evaluated — on convergence the
//! state whose forces agree with the wrench that produced it within the tolerance, so the
//! reported contacts belong to the new state. After [`PicardParams::max_iterations`] the
//! last guess is accepted and [`ImplicitOutput::converged`] is false (the caller warns).
//!
//! **Multiscale Picard** keeps an active set per particle pair (remark 4) across the
//! iterations (and optionally across steps): each iteration checks only the active
//! element pairs, widens surrogate pairs in contact by one level, narrows sibling groups
//! that contribute nothing back to their parent when the parent is separated (memory set
//! of remark 5), and adds damped force estimates of
//! surrogate contacts whose inner halos `E = ε − h` guarantee a real contact (poster §4).
//! At termination no surrogate pair is in contact, so only fine–fine contacts produce the
//! final forces and they equal the flat contacts of the accepted state (Lemma 5.7).
//!
//! **Local updates** ([`PicardParams::local_updates`], default on). A particle whose force
//! and torque updates are both below half the tolerance keeps its wrench, so its next
//! guess is bitwise its current one; the convergence test still covers every particle in
//! every iteration (a kept particle whose forces change because its neighbours moved is
//! relaxed again). Multiscale Picard then detects contacts only for particle pairs with a
//! particle whose pose changed: a pair of two unmoved particles whose active set did not
//! change in the last iteration (no widening, narrowing or refresh) would get exactly the
//! same checks, contacts and coarse estimates again, so it keeps them
//! ([`IterationStats::kept`]; tested bit for bit against detecting every pair). When a
//! dense packing is nearly converged and only a few particles still adjust (contacts
//! releasing in the §6.7 grid), an iteration then costs in proportion to them.
//!
//! **Reuse of the accepted state's evaluation.** The first iteration of a step evaluates
//! the start-of-step state, which is the previous step's accepted state — the last state
//! whose contacts and forces were computed. When the workspace still holds that
//! evaluation and the bodies, step counter, time step, gravity, variant and coarse damping
//! are unchanged (bitwise), the first iteration reuses it instead of detecting again: the
//! same inputs give the same contacts and forces, so the iterates are unchanged. For
//! multiscale Picard this also requires kept active sets and a converged previous step
//! (then no active surrogate pair is in contact at that state, so a new detection would
//! neither find other contacts nor widen); the reused iteration reports no checks
//! ([`IterationStats::reused`]). A workspace assumes that shapes, materials and obstacles
//! do not change between the steps it serves.

mod active;
mod multiscale;
mod output;
mod params;
mod raw;
mod relax;
mod reuse;

pub use output::{ImplicitOutput, IterationStats};
pub use params::{PicardParamError, PicardParams, PicardVariant};

use crate::contact::force::{accumulate_forces, Wrench};
use crate::contact::Contact;
use crate::frames::{PhaseTimes, StepStats};
use crate::integrate::energy::observables;
use crate::integrate::{advance_body, first_non_finite};
use crate::step::{detect_contacts, stats_levels, StepError, StepWorkspace};
use crate::world::{Body, DetectionMode, World};
use msdem_tree::{LevelStats, MAX_LEVELS};
pub(crate) use multiscale::{MultiscaleDetect, MultiscaleStage};
use relax::{Relaxation, Residual};
use reuse::{compute_forces, LastEvaluation};
use std::time::Instant;

/// Reusable buffers of [`implicit_step`], plus the multiscale active sets (which persist
/// between steps when [`PicardParams::keep_active_sets`] is set).
#[derive(Debug, Default)]
pub struct ImplicitWorkspace {
    step: StepWorkspace,
    multiscale: MultiscaleStage,
    relax: Relaxation,
    start: Vec<Body>,
    applied: Vec<Wrench>,
    computed: Vec<Wrench>,
    coarse_wrenches: Vec<Wrench>,
    contacts: Vec<Contact>,
    coarse: Vec<Contact>,
    /// What the last evaluation (`contacts`, `coarse`, `computed`) was made for.
    last: Option<LastEvaluation>,
    /// Spare buffer of [`LastEvaluation::bodies`].
    last_bodies: Option<Vec<Body>>,
    /// Per particle: the guess moved since the last detection (multiscale pairs of two
    /// unmoved particles keep their contacts, see [`PicardParams::local_updates`]).
    moved: Vec<bool>,
}

impl ImplicitWorkspace {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Merged fine contacts of the last evaluated state (the accepted state after a step).
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Number of active element pairs of multiscale Picard, over all particle pairs.
    pub fn active_pairs(&self) -> usize {
        self.multiscale.active_len()
    }

    /// Diagnostic switch of multiscale Picard: with `on`, every active pair is checked in
    /// every iteration instead of skipping the pairs whose separation certificate decides
    /// the outcome. The results (contacts, forces, widenings, narrowings, states) are the
    /// same either way — the certificates are exact; only the check counts differ.
    pub fn set_recheck_all(&mut self, on: bool) {
        self.multiscale.recheck_all = on;
    }

    /// Forgets the evaluation of the last accepted state, so that the next step detects
    /// contacts in its first iteration instead of reusing it (a diagnostic: the results
    /// are the same, see the module docs).
    pub fn forget_last_evaluation(&mut self) {
        if let Some(l) = self.last.take() {
            self.last_bodies = Some(l.bodies);
        }
    }

    /// Bytes held by the multiscale active sets and their per-pair buffers.
    pub fn active_bytes(&self) -> usize {
        self.multiscale.bytes()
    }

    /// Checks the structural invariants of every multiscale active set (complete cut of
    /// the simultaneous descent, siblings together, remark 6) against `world`; returns a
    /// description of the first violation.
    pub fn validate_active_sets(&mut self, world: &World) -> Result<(), String> {
        self.multiscale.validate(world)
    }
}

fn checks_per_level(levels: u32, s: &LevelStats) -> Vec<u64> {
    let tree_levels = (levels.saturating_sub(1) as usize).min(MAX_LEVELS);
    let mut v = s.checks[..tree_levels].to_vec();
    v.push(s.fine);
    v
}

fn non_finite(world: &World) -> Option<StepError> {
    first_non_finite(&world.bodies).map(|(particle, quantity)| StepError::NonFinite {
        step: world.step + 1,
        particle,
        quantity,
    })
}

/// Advances `world` by one implicit Euler step of `world.params.dt` with Picard
/// iterations (see the module docs) and returns its statistics, plus the contacts when
/// `record_contacts` is set. Out-of-range `params` are clamped
/// ([`PicardParams::clamped`]). `world.params.detection` is set by the variant for the
/// duration of the call (flat for [`PicardVariant::Flat`], hierarchy otherwise) and
/// restored afterwards.
///
/// Fails with [`StepError::NonFinite`] when the state is not finite before the step or a
/// guess becomes non-finite (the bodies then hold that guess; time and step count are not
/// advanced), and with [`StepError::BroadPhase`] when the broad phase refuses the state.
pub fn implicit_step(
    world: &mut World,
    ws: &mut ImplicitWorkspace,
    params: &PicardParams,
    variant: PicardVariant,
    record_contacts: bool,
) -> Result<ImplicitOutput, StepError> {
    if let Some(e) = non_finite(world) {
        return Err(e);
    }
    let params = params.clamped();
    let saved = world.params.detection;
    world.params.detection = match variant {
        PicardVariant::Flat => DetectionMode::Flat,
        _ => DetectionMode::Hierarchy,
    };
    let out = picard(world, ws, &params, variant, record_contacts);
    world.params.detection = saved;
    out
}

/// Bitwise equality of the pose (what contact detection depends on).
fn same_pose(a: &Body, b: &Body) -> bool {
    a.position == b.position && a.orientation == b.orientation
}

fn picard(
    world: &mut World,
    ws: &mut ImplicitWorkspace,
    params: &PicardParams,
    variant: PicardVariant,
    record_contacts: bool,
) -> Result<ImplicitOutput, StepError> {
    let n = world.bodies.len();
    let dt = world.params.dt;
    let gravity = world.params.gravity;
    let levels = stats_levels(world);
    ws.start.clone_from(&world.bodies);
    ws.relax.begin(world, params);
    ws.applied.clear();
    ws.applied.resize(n, Wrench::default());
    ws.moved.clear();
    ws.moved.resize(n, true);
    if variant == PicardVariant::Multiscale {
        ws.multiscale.begin_step(!params.keep_active_sets);
    }
    let mut wall = PhaseTimes::default();
    let mut out = ImplicitOutput::default();
    let mut total = LevelStats::default();
    let mut pairs = 0;
    let reuse = ws.last.take().and_then(|l| {
        let hit = l.matches(world, variant, params.coarse_force_damping);
        let p = l.pairs;
        ws.last_bodies = Some(l.bodies);
        hit.then_some(p)
    });
    for k in 0..params.max_iterations {
        let reused = k == 0 && reuse.is_some();
        // 1. Detection at the guess held by `world.bodies`.
        let moved = ws.moved.iter().filter(|&&m| m).count() as u32;
        let d = match variant {
            _ if reused => {
                pairs = reuse.unwrap_or(0);
                MultiscaleDetect::default()
            }
            PicardVariant::Flat | PicardVariant::Surrogate => {
                let t = Instant::now();
                let (found, p, checks) = detect_contacts(world, &mut ws.step)?;
                ws.contacts.clear();
                ws.contacts.extend_from_slice(found);
                ws.coarse.clear();
                pairs = p;
                wall.narrow += t.elapsed().as_secs_f64();
                MultiscaleDetect {
                    stats: checks,
                    ..MultiscaleDetect::default()
                }
            }
            PicardVariant::Multiscale => {
                let d = ws.multiscale.detect(
                    world,
                    &ws.moved,
                    &mut ws.contacts,
                    &mut ws.coarse,
                    &mut wall,
                )?;
                pairs = d.pairs;
                d
            }
        };
        let (checks, counts) = (d.stats, d.counts);
        // 2. Forces at the guess; damped coarse estimates (remark 5).
        let t_forces = Instant::now();
        if !reused {
            compute_forces(world, ws, params, dt, n);
        }
        // 3.–4. Residual and relaxed wrench.
        let residual = if k == 0 {
            ws.applied.clone_from(&ws.computed);
            Residual {
                max_relative: f64::INFINITY,
                min_omega: params.relaxation,
            }
        } else {
            ws.relax
                .residual(&ws.start, &ws.computed, &mut ws.applied, params, true)
        };
        wall.forces += t_forces.elapsed().as_secs_f64();
        total += &checks;
        out.unfolds += counts.unfolds;
        out.narrows += counts.narrows;
        out.skipped += d.skipped;
        out.per_iteration.push(IterationStats {
            checks_per_level: checks_per_level(levels, &checks),
            fallbacks: checks.fallbacks,
            candidate_pairs: pairs,
            contacts: ws.contacts.len() as u32,
            coarse_contacts: ws.coarse.len() as u32,
            unfolds: counts.unfolds,
            narrows: counts.narrows,
            skipped: d.skipped,
            bounds: d.bounds,
            refreshed: d.refreshed,
            kept: d.kept,
            moved,
            residual: residual.max_relative,
            relaxation: residual.min_omega,
            reused,
        });
        // A narrowing replaces idle children by their parent only after checking that the
        // parent is separated at this guess, so it changes no contact: only widenings
        // keep the iteration going.
        let settled = counts.unfolds == 0;
        if k >= 1 && settled && residual.max_relative <= params.tolerance {
            out.converged = true;
            break;
        }
        if k + 1 == params.max_iterations {
            break;
        }
        // 5. Next guess from the start-of-step state.
        let t_int = Instant::now();
        let bodies = world.bodies.iter_mut().zip(&mut ws.moved);
        for ((b, moved), (s, w)) in bodies.zip(ws.start.iter().zip(&ws.applied)) {
            let mut next = s.clone();
            advance_body(&mut next, w, &gravity, dt);
            *moved = !same_pose(b, &next);
            *b = next;
        }
        wall.integrate += t_int.elapsed().as_secs_f64();
        if let Some(e) = non_finite(world) {
            return Err(e);
        }
    }

    // The accepted state is the last one evaluated: keep its evaluation for the next
    // step's first iteration (see the module docs).
    let multiscale = variant == PicardVariant::Multiscale;
    if !multiscale || (params.keep_active_sets && out.converged) {
        let mut bodies = ws.last_bodies.take().unwrap_or_default();
        bodies.clone_from(&world.bodies);
        ws.last = Some(LastEvaluation {
            bodies,
            step: world.step + 1,
            dt,
            gravity,
            variant,
            damping: params.coarse_force_damping,
            pairs,
        });
    }
    let mut records = Vec::new();
    if record_contacts {
        // Into scratch: `computed` stays the accepted state's evaluation (reused above).
        ws.coarse_wrenches.clear();
        ws.coarse_wrenches.resize(n, Wrench::default());
        out.contact_energy = accumulate_forces(
            world,
            &world.bodies,
            &ws.contacts,
            dt,
            &mut ws.coarse_wrenches,
            Some(&mut records),
        );
    } else {
        out.contact_energy = ws
            .contacts
            .iter()
            .map(|c| crate::contact::pair::PairParams::of(world, c.a, c.b).spring_energy(c.dist))
            .sum();
    }
    out.contacts = records;
    world.step += 1;
    world.time += dt;
    let obs = observables(&world.bodies, &gravity);
    out.stats = StepStats {
        step: world.step,
        time: world.time,
        checks_per_level: checks_per_level(levels, &total),
        fallbacks: total.fallbacks,
        candidate_pairs: pairs,
        contacts: ws.contacts.len() as u32,
        kinetic_energy: obs.kinetic,
        potential_energy: obs.potential,
        linear_momentum: obs.linear_momentum.into(),
        angular_momentum: obs.angular_momentum.into(),
        iterations: out.per_iteration.len() as u32,
        converged: out.converged,
        unfolds: out.unfolds,
        narrows: out.narrows,
        skipped: out.skipped,
        iteration_checks: out
            .per_iteration
            .iter()
            .map(|it| it.checks_per_level.clone())
            .collect(),
        wall,
    };
    Ok(out)
}
