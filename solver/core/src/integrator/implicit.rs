//! Implicit time stepping by Picard iterations (seed 000 §2 Alg. 3, §5.2–5.3 Alg. 6, §6.1).
//!
//! One step solves `v' = v + Δt·a(x', v')`, `x' = advance(x, v')` (implicit Euler; or the
//! trapezoidal rule, [`PicardScheme`]) by fixed-point iterations from the guess "current
//! state" (Alg. 3):
//!
//! 1. **detect** contacts at the guessed configuration through the detection layer
//!    ([`crate::detect`]; [`PicardVariant`] decides how);
//! 2. **forces** at the guessed state (positions *and* velocities, so damping and friction
//!    are implicit too), [`crate::contact::force::accumulate_forces`];
//! 3. **residual** `r = F − W` against the wrench `W` that produced the guess; the step
//!    has converged when every particle's force and torque update is below
//!    [`PicardParams::tolerance`] relative to its force (with an absolute floor, see
//!    [`PicardParams::force_floor`]) — and, for multiscale Picard, no active pair was
//!    widened in this iteration;
//! 4. **update** the wrench: `W ← W + ω·r` with the adaptive ω of §6.1
//!    ([`PicardAcceleration::Aitken`], the default), a damped Newton step with the
//!    contact Jacobian (`newton`, [`PicardAcceleration::Newton`]), or an active-set Newton
//!    step on a piecewise-linear contact model (`piecewise_linear`, `pwl.rs`); with
//!    contacts linearised once per step (`linearised`, `linearised.rs`) step 1 detects
//!    only at the start, later iterations carry those contacts to the guess along their
//!    normals (no narrow phase), and one detection at the end state checks the result;
//! 5. **advance** every particle from its start-of-step state with `W` and gravity
//!    (Euler–Cromer, [`crate::motion::advance_body`]; the implicit midpoint rule moves with
//!    the average of the start and end velocities and evaluates forces at the midpoint
//!    state, `scheme`): the next guess.
//!
//! The accepted state is the last guess whose forces were evaluated — the state whose
//! forces agree with the wrench that produced it within the tolerance, so the reported
//! contacts belong to the new state. **A step that uses up
//! [`PicardParams::max_iterations`] is never accepted**: by default
//! ([`NoConvergence::Substep`]) it is retried from its start state as two steps of
//! `Δt/2`, each split again while it does not converge, at most
//! [`PicardParams::max_substep_levels`] deep (the step's `substeps` count them); with
//! [`NoConvergence::Stop`], or when the deepest substep fails too, the step fails with
//! [`StepError::NotConverged`] and the run stops.
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
//! evaluation and the bodies and step counter are unchanged (bitwise), the first
//! iteration reuses it instead of detecting again: the
//! same inputs give the same contacts and forces, so the iterates are unchanged. For
//! multiscale Picard this also requires kept active sets and a converged previous step
//! (then no active surrogate pair is in contact at that state, so a new detection would
//! neither find other contacts nor widen); the reused iteration reports no checks
//! ([`IterationStats::reused`]). An integrator assumes that the model does not change
//! between the steps it serves (true within a run).

mod calibration;
mod linearised;
mod newton;
mod output;
mod pwl;
pub(crate) mod relax;
mod reuse;
pub(crate) mod scheme;
mod split;
pub(crate) mod substeps;
mod tangent;
mod theta;

pub use crate::params::{
    NoConvergence, PicardAcceleration, PicardParamError, PicardParams, PicardScheme, PicardVariant,
};
pub use newton::{ContactJacobian, Vec6};
pub use output::{ImplicitOutput, IterationStats};

use super::{check_finite, Integrator, Stepped};
use crate::contact::force::{accumulate_forces_calibrated, DampingCalibration, Wrench};
use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::detect::{checks_per_level, stats_levels, CertificateSkin, Detection, Detector, Search};
use crate::error::StepError;
use crate::frames::{PhaseTimes, StepStats};
use crate::model::Model;
use crate::motion::energy::observables;
use crate::params::{DetectionMode, Params};
use crate::state::{Body, State};
use msdem_geom::math::Vec3;
use msdem_tree::LevelStats;
use pwl::PiecewiseLinear;
use relax::{Relaxation, Residual};
use reuse::{compute_forces, LastEvaluation};
use std::time::Instant;

