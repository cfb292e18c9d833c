//! Local time stepping with clusters, space-time narrowing and sequential impulses
//! (seed 004), and its fair baseline, globally adaptive time steps (seed 004 §8: the same
//! code with the global earliest collision (2) applied to every cluster).
//!
//! Every particle carries its own time stamp and two snapshots ([`snapshot`]). One
//! [`Integrator::step`](super::Integrator::step) advances every particle from
//! `state.time` to `state.time + dt` (`time.dt` is a *synchronisation interval*: clusters
//! never step past it, so frames, checkpoints and exporters see synchronised states),
//! running as many **sweeps** as needed; one sweep is the six substeps of seed 004 §2.2:
//!
//! 1. **broad phase in space-time** ([`tube`](mod@tube), [`swept_grid`]): a tube per
//!    particle over its window `[max(t⁻, t_min), t + Δt_p]`,
//!    `Δt_p = C·dt + (1 − C)·(t − t⁻)` (eq. (3)), clipped to the interval; candidate pairs
//!    from the HGrid of `msdem-broadphase` on the tubes' bounding spheres (inside an
//!    interval incrementally, for the particles that advanced), confirmed by the exact hose
//!    test; obstacles by their boxes;
//! 2. **clustering** ([`cluster`]): connected components, obstacles excluded (Def. 3.1);
//! 3. **consolidation** (§4): every particle of a cluster interpolated back to the
//!    cluster's earliest time stamp `t_C` ([`snapshot::Timeline::at`]);
//! 4. **time step size** ([`step_size`]): narrowing over the surrogate trees, span
//!    `min_p (t_p + Δt_p) − t_C` (eq. (5));
//! 5. **masking** (eq. (2)): `t_mask = min_C (t_C + Δt_C)`; clusters with `t_C > t_mask`
//!    wait (Def. 2.3). *Global adaptive*: every cluster ends at `t_mask`;
//! 6. **collision** ([`collide`], [`impulse`]) of every active cluster at its new time
//!    stamp, resting contact points warm-started from the same persistent contact's impulse
//!    at the previous collision ([`warm`]), then **snapshot roll-over**: `t⁻ ← t_C`,
//!    `t ← t_C + Δt_C`. The kept contacts of every particle's last collision are the
//!    frame's contact records ([`LocalTimeStepping::contact_records`]).
//!
//! Clusters are processed in parallel (rayon) and committed in cluster order, so the
//! outcome does not depend on the thread count. Narrowing results of clusters whose
//! particles, pairs and span did not change since the previous sweep (masked clusters)
//! are reused. Only mesh particles take part (a cluster with another kind of particle
//! that needs narrowing stops the run with a one-line error).

pub mod carry;
pub mod check;
pub mod cluster;
pub mod collide;
pub mod distance;
pub mod impulse;
pub mod snapshot;
pub mod step_size;
mod sweep_broad;
mod sweep_cluster;
pub mod swept_grid;
pub mod tube;
pub mod warm;
pub mod witnesses;

use std::time::Instant;

use rayon::prelude::*;

use crate::contact::Contact;
use crate::error::StepError;
use crate::frames::lts::{bump, count_bin, step_bin, LtsPhaseTimes, LtsStepStats};
use crate::model::Model;
use crate::params::{KernelChoice, LtsParams, Params};
use crate::state::{Body, State};
use check::{check_sweep, SweepView};
use cluster::{Clusters, UnionFind};
use collide::{resolve, CollideScratch};
use impulse::ImpulseSettings;
use msdem_broadphase::{BroadPhase, Sphere};
use msdem_geom::math::Vec3;
use snapshot::{Snapshot, Timeline};
use step_size::{NarrowScratch, Narrowed};
use swept_grid::SweptGrid;
use tube::Tube;
use warm::WarmStore;
use witnesses::WitnessStore;

/// Local or global time steps (seed 004 §8), defined with the run parameters.
pub use crate::params::LtsMode;

