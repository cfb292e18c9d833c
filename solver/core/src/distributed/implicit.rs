//! Implicit Euler by Picard iterations (seed 000 §2 Alg. 3, §5.2–5.3 Alg. 6, §6.1: the
//! flat, surrogate and multiscale variants of [`crate::integrator::implicit`]) over the
//! spatial domain decomposition of [`super::explicit`], with frames and statistics
//! byte-identical to one process.
//!
//! The decomposition, the ghosts, the pair ownership rule, the force assembly in the
//! one-process order, the gather to rank 0, the rebalance and the migration are those of
//! the distributed explicit step (this integrator drives a [`DistributedExplicit`] as its
//! decomposition); a Picard step runs them per iteration instead of once per step:
//!
//! 1. **ghosts** of the evaluation state (the guess; the midpoint state for the midpoint
//!    rule) — and, for multiscale Picard, whether each ghost's pose moved in the last
//!    update (a pair of two unmoved particles keeps its contacts);
//! 2. **detection** of the pairs this rank owns at that state ([`Detector::detect_candidates`]
//!    from the roots, or [`Detector::iterate_candidates`] on the kept sets, which live on
//!    the owner of the pair's particle `a` and move with it);
//! 3. **forces** of the owned particles, summed in the one-process contact order (plus the
//!    damped coarse estimates of multiscale Picard);
//! 4. **residual** of the owned particles (`Relaxation::measure` of
//!    `integrator/implicit/relax.rs`), then one collective reduction: every rank gets the
//!    largest relative update, the number of widened pairs (the convergence decision) and
//!    every particle's Aitken secant terms, which it sums **in particle order**
//!    (`Relaxation::adapt_system`) — the system's ω, and so every update, has the bits of
//!    one process whatever the decomposition;
//! 5. **update** of the owned wrenches (`Relaxation::apply`) and the owned particles'
//!    next guess, then a reduction of the lowest non-finite particle.
//!
//! Every decision (convergence, substeps, failure) is taken from reduced values, so all
//! ranks take it together. After the step the statistics, and at output steps the bodies,
//! contacts and wrenches, go to rank 0 as in [`super::explicit`] (with each iteration's
//! checks per level). The accepted state's forces stand for the next step's first
//! iteration exactly when one process reuses them (see the serial module's docs); a
//! migrating particle takes its wrench along. A failure every rank finds at once (no
//! convergence, a non-finite guess) is returned by rank 0 only; the others wait in an
//! exchange until the launcher aborts them, so the run prints one error line.
//!
//! Checkpoints hold what one process's implicit integrator carries (the last evaluation),
//! assembled on rank 0, and a resumed run shares it out again at any rank count
//! ([`restart`]).
//!
//! Not distributed: the Newton updates (`picard.acceleration: newton`,
//! `piecewise_linear` or `linearised`, whose contact systems are solved over the whole
//! contact graph) — refused at setup.

pub mod restart;

use std::time::Instant;

use super::explicit::{
    encode, DistributedExplicit, KeyedRecords, Report, Traffic, NON_FINITE, VERDICT_CHECKPOINT,
};
use super::rcb::RcbError;
use crate::contact::force::{prepare_forces, Wrench};
use crate::contact::Contact;
use crate::detect::{checks_per_level, stats_levels, CertificateSkin, Detection, Detector, Search};
use crate::error::StepError;
use crate::frames::PhaseTimes;
use crate::integrator::implicit::relax::Relaxation;
use crate::integrator::implicit::{same_pose, scheme, substeps, CarriedEvaluation};
use crate::integrator::{Integrator, Stepped};
use crate::model::Model;
use crate::motion::energy::particle_terms;
use crate::params::{
    DetectionMode, NoConvergence, Params, PicardAcceleration, PicardParams, PicardScheme,
    PicardVariant,
};
use crate::state::{Body, State};
use msdem_geom::math::Vec3;
use msdem_tree::LevelStats;

/// What the attempts of one step add up to on this rank.
#[derive(Default)]
pub(crate) struct Tally {
    wall: PhaseTimes,
    /// This rank's checks over all iterations.
    total: LevelStats,
    /// This rank's checks per level of every iteration.
    iteration_checks: Vec<Vec<u64>>,
    /// This rank's candidate pairs in the last iteration.
    pairs: u32,
    unfolds: u32,
    narrows: u32,
    skipped: u64,
    /// Largest relative update of the last iteration of the last attempt, all ranks [-].
    residual: f64,
    substeps: u32,
    /// Time step of the last attempt \[s\].
    dt: f64,
}