/// Smallest weight of a damped Newton step [-].
const MIN_NEWTON_WEIGHT: f64 = 1.0 / 64.0;

/// Implicit Euler by Picard iterations (see the module docs): its settings and buffers.
#[derive(Debug)]
pub struct ImplicitEuler {
    variant: PicardVariant,
    params: PicardParams,
    dt: f64,
    gravity: Vec3,
    relax: Relaxation,
    start: Vec<Body>,
    /// Where the midpoint rule evaluates forces: the midpoint of the start and the guess.
    mid: State,
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
    /// Newton update: the contact Jacobian and its right-hand side, solution and mask.
    jacobian: ContactJacobian,
    rhs: Vec<Vec6>,
    delta: Vec<Vec6>,
    free: Vec<bool>,
    /// Piecewise-linear update: its candidate memory and accepted guess.
    pwl: PiecewiseLinear,
    /// Linearised contacts: the step's contact set frozen at its start.
    frozen: linearised::Frozen,
}

/// What the attempts of one step (the full step, or its substeps) add up to.
#[derive(Default)]
pub(crate) struct Tally {
    out: ImplicitOutput,
    wall: PhaseTimes,
    total: LevelStats,
    pairs: u32,
    /// Largest relative update of the last iteration of the last attempt [-].
    residual: f64,
    /// Substeps that make up the step (0: converged at the full Δt).
    substeps: u32,
    /// Time step of the last attempt \[s\].
    dt: f64,
}

impl ImplicitEuler {
    /// The `variant` with the time step, gravity and Picard settings of `params`.
    pub fn new(params: &Params, variant: PicardVariant) -> Self {
        Self::with(params.dt, params.gravity, &params.picard, variant)
    }

    /// The `variant` with time step `dt` \[s\], gravity [m/s²] and Picard settings
    /// (out-of-range settings are clamped, [`PicardParams::clamped`]).
    pub fn with(dt: f64, gravity: Vec3, params: &PicardParams, variant: PicardVariant) -> Self {
        ImplicitEuler {
            variant,
            params: params.clamped(),
            dt,
            gravity,
            relax: Relaxation::default(),
            start: Vec::new(),
            mid: State::default(),
            applied: Vec::new(),
            computed: Vec::new(),
            coarse_wrenches: Vec::new(),
            contacts: Vec::new(),
            coarse: Vec::new(),
            last: None,
            last_bodies: None,
            moved: Vec::new(),
            jacobian: ContactJacobian::default(),
            rhs: Vec::new(),
            delta: Vec::new(),
            free: Vec::new(),
            pwl: PiecewiseLinear::default(),
            frozen: linearised::Frozen::default(),
        }
    }

    /// The Picard variant.
    pub fn variant(&self) -> PicardVariant {
        self.variant
    }

    /// Merged fine contacts of the last evaluated state (the accepted state after a step).
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Forgets the evaluation of the last accepted state, so that the next step detects
    /// contacts in its first iteration instead of reusing it (a diagnostic: the results
    /// are the same, see the module docs).
    pub fn forget_last_evaluation(&mut self) {
        if let Some(l) = self.last.take() {
            self.last_bodies = Some(l.bodies);
        }
    }