/// The impulse settings of `p`: the scenario's values over the solver's defaults. A
/// contact approaching slower than gravity accelerates in one interval `dt` \[s\]
/// (`|gravity|·dt`, at least the solver's default) is resting and does not bounce.
pub fn impulse_settings(p: &LtsParams, gravity: Vec3, dt: f64) -> ImpulseSettings {
    let d = ImpulseSettings::default();
    let resting = gravity.norm() * dt;
    ImpulseSettings {
        max_iterations: p.impulse.max_iterations.unwrap_or(d.max_iterations),
        tolerance: p.impulse.tolerance.unwrap_or(d.tolerance),
        relaxation: p.impulse.relaxation.unwrap_or(d.relaxation),
        separation_fraction: p
            .impulse
            .separation_fraction
            .unwrap_or(d.separation_fraction),
        resting_speed_m_s: if resting.is_finite() {
            resting.max(d.resting_speed_m_s)
        } else {
            d.resting_speed_m_s
        },
        dense_max_points: d.dense_max_points,
        newton: d.newton,
        fallback_iterations: p
            .impulse
            .fallback_iterations
            .unwrap_or(d.fallback_iterations),
        fallback_tolerance: d.fallback_tolerance,
        coulomb_passes: d.coulomb_passes,
    }
}

/// One cluster's plan for a sweep (substeps 3–5).
#[derive(Clone, Debug, Default)]
struct Plan {
    /// Cluster time stamp `t_C` \[s\].
    time: f64,
    /// New time stamp `t_C + Δt_C` \[s\].
    end: f64,
    /// The span ended at a proper contact.
    collision: bool,
    /// Narrowing limited the step below the span (collision, guard or advancement cap).
    narrowed: bool,
    /// All particles already at the interval's end: nothing to do.
    idle: bool,
    stats: Narrowed,
    /// Obstacles the cluster's tubes reach (ascending).
    obstacles: Vec<u32>,
}

/// A reusable narrowing result (substep 4) of a cluster that did not change.
#[derive(Clone, Debug, Default)]
struct Cached {
    members: Vec<u32>,
    versions: Vec<u64>,
    edges: Vec<(u32, u32)>,
    obstacles: Vec<u32>,
    span_end: f64,
    plan: Plan,
}

/// What an active cluster's collision produced.
#[derive(Clone, Debug)]
struct Advanced {
    bodies: Vec<Body>,
    start: Vec<Snapshot>,
    contacts: Vec<Contact>,
    impulse: impulse::ImpulseReport,
    /// Accumulated impulse per contact after the collision [N·s].
    impulses: Vec<Vec3>,
}

/// The local time stepping integrator (see the module docs) and its buffers.
pub struct LocalTimeStepping {
    mode: LtsMode,
    dt: f64,
    gravity: Vec3,
    kernel: KernelChoice,
    params: LtsParams,
    impulse: ImpulseSettings,
    timelines: Vec<Timeline>,
    versions: Vec<u64>,
    /// The HGrid (in a mutex only so that the integrator can be shared with the workers;
    /// it is used through `&mut self`, never locked concurrently).
    broad: std::sync::Mutex<Option<Box<dyn BroadPhase>>>,
    spheres: Vec<Sphere>,
    tubes: Vec<Tube>,
    candidates: Vec<(u32, u32)>,
    confirmed: Vec<(u32, u32)>,
    reach: Vec<Vec<u32>>,
    clusters: Clusters,
    uf: UnionFind,
    grid: SweptGrid,
    /// The grid does not hold the current spheres (rebuilt when first needed).
    grid_stale: bool,
    /// Timeline version each tube was built from, and the interval end it was built for.
    tube_versions: Vec<u64>,
    tube_interval: f64,
    changed: Vec<u32>,
    flag: Vec<bool>,
    near: Vec<u32>,
    cache: Vec<Option<Cached>>,
    checks: bool,
    /// Narrowing searches start from the roots only, no witnesses (the reference of the
    /// reuse tests, [`LocalTimeStepping::set_search_from_roots`]).
    from_roots: bool,
    checked_sweeps: u64,
    violations: Vec<String>,
    closest_real: f64,
    last: Option<(LtsStepStats, LtsPhaseTimes)>,
    /// Contact points of every particle's last collision (warm start, frame records).
    warm: WarmStore,
    /// Separation witnesses of the pairs' last distance searches (narrowing, substep 4).
    witnesses: WitnessStore,
}