/// A particle's force and torque of the last evaluation, sent along when it migrates.
type CarriedForce = (u32, [f64; 3], [f64; 3]);

/// What every rank contributes to the convergence decision of one iteration.
#[derive(serde::Serialize, serde::Deserialize)]
struct IterationReport {
    max_relative: f64,
    unfolds: u32,
    /// `(particle, r_{k−1}·Δr, |Δr|²)` of the owned particles with a residual history.
    secants: Vec<(u32, f64, f64)>,
}

/// The distributed implicit integrator of one rank (see the module docs).
#[derive(Debug)]
pub struct DistributedImplicit {
    core: DistributedExplicit,
    variant: PicardVariant,
    params: PicardParams,
    dt: f64,
    gravity: Vec3,
    relax: Relaxation,
    start: Vec<Body>,
    mid: State,
    applied: Vec<Wrench>,
    /// Forces of the last evaluation: current for the owned particles.
    computed: Vec<Wrench>,
    contacts: Vec<Contact>,
    coarse: Vec<Contact>,
    moved: Vec<bool>,
    /// The last evaluation can stand for the first iteration of a (sub)step of this step
    /// number and time step \[s\]; with this rank's candidate pairs.
    last: Option<(u64, f64, u32)>,
    secants: Vec<(u32, f64, f64)>,
    /// Rank 0's verdict of this step (rebalance, checkpoint), as its ghosts brought it.
    verdict: u8,
    /// Rank 0: the restored one-process snapshot, shared out at the start ([`restart`]).
    restored: Option<CarriedEvaluation>,
    /// Rank 0: the one-process snapshot of the last checkpoint step.
    snapshot: Vec<u8>,
}

impl DistributedImplicit {
    /// The integrator of rank `rank` of `size` for the implicit run (`variant`) of `model`
    /// from `state` with `params` (the same on every rank); the decomposition as
    /// [`DistributedExplicit::new`] makes it. Fails when the decomposition leaves a rank
    /// without particles, or on the Newton updates (one line naming the setting).
    pub fn new(
        model: &Model,
        state: &State,
        params: &Params,
        variant: PicardVariant,
        rank: u32,
        size: u32,
        rebalance_above: f64,
    ) -> Result<Self, String> {
        let update = match params.picard.acceleration {
            PicardAcceleration::Aitken => None,
            PicardAcceleration::Newton => Some("newton"),
            PicardAcceleration::PiecewiseLinear => Some("piecewise_linear"),
            PicardAcceleration::Linearised => Some("linearised"),
        };
        if let Some(update) = update {
            return Err(format!(
                "distributed implicit runs relax the Picard updates by Aitken's rule; the \
                 update `picard.acceleration: {update}` solves one system over all particles \
                 and runs on one rank only (run it without mpirun or with one rank)"
            ));
        }
        let core = DistributedExplicit::new(model, state, params, rank, size, rebalance_above)
            .map_err(|e: RcbError| e.to_string())?;
        Ok(DistributedImplicit {
            core,
            variant,
            params: params.picard.clamped(),
            dt: params.dt,
            gravity: params.gravity,
            relax: Relaxation::default(),
            start: Vec::new(),
            mid: State::default(),
            applied: Vec::new(),
            computed: Vec::new(),
            contacts: Vec::new(),
            coarse: Vec::new(),
            moved: Vec::new(),
            last: None,
            secants: Vec::new(),
            verdict: 0,
            restored: None,
            snapshot: Vec::new(),
        })
    }

    /// The particles this rank owns now, ascending.
    pub fn owned(&self) -> &[u32] {
        self.core.owned()
    }

    /// Communication and balance counters so far.
    pub fn traffic(&self) -> Traffic {
        self.core.traffic()
    }

    /// See [`DistributedExplicit::shared_began`].
    pub fn shared_began(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.core.shared_began()
    }

    /// A handle on [`DistributedImplicit::traffic`], updated after every step.
    pub fn shared_traffic(&self) -> std::sync::Arc<std::sync::Mutex<Traffic>> {
        self.core.shared_traffic()
    }