    /// Advances `state` by one implicit step with Picard iterations (see the module
    /// docs) and returns its statistics, plus the contacts when `record_contacts` is set.
    /// A step whose iterations do not converge is retried as substeps or refused, as
    /// [`PicardParams::on_no_convergence`] says.
    ///
    /// Fails with [`StepError::NonFinite`] when the state is not finite before the step
    /// or a guess becomes non-finite (the bodies then hold that guess; time and step
    /// count are not advanced), with [`StepError::NotConverged`] when the step does not
    /// converge (the bodies hold the start of the step), and with
    /// [`StepError::BroadPhase`] when the broad phase refuses the state.
    pub fn advance(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<ImplicitOutput, StepError> {
        check_finite(state)?;
        let (step0, time0) = (state.step, state.time);
        let mut tally = Tally::default();
        if !self.attempt(model, state, detector, self.dt, &mut tally)? {
            let begin = self.start.clone();
            state.bodies.clone_from(&begin);
            let split = match self.params.on_no_convergence {
                NoConvergence::Stop => Err(substeps::not_converged(
                    &self.params,
                    state,
                    tally.residual,
                    0,
                )),
                NoConvergence::Substep => {
                    substeps::split(self, model, state, detector, self.dt, 1, &mut tally)
                }
            };
            if let Err(e) = split {
                if matches!(e, StepError::NotConverged { .. }) {
                    state.bodies = begin;
                    self.forget_last_evaluation();
                }
                return Err(self.explain(e));
            }
        }
        state.step = step0 + 1;
        state.time = time0 + self.dt;
        if let Some(l) = &mut self.last {
            l.step = state.step;
        }
        Ok(self.finish(model, state, record_contacts, tally))
    }

    /// One attempt at a (sub)step of `dt` \[s\] from `state`: Picard iterations until
    /// convergence or [`PicardParams::max_iterations`]; `state.bodies` then hold the last
    /// evaluated guess. Returns whether it converged; time and step count are not touched.
    /// An attempt of the piecewise-linear update that does not converge is tried once
    /// more at the same Δt from the same start with the relaxed iteration (Aitken and the
    /// switch rule), before the caller splits it: the seed-point law's force jumps stop
    /// the model's iteration where the relaxed one may pass (both attempts' iterations
    /// are counted).
    fn attempt(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Tally,
    ) -> Result<bool, StepError> {
        let acceleration = self.params.acceleration;
        if acceleration == PicardAcceleration::Linearised {
            return self.attempt_linearised(model, state, detector, dt, tally);
        }
        if self.attempt_with(model, state, detector, dt, tally, acceleration)? {
            return Ok(true);
        }
        if acceleration != PicardAcceleration::PiecewiseLinear {
            return Ok(false);
        }
        let begin = self.start.clone();
        state.bodies.clone_from(&begin);
        self.forget_last_evaluation();
        self.attempt_with(
            model,
            state,
            detector,
            dt,
            tally,
            PicardAcceleration::Aitken,
        )
    }

    /// [`ImplicitEuler::attempt`] with the wrench update `acceleration`.
    fn attempt_with(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Tally,
        acceleration: PicardAcceleration,
    ) -> Result<bool, StepError> {
        let n = state.bodies.len();
        let (gravity, variant) = (self.gravity, self.variant);
        let params = PicardParams {
            acceleration,
            ..self.params.clone()
        };
        let scheme = params.scheme;
        let theta = params.implicitness();
        let im = scheme::Implicitness::of(scheme, theta, dt);
        let newton = params.acceleration == PicardAcceleration::Newton;
        // Linearised contacts (`linearised.rs`): detected once, at the start; the
        // piecewise-linear update solves the step's system.
        let linearised = params.acceleration == PicardAcceleration::Linearised;
        let pwl = params.acceleration == PicardAcceleration::PiecewiseLinear || linearised;
        let levels = stats_levels(model);
        self.start.clone_from(&state.bodies);
        self.relax.begin(model, &state.bodies, &gravity, &params);
        self.applied.clear();
        self.applied.resize(n, Wrench::default());
        self.moved.clear();
        self.moved.resize(n, true);
        detector.set_skin(CertificateSkin::IMPLICIT);
        if variant == PicardVariant::Multiscale && !linearised {
            detector.begin_step(!params.keep_active_sets);
        }
        tally.dt = dt;
        let wall = &mut tally.wall;
        let out = &mut tally.out;
        let mut converged = false;
        let mut pairs = 0;
        // Forces at a state inside the step (midpoint rule, θ-method), not at its end.
        let midpoint = theta::evaluates_inside(scheme);
        let mut mid = std::mem::take(&mut self.mid);
        mid.clone_from(state);
        let reuse = self.last.take().and_then(|l| {
            let hit = l.matches(state, dt);
            let p = l.pairs;
            self.last_bodies = Some(l.bodies);
            hit.then_some(p)
        });
        let (mut newton_weight, mut last_residual): (f64, f64) = (1.0, f64::INFINITY);
        // Piecewise-linear update: once its model failed in this attempt (a force that
        // jumps between guesses), the relaxed iteration with the switch rule takes over.
        let mut relaxing = false;
        for k in 0..params.max_iterations {
            let reused = k == 0 && reuse.is_some();
            // 1. Detection at the guess held by `state.bodies`.
            let moved = self.moved.iter().filter(|&&m| m).count() as u32;
            // Euler evaluates the guess itself, the midpoint rule the midpoint state (the
            // start of the step in the first iteration).
            let eval: &State = if midpoint { &mid } else { state };
            let d = match variant {
                _ if reused => {
                    pairs = reuse.unwrap_or(0);
                    Detection::default()
                }
                _ if linearised && k > 0 => {
                    // No narrow phase: the start's contacts carried to the guess.
                    let end = midpoint.then_some(state.bodies.as_slice());
                    self.frozen.contacts_at(
                        model,
                        &self.start,
                        &eval.bodies,
                        end.map(|e| (e, theta)),
                        &mut self.contacts,
                    );
                    self.coarse.clear();
                    Detection::default()
                }
                _ if linearised => {
                    let d = linearised::detect(
                        model,
                        eval,
                        variant,
                        detector,
                        &mut self.contacts,
                        wall,
                    )?;
                    self.coarse.clear();
                    pairs = d.pairs;
                    d
                }
                PicardVariant::Flat | PicardVariant::Surrogate => {
                    let mode = match variant {
                        PicardVariant::Flat => DetectionMode::Flat,
                        _ => DetectionMode::Hierarchy,
                    };
                    let d = detector.detect(
                        model,
                        eval,
                        Search::Roots(mode),
                        &mut self.contacts,
                        wall,
                    )?;
                    self.coarse.clear();
                    pairs = d.pairs;
                    d
                }
                PicardVariant::Multiscale => {
                    let d = detector.iterate(
                        model,
                        eval,
                        &self.moved,
                        &mut self.contacts,
                        &mut self.coarse,
                        wall,
                    )?;
                    pairs = d.pairs;
                    d
                }
            };
            let (checks, counts) = (d.stats, d.counts);
            // 2. Forces at the guess; damped coarse estimates (remark 5).
            let t_forces = Instant::now();
            if !reused {
                compute_forces(
                    model,
                    &eval.bodies,
                    &self.contacts,
                    &self.coarse,
                    params.coarse_force_damping,
                    dt,
                    &mut self.computed,
                    &mut self.coarse_wrenches,
                    im.damping,
                );
            }
            if linearised && k == 0 {
                self.frozen.begin(&self.contacts, &self.computed, pairs);
            }
            // 3.–4. Residual and relaxed wrench (Newton: updated below instead).
            let residual = if k == 0 {
                self.applied.clone_from(&self.computed);
                if pwl {
                    // Piecewise-linear first guess (contacts may open within it).
                    self.pwl.predict(
                        model,
                        &eval.bodies,
                        &self.contacts,
                        &self.computed,
                        &gravity,
                        dt,
                        im,
                        &mut self.applied,
                    );
                } else if newton {
                    // Linearly implicit first guess instead of the explicit one.
                    self.free.clear();
                    self.free.resize(n, true);
                    self.rhs.clear();
                    self.rhs.extend(
                        self.computed
                            .iter()
                            .map(|w| newton::join(&w.force, &w.torque)),
                    );
                    self.jacobian
                        .assemble(model, &state.bodies, &self.contacts, dt, im);
                    self.jacobian
                        .predict(&self.rhs, &gravity, dt, im, &self.free, &mut self.delta);
                    for (w, f) in self.applied.iter_mut().zip(&self.delta) {
                        w.force = f.fixed_rows::<3>(0).into_owned();
                        w.torque = f.fixed_rows::<3>(3).into_owned();
                    }
                }
                Residual {
                    max_relative: f64::INFINITY,
                    min_omega: params.relaxation,
                }
            } else {
                self.relax.residual(
                    &self.start,
                    &self.computed,
                    &mut self.applied,
                    &params,
                    true,
                    !newton && (!pwl || relaxing),
                )
            };
            wall.forces += t_forces.elapsed().as_secs_f64();
            tally.total += &checks;
            tally.residual = residual.max_relative;
            out.unfolds += counts.unfolds;
            out.narrows += counts.narrows;
            out.skipped += d.skipped;
            out.per_iteration.push(IterationStats {
                checks_per_level: checks_per_level(levels, &checks),
                fallbacks: checks.fallbacks,
                candidate_pairs: pairs,
                contacts: self.contacts.len() as u32,
                coarse_contacts: self.coarse.len() as u32,
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
            // A narrowing replaces idle children by their parent only after checking that
            // the parent is separated at this guess, so it changes no contact: only
            // widenings keep the iteration going.
            let settled = counts.unfolds == 0;
            if k >= 1 && settled && residual.max_relative <= params.tolerance {
                converged = true;
                break;
            }
            if k + 1 == params.max_iterations {
                break;
            }
            // 4'. Newton update of the forces with the contact Jacobian (`newton`).
            let t_int = Instant::now();
            if pwl && k >= 1 && !relaxing {
                let kept = self.relax.kept();
                self.free.clear();
                self.free
                    .extend((0..n).map(|i| !kept.get(i).copied().unwrap_or(false)));
                relaxing = self
                    .pwl
                    .update(
                        model,
                        &eval.bodies,
                        &self.contacts,
                        &self.computed,
                        &mut self.applied,
                        &self.free,
                        dt,
                        im,
                    )
                    .bisected;
            }
            if newton && k >= 1 {
                let kept = self.relax.kept();
                self.free.clear();
                self.free
                    .extend((0..n).map(|i| !kept.get(i).copied().unwrap_or(false)));
                self.rhs.clear();
                self.rhs.extend(
                    self.computed
                        .iter()
                        .zip(&self.applied)
                        .map(|(f, w)| newton::join(&(f.force - w.force), &(f.torque - w.torque))),
                );
                self.jacobian
                    .assemble(model, &eval.bodies, &self.contacts, dt, im);
                self.jacobian.solve(&self.rhs, &self.free, &mut self.delta);
                // Damped Newton: the step weight halves when the residual grew since the
                // last iteration (a contact that opens and closes between guesses makes the
                // semi-smooth iteration cycle) and recovers while it shrinks.
                newton_weight = if residual.max_relative > last_residual {
                    (0.5 * newton_weight).max(MIN_NEWTON_WEIGHT)
                } else {
                    (2.0 * newton_weight).min(1.0)
                };
                for ((w, d), &free) in self.applied.iter_mut().zip(&self.delta).zip(&self.free) {
                    if free {
                        w.force += newton_weight * d.fixed_rows::<3>(0);
                        w.torque += newton_weight * d.fixed_rows::<3>(3);
                    }
                }
                last_residual = residual.max_relative;
            }
            // 5. Next guess from the start-of-step state (and the midpoint rule's next
            //    evaluation state).
            let bodies = state.bodies.iter_mut().zip(&mut self.moved);
            let evaluated = mid.bodies.iter_mut();
            for (((b, moved), m), (s, w)) in bodies
                .zip(evaluated)
                .zip(self.start.iter().zip(&self.applied))
            {
                let mut next = s.clone();
                scheme::advance(scheme, theta, &mut next, w, &gravity, dt);
                if midpoint {
                    let next_mid = scheme::evaluated(scheme, theta, s, &next, dt);
                    *moved = !same_pose(m, &next_mid);
                    *m = next_mid;
                } else {
                    *moved = !same_pose(b, &next);
                }
                *b = next;
            }
            wall.integrate += t_int.elapsed().as_secs_f64();
            check_finite(state)?;
        }
        tally.pairs = pairs;

        // The accepted state is the last one evaluated: keep its evaluation for the next
        // (sub)step's first iteration (see the module docs); `advance` sets its step.
        self.mid = mid;
        let multiscale = variant == PicardVariant::Multiscale;
        if midpoint || linearised {
            // Evaluated at the midpoint, not at the accepted state, or (linearised) on
            // predicted contacts: nothing to reuse (`linearised.rs` detects the end state).
        } else if !multiscale || (params.keep_active_sets && converged) {
            let mut bodies = self.last_bodies.take().unwrap_or_default();
            bodies.clone_from(&state.bodies);
            self.last = Some(LastEvaluation {
                bodies,
                step: state.step,
                pairs,
                dt,
            });
        }
        Ok(converged)
    }

    /// The step's output from its attempts, after the accepted state is in `state`.
    fn finish(
        &mut self,
        model: &Model,
        state: &State,
        record_contacts: bool,
        tally: Tally,
    ) -> ImplicitOutput {
        let n = state.bodies.len();
        let Tally {
            mut out,
            wall,
            total,
            pairs,
            substeps,
            dt,
            ..
        } = tally;
        out.converged = true;
        // The contacts and forces that made the step: at the accepted state (Euler) or
        // at the midpoint state (midpoint rule).
        // (Linearised contacts: the real contacts of the accepted state.)
        let evaluated = match self.params.scheme {
            _ if self.params.acceleration == PicardAcceleration::Linearised => &state.bodies,
            PicardScheme::Euler => &state.bodies,
            PicardScheme::Midpoint | PicardScheme::Theta | PicardScheme::Split => &self.mid.bodies,
        };
        let mut records = Vec::new();
        if record_contacts {
            // Into scratch: `computed` stays the accepted state's evaluation (reused above);
            // `step` hands these wrenches of the recorded contacts to the run loop.
            self.coarse_wrenches.clear();
            self.coarse_wrenches.resize(n, Wrench::default());
            let calibration = self.calibration(dt);
            out.contact_energy = accumulate_forces_calibrated(
                model,
                evaluated,
                &self.contacts,
                dt,
                &mut self.coarse_wrenches,
                Some(&mut records),
                calibration,
            );
        } else {
            out.contact_energy = self
                .contacts
                .iter()
                .map(|c| PairParams::of(model, evaluated, c.a, c.b).spring_energy(c.dist))
                .sum();
        }
        out.contacts = records;
        let levels = stats_levels(model);
        let obs = observables(&state.bodies, &self.gravity);
        out.stats = StepStats {
            step: state.step,
            time: state.time,
            checks_per_level: checks_per_level(levels, &total),
            fallbacks: total.fallbacks,
            candidate_pairs: pairs,
            contacts: self.contacts.len() as u32,
            kinetic_energy: obs.kinetic,
            potential_energy: obs.potential,
            linear_momentum: obs.linear_momentum.into(),
            angular_momentum: obs.angular_momentum.into(),
            iterations: out.per_iteration.len() as u32,
            converged: true,
            substeps,
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
        out
    }
}

/// Linearised contacts (`linearised.rs`): the attempt, its check and its reporting.
impl ImplicitEuler {
    /// One attempt at a (sub)step of `dt` \[s\] with the contacts linearised once (module
    /// docs): solve, detect at the end state, check; re-solve with the revealed contacts
    /// at most [`linearised::MAX_CORRECTIONS`] times. Returns whether the step is accepted;
    /// `state.bodies` then hold the end state, whose detection and forces are kept for
    /// the next step's first iteration.
    pub(super) fn attempt_linearised(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Tally,
    ) -> Result<bool, StepError> {
        self.frozen.revealed.clear();
        self.frozen.last_rejection = None;
        let mut round = 0;
        loop {
            if !self.attempt_with(
                model,
                state,
                detector,
                dt,
                tally,
                PicardAcceleration::Linearised,
            )? {
                return Ok(false);
            }
            let mut real = std::mem::take(&mut self.frozen.real);
            let d = linearised::detect(
                model,
                state,
                self.variant,
                detector,
                &mut real,
                &mut tally.wall,
            )?;
            tally.total += &d.stats;
            let strict = self.params.scheme == PicardScheme::Split;
            let verdict = self
                .frozen
                .check(model, &self.start, &state.bodies, &real, strict);
            match verdict {
                linearised::Verdict::Accept => {
                    // The end state's evaluation: the step's contacts, and the next
                    // step's first iteration.
                    std::mem::swap(&mut self.contacts, &mut real);
                    self.frozen.real = real;
                    self.coarse.clear();
                    let calibration = self.calibration(dt);
                    compute_forces(
                        model,
                        &state.bodies,
                        &self.contacts,
                        &[],
                        0.0,
                        dt,
                        &mut self.computed,
                        &mut self.coarse_wrenches,
                        calibration,
                    );
                    tally.pairs = d.pairs;
                    self.set_last(state, d.pairs, dt);
                    return Ok(true);
                }
                linearised::Verdict::Reveal if round < linearised::MAX_CORRECTIONS => {
                    round += 1;
                    self.frozen.corrections += 1;
                    self.frozen.real = real;
                    // Again from the start, with its evaluation (no second detection).
                    state.bodies.clone_from(&self.start);
                    self.contacts.clone_from(&self.frozen.start_contacts);
                    self.computed.clone_from(&self.frozen.start_computed);
                    self.coarse.clear();
                    let pairs = self.frozen.start_pairs;
                    self.set_last(state, pairs, dt);
                }
                _ => {
                    self.frozen.rejections += 1;
                    self.frozen.real = real;
                    return Ok(false);
                }
            }
        }
    }

    /// Records that `contacts`, `computed` are the evaluation of `state` at `dt`.
    fn set_last(&mut self, state: &State, pairs: u32, dt: f64) {
        let mut bodies = self.last_bodies.take().unwrap_or_default();
        bodies.clone_from(&state.bodies);
        self.last = Some(LastEvaluation {
            bodies,
            step: state.step,
            pairs,
            dt,
        });
    }

    /// `e` as the caller reports it: a step that did not converge because the acceptance
    /// check split it down to the deepest substep (not because its iterations did not
    /// converge) says so.
    pub(super) fn explain(&self, e: StepError) -> StepError {
        match (e, self.frozen.last_rejection) {
            (
                StepError::NotConverged {
                    step, time, levels, ..
                },
                Some(worst),
            ) => StepError::Unsupported {
                what: format!(
                    "step {step} (t = {time:e} s): picard.acceleration: linearised: a real \
                     contact at the end state differs from its linear prediction by {:.0} % \
                     of its margin (more than {:.0} %) even at Δt/{}, an error that does not \
                     shrink with the step: a contact law that jumps with the pose (e.g. the \
                     seed points' merging); use another picard.acceleration or \
                     detection.contact_points: patches",
                    100.0 * worst,
                    100.0 * linearised::DEPTH_FRACTION,
                    1u64 << levels.min(63)
                ),
            },
            (e, _) => e,
        }
    }

    /// The dashpot's correction for a step of `dt` \[s\]: the split scheme's
    /// (`calibration.rs`), none for the others.
    fn calibration(&self, dt: f64) -> Option<DampingCalibration> {
        (self.params.scheme == PicardScheme::Split).then(|| calibration::split(dt))
    }

    /// Re-solves of (sub)steps with contacts their check revealed, and (sub)steps the
    /// check split, since the integrator was made (linearised contacts only).
    pub fn linearised_counts(&self) -> (u64, u64) {
        (self.frozen.corrections, self.frozen.rejections)
    }
}

impl Integrator for ImplicitEuler {
    fn name(&self) -> &'static str {
        match self.variant {
            PicardVariant::Flat => "implicit_flat",
            PicardVariant::Surrogate => "implicit_surrogate",
            PicardVariant::Multiscale => "implicit_multiscale",
        }
    }

    fn step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        let out = self.advance(model, state, detector, record_contacts)?;
        let residual = out.per_iteration.last().map_or(0.0, |it| it.residual);
        // With contacts recorded, `coarse_wrenches` holds their forces (see `picard`).
        let wrenches = if record_contacts {
            self.coarse_wrenches.clone()
        } else {
            Vec::new()
        };
        Ok(Stepped {
            stats: out.stats,
            contacts: out.contacts,
            wrenches,
            residual,
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct Ref<'a> {
            last: &'a Option<LastEvaluation>,
            contacts: &'a [Contact],
            coarse: &'a [Contact],
            computed: &'a [Wrench],
        }
        postcard::to_allocvec(&Ref {
            last: &self.last,
            contacts: &self.contacts,
            coarse: &self.coarse,
            computed: &self.computed,
        })
        .unwrap_or_default()
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let c: Carried = postcard::from_bytes(bytes)
            .map_err(|e| format!("{}: carried evaluation: {e}", self.name()))?;
        self.last = c.last;
        self.contacts = c.contacts;
        self.coarse = c.coarse;
        self.computed = c.computed;
        Ok(())
    }
}

/// What an implicit integrator carries into the next step: the accepted state's
/// evaluation (reused by the next step's first iteration, see the module docs).
#[derive(serde::Serialize, serde::Deserialize)]
struct Carried {
    last: Option<LastEvaluation>,
    contacts: Vec<Contact>,
    coarse: Vec<Contact>,
    computed: Vec<Wrench>,
}

/// [`ImplicitEuler`]'s carried evaluation (its [`Integrator::snapshot`]) in parts, for the
/// distributed implicit integrator ([`crate::distributed::implicit`]), which assembles it
/// on rank 0 for a checkpoint and hands it out to the ranks on resume, so that its
/// checkpoints are the one-process ones at any rank count.
#[cfg(feature = "mpi")]
pub(crate) struct CarriedEvaluation(Carried);

#[cfg(feature = "mpi")]
impl std::fmt::Debug for CarriedEvaluation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CarriedEvaluation")
            .field("reusable", &self.0.last.is_some())
            .field("contacts", &self.0.contacts.len())
            .field("coarse", &self.0.coarse.len())
            .finish()
    }
}

#[cfg(feature = "mpi")]
impl CarriedEvaluation {
    /// The snapshot of an evaluation made at `last` = (bodies, step, candidate pairs,
    /// time step \[s\]) (`None`: nothing to reuse) with these fine and coarse contacts (in
    /// the one-process order) and forces of every particle.
    pub(crate) fn new(
        last: Option<(Vec<Body>, u64, u32, f64)>,
        contacts: Vec<Contact>,
        coarse: Vec<Contact>,
        computed: Vec<Wrench>,
    ) -> Self {
        let last = last.map(|(bodies, step, pairs, dt)| LastEvaluation {
            bodies,
            step,
            pairs,
            dt,
        });
        CarriedEvaluation(Carried {
            last,
            contacts,
            coarse,
            computed,
        })
    }