impl std::fmt::Debug for LocalTimeStepping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTimeStepping")
            .field("mode", &self.mode)
            .field("dt", &self.dt)
            .field("particles", &self.timelines.len())
            .finish()
    }
}

impl LocalTimeStepping {
    /// The integrator in `mode` with the interval, gravity, kernel and `lts` settings of
    /// `params`.
    pub fn new(params: &Params, mode: LtsMode) -> Self {
        LocalTimeStepping {
            mode,
            dt: params.dt,
            gravity: params.gravity,
            kernel: params.kernel,
            params: params.lts.clone(),
            impulse: impulse_settings(&params.lts, params.gravity, params.dt),
            timelines: Vec::new(),
            versions: Vec::new(),
            broad: std::sync::Mutex::new(None),
            spheres: Vec::new(),
            tubes: Vec::new(),
            candidates: Vec::new(),
            confirmed: Vec::new(),
            reach: Vec::new(),
            clusters: Clusters::default(),
            uf: UnionFind::default(),
            grid: SweptGrid::default(),
            grid_stale: true,
            tube_versions: Vec::new(),
            tube_interval: f64::NAN,
            changed: Vec::new(),
            flag: Vec::new(),
            near: Vec::new(),
            cache: Vec::new(),
            checks: false,
            from_roots: false,
            checked_sweeps: 0,
            violations: Vec::new(),
            closest_real: f64::INFINITY,
            last: None,
            warm: WarmStore::default(),
            witnesses: WitnessStore::default(),
        }
    }

    /// Debug hook: with `on`, Theorem 2.4 and Lemma 7.4 are checked on every sweep, the
    /// incremental broad phase against a search from scratch, and every snapshot an active
    /// cluster writes for intersecting real meshes ([`check`]); violations are collected in
    /// [`LocalTimeStepping::violations`].
    pub fn set_checks(&mut self, on: bool) {
        self.checks = on;
    }

    /// Debug hook: with `on`, every distance search of the narrowing (substep 4) starts
    /// from the trees' roots, without the witness of the pair's previous search
    /// ([`distance`]); the results are the same, only the work differs.
    pub fn set_search_from_roots(&mut self, on: bool) {
        self.from_roots = on;
    }

    /// Violations found by the checks so far.
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Smallest distance \[m\] between real meshes in any snapshot written by an active
    /// cluster so far, when the checks are on (∞ before any pair came near).
    pub fn closest_real_meshes(&self) -> f64 {
        self.closest_real
    }

    /// Sweeps checked so far.
    pub fn checked_sweeps(&self) -> u64 {
        self.checked_sweeps
    }

    /// Every particle's two snapshots (after a step: all at the interval's end).
    pub fn timelines(&self) -> &[Timeline] {
        &self.timelines
    }

    /// The contact records of the synchronised state after a step (every particle's last
    /// collision, force = impulse over its step) and every particle's wrench from them
    /// ([`WarmStore::records`]).
    pub fn contact_records(
        &self,
        bodies: &[Body],
    ) -> (
        Vec<crate::frames::ContactRecord>,
        Vec<crate::contact::force::Wrench>,
    ) {
        self.warm.records(bodies)
    }

    /// The statistics and phase times of the last step.
    pub fn last_stats(&self) -> Option<&(LtsStepStats, LtsPhaseTimes)> {
        self.last.as_ref()
    }