    /// The same message to every rank; what every rank sent, by rank.
    fn all_gather<T>(&mut self, state: &State, mine: &T, what: &str) -> Result<Vec<T>, StepError>
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        let bytes = encode(mine);
        let out = vec![bytes; self.core.size as usize];
        let got = self.core.swap(state, &out)?;
        got.iter()
            .map(|m| self.core.decode::<T>(state, m, what))
            .collect()
    }

    /// An error every rank found at once: rank 0 returns it; the others wait in an
    /// exchange rank 0 never joins until the launcher aborts them (one error line).
    fn halt(&mut self, state: &State, e: StepError) -> StepError {
        if self.core.rank != 0 {
            let out = vec![Vec::new(); self.core.size as usize];
            let _ = self.core.swap(state, &out);
        }
        e
    }

    /// The lowest non-finite owned particle of all ranks, as [`StepError::NonFinite`].
    fn check_finite(&mut self, state: &State) -> Result<(), StepError> {
        let mine = self.core.owned.iter().find_map(|&k| {
            crate::motion::first_non_finite(std::slice::from_ref(&state.bodies[k as usize])).map(
                |(_, q)| {
                    (
                        k,
                        NON_FINITE.iter().position(|n| *n == q).unwrap_or(0) as u8,
                    )
                },
            )
        });
        let all = self.all_gather(state, &mine, "non-finite particles")?;
        match all.into_iter().flatten().min() {
            None => Ok(()),
            Some((particle, q)) => {
                let e = StepError::NonFinite {
                    step: state.step + 1,
                    particle,
                    quantity: NON_FINITE[usize::from(q) % 4],
                };
                Err(self.halt(state, e))
            }
        }
    }

    /// Wrenches of `contacts` on the owned particles at `eval` (all particles' slots;
    /// current for the owned ones), summed in the one-process order; the contact records
    /// when `record`.
    fn forces(
        &mut self,
        model: &Model,
        eval: &State,
        coarse: bool,
        dt: f64,
        record: bool,
    ) -> Result<(Vec<Wrench>, KeyedRecords), StepError> {
        let list = if coarse {
            &mut self.coarse
        } else {
            &mut self.contacts
        };
        std::mem::swap(&mut self.core.contacts, list);
        let core = &mut self.core;
        prepare_forces(
            model,
            &eval.bodies,
            &core.contacts,
            dt,
            &mut core.prepared,
            &mut core.rolling,
        );
        let keys = core.contact_keys();
        let result = core
            .loads(eval, &keys)
            .and_then(|load| core.wrenches(eval, &keys, &load, record, dt));
        let list = if coarse {
            &mut self.coarse
        } else {
            &mut self.contacts
        };
        std::mem::swap(&mut self.core.contacts, list);
        result
    }

    /// Sends each ghost's `moved` flag to the ranks that hold it (after the ghosts of
    /// this iteration went out).
    fn exchange_moved(&mut self, state: &State) -> Result<(), StepError> {
        let out: Vec<Vec<u8>> = self
            .core
            .sent_ghosts
            .iter()
            .map(|ids| {
                let flags: Vec<(u32, bool)> = ids
                    .iter()
                    .map(|&k| (k, self.moved.get(k as usize).copied().unwrap_or(true)))
                    .collect();
                encode(&flags)
            })
            .collect();
        let got = self.core.swap(state, &out)?;
        for (src, m) in got.iter().enumerate() {
            if m.is_empty() || src == self.core.rank as usize {
                continue;
            }
            for (k, flag) in self.core.decode::<Vec<(u32, bool)>>(state, m, "moved")? {
                if let Some(slot) = self.moved.get_mut(k as usize) {
                    *slot = flag;
                }
            }
        }
        Ok(())
    }

    /// One distributed implicit step (module docs). Every rank calls it; rank 0 returns
    /// the step's statistics and (when `record_contacts`) the contacts and wrenches of the
    /// whole run, the others placeholder statistics. The errors are those of
    /// [`crate::integrator::implicit::ImplicitEuler::advance`], from rank 0.
    pub fn advance(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        if !self
            .core
            .shared_began()
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            // Rank 0's first step (the others begin before their loop).
            self.begin(state, detector)?;
        }
        let (step0, time0) = (state.step, state.time);
        let mut tally = Tally::default();
        self.verdict = 0;
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
                    self.last = None;
                    return Err(self.halt(state, e));
                }
                return Err(e);
            }
        }
        let (stepped, assembled) = self.finish(model, state, detector, record_contacts, tally)?;
        state.step = step0 + 1;
        state.time = time0 + self.dt;
        if let Some(l) = &mut self.last {
            l.0 = state.step;
        }
        if let Some(a) = assembled {
            self.snapshot = a.encode(state);
        }
        Ok(stepped)
    }

    /// One attempt at a (sub)step of `dt` \[s\] (the serial attempt over the owned
    /// particles, module docs); returns whether it converged.
    fn attempt(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        dt: f64,
        tally: &mut Tally,
    ) -> Result<bool, StepError> {
        let n = state.bodies.len();
        let (gravity, variant) = (self.gravity, self.variant);
        let params = self.params.clone();
        let scheme = params.scheme;
        let theta = params.implicitness();
        let levels = stats_levels(model);
        let owned: Vec<usize> = self.core.owned.iter().map(|&k| k as usize).collect();
        self.start.clone_from(&state.bodies);
        self.relax.begin(model, &state.bodies, &gravity, &params);
        self.applied.clear();
        self.applied.resize(n, Wrench::default());
        self.moved.clear();
        self.moved.resize(n, true);
        let multiscale = variant == PicardVariant::Multiscale;
        // The one-process implicit step's skin (`integrator/implicit.rs`): the same sets,
        // so the same check counts in the statistics.
        detector.set_skin(CertificateSkin::IMPLICIT);
        if multiscale {
            detector.begin_step(!params.keep_active_sets);
        }
        tally.dt = dt;
        // Forces at a state inside the step (midpoint rule, θ-method), not at its end.
        let midpoint = scheme != PicardScheme::Euler;
        let mut mid = std::mem::take(&mut self.mid);
        mid.clone_from(state);
        let reuse = self
            .last
            .take()
            .filter(|&(step, at, _)| step == state.step && at == dt)
            .map(|(_, _, pairs)| pairs);
        let mut converged = false;
        let mut pairs = 0;
        for k in 0..params.max_iterations {
            let reused = k == 0 && reuse.is_some();
            let eval: &mut State = if midpoint { &mut mid } else { &mut *state };
            let d = if reused {
                pairs = reuse.unwrap_or(0);
                Detection::default()
            } else {
                // 1. Ghosts, 2. detection at the evaluation state.
                let t0 = Instant::now();
                let (ghosts, said) = self.core.exchange_ghosts(eval)?;
                self.verdict |= said;
                let candidates = self.core.owned_pairs(model, eval, &ghosts)?;
                if multiscale {
                    self.exchange_moved(eval)?;
                }
                tally.wall.broad += t0.elapsed().as_secs_f64();
                let d = match variant {
                    PicardVariant::Flat | PicardVariant::Surrogate => {
                        let mode = match variant {
                            PicardVariant::Flat => DetectionMode::Flat,
                            _ => DetectionMode::Hierarchy,
                        };
                        self.coarse.clear();
                        detector.detect_candidates(
                            model,
                            eval,
                            Search::Roots(mode),
                            &candidates,
                            &mut self.contacts,
                            &mut tally.wall,
                        )
                    }
                    PicardVariant::Multiscale => detector.iterate_candidates(
                        model,
                        eval,
                        &candidates,
                        &self.moved,
                        &mut self.contacts,
                        &mut self.coarse,
                        &mut tally.wall,
                    ),
                };
                pairs = d.pairs;
                // 3. Forces (and the damped coarse estimates, remark 5).
                let t_forces = Instant::now();
                let (computed, _) = self.forces(model, eval, false, dt, false)?;
                self.computed = computed;
                let damping = params.coarse_force_damping;
                if multiscale && damping > 0.0 {
                    let (estimates, _) = self.forces(model, eval, true, dt, false)?;
                    for &i in &owned {
                        let (w, e) = (&mut self.computed[i], &estimates[i]);
                        w.force += damping * e.force;
                        w.torque += damping * e.torque;
                    }
                }
                tally.wall.forces += t_forces.elapsed().as_secs_f64();
                d
            };
            // 4. Residual, reduced over the ranks; the relaxed wrenches.
            let t_forces = Instant::now();
            let (max_relative, unfolds) = if k == 0 {
                self.applied.clone_from(&self.computed);
                (f64::INFINITY, d.counts.unfolds)
            } else {
                self.relax.begin_iteration(n);
                self.secants.clear();
                let mine = IterationReport {
                    max_relative: self.relax.measure(
                        owned.iter().copied(),
                        &self.start,
                        &self.computed,
                        &self.applied,
                        &params,
                        true,
                        &mut self.secants,
                    ),
                    unfolds: d.counts.unfolds,
                    secants: std::mem::take(&mut self.secants),
                };
                let all = self.all_gather(state, &mine, "residuals")?;
                self.secants = mine.secants;
                let mut secants: Vec<(u32, f64, f64)> =
                    all.iter().flat_map(|r| r.secants.iter().copied()).collect();
                // The one-process summation order: particle id ascending.
                secants.sort_unstable_by_key(|&(id, _, _)| id);
                self.relax
                    .adapt_system(secants.iter().map(|&(_, a, b)| (a, b)), &params);
                self.relax.apply(
                    owned.iter().copied(),
                    &self.computed,
                    &mut self.applied,
                    &params,
                    true,
                );
                (
                    all.iter().fold(0.0, |m: f64, r| m.max(r.max_relative)),
                    all.iter().map(|r| r.unfolds).sum(),
                )
            };
            tally.wall.forces += t_forces.elapsed().as_secs_f64();
            tally.total += &d.stats;
            tally.residual = max_relative;
            tally.unfolds += d.counts.unfolds;
            tally.narrows += d.counts.narrows;
            tally.skipped += d.skipped;
            tally
                .iteration_checks
                .push(checks_per_level(levels, &d.stats));
            // Only widenings keep the iteration going (see the serial integrator).
            if k >= 1 && unfolds == 0 && max_relative <= params.tolerance {
                converged = true;
                break;
            }
            if k + 1 == params.max_iterations {
                break;
            }
            // 5. Next guess of the owned particles from their start-of-step state.
            let t_int = Instant::now();
            for &i in &owned {
                let (s, w) = (&self.start[i], &self.applied[i]);
                let mut next = s.clone();
                scheme::advance(scheme, theta, &mut next, w, &gravity, dt);
                if midpoint {
                    let next_mid = scheme::evaluated(scheme, theta, s, &next, dt);
                    self.moved[i] = !same_pose(&mid.bodies[i], &next_mid);
                    mid.bodies[i] = next_mid;
                } else {
                    self.moved[i] = !same_pose(&state.bodies[i], &next);
                }
                state.bodies[i] = next;
            }
            tally.wall.integrate += t_int.elapsed().as_secs_f64();
            self.check_finite(state)?;
        }
        tally.pairs = pairs;
        self.mid = mid;
        if !midpoint && (!multiscale || (params.keep_active_sets && converged)) {
            self.last = Some((state.step, dt, pairs));
        }
        Ok(converged)
    }

    /// The step's statistics (and frame data) on rank 0, the rebalance and the migration;
    /// at a checkpoint step, rank 0's assembled carried evaluation ([`restart`]).
    fn finish(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record: bool,
        tally: Tally,
    ) -> Result<(Stepped, Option<restart::Assembled>), StepError> {
        let (records, wrenches) = if record {
            // The contacts and forces that made the step: at the accepted state (Euler)
            // or the midpoint state (midpoint rule).
            let (w, r) = match self.params.scheme {
                PicardScheme::Euler => self.forces(model, state, false, tally.dt, true)?,
                PicardScheme::Midpoint | PicardScheme::Theta | PicardScheme::Split => {
                    let eval = std::mem::take(&mut self.mid);
                    let got = self.forces(model, &eval, false, tally.dt, true);
                    self.mid = eval;
                    got?
                }
            };
            (r, w)
        } else {
            (Vec::new(), Vec::new())
        };
        let owned = self.core.owned.clone();
        let mut load = 0.0;
        for &k in &owned {
            load += self.core.weights[k as usize];
        }
        let iterations = tally.iteration_checks.len() as u32;
        let report = Report {
            bodies: match record {
                true => owned
                    .iter()
                    .map(|&k| (k, state.bodies[k as usize].clone()))
                    .collect(),
                false => Vec::new(),
            },
            terms: owned
                .iter()
                .map(|&k| (k, particle_terms(&state.bodies[k as usize], &self.gravity)))
                .collect(),
            load,
            non_finite: None,
            checks_per_level: checks_per_level(stats_levels(model), &tally.total),
            fallbacks: tally.total.fallbacks,
            pairs: tally.pairs,
            contacts: self.contacts.len() as u32,
            unfolds: tally.unfolds,
            narrows: tally.narrows,
            skipped: tally.skipped,
            records,
            wrenches: match record {
                true => owned
                    .iter()
                    .map(|&k| {
                        let w = &wrenches[k as usize];
                        (k, w.force.into(), w.torque.into())
                    })
                    .collect(),
                false => Vec::new(),
            },
            iteration_checks: tally.iteration_checks,
        };
        let verdict = std::mem::take(&mut self.verdict);
        let reports = self
            .core
            .report_and_migrate(state, detector, verdict, &report)?;
        let gathered = self.core.summarise(model, state, reports, record)?;
        self.core.rebalance_next = gathered.rebalance;
        if self.last.is_some() {
            self.carry_forces(state, &owned)?;
        }
        let mut assembled = None;
        if verdict & VERDICT_CHECKPOINT != 0 {
            self.core.gather_checkpoint(state, detector)?;
            assembled = self.gather_carried(state, &owned)?;
        }
        self.core.checkpoint_follows(false);
        self.core.traffic.steps += 1;
        if let Ok(mut t) = self.core.shared.lock() {
            *t = self.core.traffic;
        }
        let mut stats = gathered.stats;
        stats.step = state.step + 1;
        stats.time = state.time + self.dt;
        stats.iterations = iterations;
        stats.converged = true;
        stats.substeps = tally.substeps;
        if self.core.rank == 0 {
            let obs = gathered.observables;
            stats.kinetic_energy = obs.kinetic;
            stats.potential_energy = obs.potential;
            stats.linear_momentum = obs.linear_momentum.into();
            stats.angular_momentum = obs.angular_momentum.into();
        }
        stats.wall = tally.wall;
        let stepped = Stepped {
            stats,
            contacts: gathered.contacts,
            wrenches: if record {
                gathered.wrenches
            } else {
                Vec::new()
            },
            residual: tally.residual,
        };
        Ok((stepped, assembled))
    }

    /// The forces of the last evaluation of the particles that left this rank (`before`:
    /// the particles owned before the migration) to their new owners, for the next step's
    /// first iteration.
    fn carry_forces(&mut self, state: &State, before: &[u32]) -> Result<(), StepError> {
        let size = self.core.size as usize;
        let mut out: Vec<Vec<CarriedForce>> = vec![Vec::new(); size];
        for &k in before {
            let r = self.core.owner[k as usize] as usize;
            if r != self.core.rank as usize && r < size {
                let w = &self.computed[k as usize];
                out[r].push((k, w.force.into(), w.torque.into()));
            }
        }
        let bytes: Vec<Vec<u8>> = out
            .iter()
            .map(|m| if m.is_empty() { Vec::new() } else { encode(m) })
            .collect();
        for m in self.core.swap(state, &bytes)? {
            if m.is_empty() {
                continue;
            }
            let got: Vec<CarriedForce> = self.core.decode(state, &m, "forces")?;
            for (k, f, t) in got {
                if let Some(w) = self.computed.get_mut(k as usize) {
                    *w = Wrench {
                        force: f.into(),
                        torque: t.into(),
                    };
                }
            }
        }
        Ok(())
    }
}

impl Integrator for DistributedImplicit {
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
        self.advance(model, state, detector, record_contacts)
    }

    fn checkpoint_follows(&mut self, due: bool) {
        self.core.checkpoint_follows(due);
    }

    /// Rank 0 after a checkpoint step: the one-process snapshot it assembled ([`restart`]).
    fn snapshot(&self) -> Vec<u8> {
        self.snapshot.clone()
    }

    /// Rank 0: keeps a one-process snapshot to share out at the start ([`restart`]).
    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let carried =
            CarriedEvaluation::decode(bytes).map_err(|e| format!("{}: {e}", self.name()))?;
        self.restored = Some(carried);
        Ok(())
    }
}

impl substeps::Substeps for DistributedImplicit {
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