    /// The bytes [`ImplicitEuler`]'s snapshot of the same evaluation has.
    pub(crate) fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.0).unwrap_or_default()
    }

    /// Decodes an [`ImplicitEuler`] snapshot; an error says what did not decode.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, String> {
        postcard::from_bytes(bytes)
            .map(CarriedEvaluation)
            .map_err(|e| format!("carried evaluation: {e}"))
    }

    /// Step, candidate pairs and time step \[s\] of the last evaluation when one process
    /// resuming at `state` would reuse it (made at this state, bit for bit), and the
    /// contacts, coarse contacts and forces.
    #[allow(clippy::type_complexity)]
    pub(crate) fn into_parts(
        self,
        state: &State,
    ) -> (
        Option<(u64, u32, f64)>,
        Vec<Contact>,
        Vec<Contact>,
        Vec<Wrench>,
    ) {
        let Carried {
            last,
            contacts,
            coarse,
            computed,
        } = self.0;
        let last = last
            .filter(|l| l.matches(state, l.dt))
            .map(|l| (l.step, l.pairs, l.dt));
        (last, contacts, coarse, computed)
    }
}

/// Bitwise equality of the pose (what contact detection depends on).
pub(crate) fn same_pose(a: &Body, b: &Body) -> bool {
    a.position == b.position && a.orientation == b.orientation
}

impl substeps::Substeps for ImplicitEuler {
    type Tally = Tally;

    fn attempt_step(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Tally,
    ) -> Result<bool, StepError> {
        self.attempt(model, state, detector, dt, tally)
    }

    fn picard(&self) -> &PicardParams {
        &self.params
    }

    fn count_substep(tally: &mut Tally) {
        tally.substeps += 1;
    }

    fn residual(tally: &Tally) -> f64 {
        tally.residual
    }
}