    /// The state carried into the next interval, as checkpoint bytes ([`carry`]).
    pub fn carried(&self) -> Vec<u8> {
        carry::encode(&carry::Carried {
            version: carry::CARRY_VERSION,
            timelines: self.timelines.clone(),
            warm: self.warm.clone(),
            witnesses: self.witnesses.clone(),
        })
    }

    /// Continues from [`LocalTimeStepping::carried`] bytes: the timelines and kept contact
    /// points are replaced, everything derived from them is rebuilt in the next sweep.
    pub fn resume_from(&mut self, bytes: &[u8]) -> Result<(), String> {
        let c = carry::decode(bytes, self.name())?;
        self.versions = vec![0; c.timelines.len()];
        self.timelines = c.timelines;
        self.warm = c.warm;
        self.witnesses = c.witnesses;
        self.cache.clear();
        self.tube_interval = f64::NAN;
        self.grid_stale = true;
        Ok(())
    }

    /// Keeps the timelines of a state this integrator left; starts fresh ones otherwise.
    fn sync_timelines(&mut self, state: &State) {
        let same = self.timelines.len() == state.bodies.len()
            && self
                .timelines
                .iter()
                .zip(&state.bodies)
                .all(|(tl, b)| tl.cur == Snapshot::of(b, state.time));
        if !same {
            self.timelines = state
                .bodies
                .iter()
                .map(|b| Timeline::at_rest(Snapshot::of(b, state.time)))
                .collect();
            self.versions = vec![0; state.bodies.len()];
            self.cache.clear();
            self.tube_interval = f64::NAN;
            self.warm.clear();
            self.witnesses.clear();
        }
        self.warm.resize(state.bodies.len());
        self.witnesses.resize(state.bodies.len());
        self.cache.resize_with(state.bodies.len(), || None);
    }

    /// Advances every particle to `state.time + dt` (see the module docs).
    pub fn advance_interval(
        &mut self,
        model: &Model,
        state: &mut State,
    ) -> Result<(LtsStepStats, LtsPhaseTimes), StepError> {
        finite(state)?;
        let step = state.step + 1;
        let t_end = state.time + self.dt;
        self.sync_timelines(state);
        let mut stats = LtsStepStats {
            step,
            ..LtsStepStats::default()
        };
        let mut wall = LtsPhaseTimes::default();
        let mut min_step = f64::INFINITY;
        let n = state.bodies.len();
        loop {
            let t_min = self
                .timelines
                .iter()
                .map(|t| t.cur.time)
                .fold(f64::INFINITY, f64::min);
            if n == 0 || t_min >= t_end {
                break;
            }
            if stats.sweeps >= self.params.max_sweeps_per_interval {
                return Err(StepError::TooManySweeps {
                    step,
                    sweeps: stats.sweeps,
                    time: t_min,
                });
            }
            stats.sweeps += 1;
            // 1. Broad phase in space-time.
            let t0 = Instant::now();
            self.broad_phase(model, &state.bodies, t_min, t_end, step)?;
            // 2. Clustering.
            let t1 = Instant::now();
            self.clusters.build(n, &self.confirmed, &mut self.uf);
            let count = self.clusters.len();
            // 3–4. Consolidation and time step size per cluster.
            let t2 = Instant::now();
            let planned: Vec<Result<sweep_cluster::Planned, StepError>> = {
                let this = &*self;
                let bodies = &state.bodies;
                let from_roots = self.from_roots;
                let scratch = move || NarrowScratch::searching(from_roots);
                (0..count)
                    .into_par_iter()
                    .map_init(scratch, |s, c| this.plan(model, bodies, c, t_end, s))
                    .collect()
            };
            let mut plans = Vec::with_capacity(count);
            for (c, r) in planned.into_iter().enumerate() {
                let (plan, cached, found) = r?;
                if let Some(k) = cached {
                    let members = self.clusters.members(c);
                    self.witnesses.replace(members, &found);
                    self.cache[members[0] as usize] = Some(k);
                }
                plans.push(plan);
            }
            // 5. Masking by the global earliest collision (2).
            let t_mask = plans
                .iter()
                .filter(|p| !p.idle)
                .map(|p| p.end)
                .fold(f64::INFINITY, f64::min);
            let mut active = vec![false; count];
            for (c, p) in plans.iter_mut().enumerate() {
                if p.idle || p.time > t_mask {
                    continue;
                }
                active[c] = true;
                if self.mode == LtsMode::Global && p.end > t_mask {
                    p.end = t_mask;
                    p.collision = false;
                }
                stats.narrowing_iterations += p.stats.iterations as u64;
                stats.narrowing_checks += p.stats.checks;
                let dt = p.end - p.time;
                if p.narrowed && p.stats.dt < self.params.min_step_s {
                    return Err(StepError::StepCollapse {
                        step,
                        time: p.time,
                        step_size: p.stats.dt,
                        floor: self.params.min_step_s,
                        particles: list(self.clusters.members(c)),
                    });
                }
                min_step = min_step.min(dt);
                bump(&mut stats.step_sizes, step_bin(dt / self.dt));
                bump(
                    &mut stats.cluster_sizes,
                    count_bin(self.clusters.members(c).len() as u64),
                );
                stats.rollbacks += self
                    .clusters
                    .members(c)
                    .iter()
                    .filter(|&&q| self.timelines[q as usize].cur.time > p.time)
                    .count() as u64;
            }
            stats.clusters += count as u64;
            stats.active_clusters += active.iter().filter(|a| **a).count() as u64;
            if self.checks {
                let stamps: Vec<(f64, f64)> = self
                    .timelines
                    .iter()
                    .map(|t| (t.prev.time, t.cur.time))
                    .collect();
                let times: Vec<f64> = plans.iter().map(|p| p.time).collect();
                let v = check_sweep(&SweepView {
                    stamps: &stamps,
                    cluster_of: &self.clusters.of,
                    cluster_time: &times,
                    active: &active,
                    t_end,
                });
                self.violations.extend(v);
                self.checked_sweeps += 1;
            }
            // 6. Collision of the active clusters, then snapshot roll-over.
            let t3 = Instant::now();
            let mut advanced: Vec<Option<Result<Advanced, StepError>>> = {
                let this = &*self;
                let bodies = &state.bodies;
                let plans = &plans;
                let active = &active;
                (0..count)
                    .into_par_iter()
                    .map_init(CollideScratch::default, |s, c| {
                        active[c].then(|| this.advance(model, bodies, c, &plans[c], s))
                    })
                    .collect()
            };
            let t4 = Instant::now();
            {
                let settings = &self.impulse;
                let clusters = &self.clusters;
                let warm = &self.warm;
                let plans = &plans;
                let step_now = step;
                advanced.par_iter_mut().enumerate().for_each_init(
                    || (CollideScratch::default(), Vec::new()),
                    |(s, start), (c, slot)| {
                        if let Some(Ok(adv)) = slot {
                            let members = clusters.members(c);
                            let span = plans[c].end - plans[c].time;
                            warm.lookup(members, &adv.bodies, &adv.contacts, span, start);
                            let result = resolve(
                                model,
                                &mut adv.bodies,
                                &adv.contacts,
                                start,
                                settings,
                                s,
                                &mut adv.impulses,
                            );
                            match result {
                                Ok(report) => adv.impulse = report,
                                Err(e) => {
                                    *slot = Some(Err(match e {
                                        StepError::NonFinite {
                                            particle, quantity, ..
                                        } => StepError::NonFinite {
                                            step: step_now,
                                            particle: members
                                                .get(particle as usize)
                                                .copied()
                                                .unwrap_or(particle),
                                            quantity,
                                        },
                                        StepError::InvalidContact {
                                            contact, message, ..
                                        } => StepError::InvalidContact {
                                            step: step_now,
                                            contact,
                                            message,
                                        },
                                        other => other,
                                    }));
                                }
                            }
                        }
                    },
                );
            }
            let t5 = Instant::now();
            for (c, r) in advanced.into_iter().enumerate() {
                let Some(r) = r else { continue };
                let adv = r?;
                let plan = &plans[c];
                let ncontacts = adv.contacts.len() as u64;
                stats.contacts += ncontacts;
                if ncontacts > 0 {
                    bump(&mut stats.contacts_per_cluster, count_bin(ncontacts));
                    stats.impulse_iterations += adv.impulse.iterations as u64;
                    if adv.impulse.active_contacts > 0 {
                        stats.collisions += 1;
                    }
                    if !adv.impulse.converged {
                        stats.impulse_unconverged += 1;
                    }
                    if adv.impulse.relaxed > 0 {
                        stats.impulse_relaxed += 1;
                    }
                    stats.impulse_complementarity_m_s = stats
                        .impulse_complementarity_m_s
                        .max(adv.impulse.complementarity);
                }
                if self.checks {
                    let members = self.clusters.members(c);
                    if let Some((d, a, b)) =
                        check::closest_real_meshes(model, &adv.bodies, &plan.obstacles)
                    {
                        self.closest_real = self.closest_real.min(d);
                        if d <= 0.0 {
                            let other = match b {
                                crate::model::Other::Particle(j) => {
                                    format!("particle {}", members[j as usize])
                                }
                                crate::model::Other::Obstacle(o) => format!("obstacle {o}"),
                            };
                            self.violations.push(format!(
                                "snapshot at t = {:e} s: the real meshes of particle {} and {other} intersect (distance {d:e} m)",
                                plan.end, members[a]
                            ));
                        }
                    }
                }
                for (i, &p) in self.clusters.members(c).iter().enumerate() {
                    let p = p as usize;
                    self.timelines[p] = Timeline {
                        prev: adv.start[i],
                        cur: Snapshot::of(&adv.bodies[i], plan.end),
                    };
                    self.versions[p] += 1;
                }
                self.warm.commit(
                    self.clusters.members(c),
                    &adv.bodies,
                    &adv.contacts,
                    &adv.impulses,
                    plan.end - plan.time,
                );
            }
            let t6 = Instant::now();
            wall.broad += (t1 - t0).as_secs_f64();
            wall.clustering += (t2 - t1).as_secs_f64();
            wall.step_size += (t3 - t2).as_secs_f64();
            wall.narrow += (t4 - t3).as_secs_f64();
            wall.collision += (t5 - t4).as_secs_f64();
            wall.roll_over += (t6 - t5).as_secs_f64();
        }
        for (b, tl) in state.bodies.iter_mut().zip(&self.timelines) {
            tl.cur.apply(b);
        }
        finite(state)?;
        state.time = t_end;
        state.step = step;
        stats.min_step = if min_step.is_finite() { min_step } else { 0.0 };
        self.last = Some((stats.clone(), wall));
        Ok((stats, wall))
    }
}

/// [`StepError::NonFinite`] for the first particle of `state` that is NaN or infinite.
fn finite(state: &State) -> Result<(), StepError> {
    match crate::motion::first_non_finite(&state.bodies) {
        None => Ok(()),
        Some((particle, quantity)) => Err(StepError::NonFinite {
            step: state.step + 1,
            particle,
            quantity,
        }),
    }
}

impl LocalTimeStepping {
    /// Gravity [m/s²].
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// The scenario name of the integrator.
    pub fn name(&self) -> &'static str {
        match self.mode {
            LtsMode::Local => "local_time_stepping",
            LtsMode::Global => "global_adaptive",
        }
    }
}

/// Particle ids as `3, 7, 12` (at most 8, then `… (N in all)`).
fn list(ids: &[u32]) -> String {
    let mut s: Vec<String> = ids.iter().take(8).map(|i| i.to_string()).collect();
    if ids.len() > 8 {
        s.push(format!("… ({} in all)", ids.len()));
    }
    s.join(", ")
}
