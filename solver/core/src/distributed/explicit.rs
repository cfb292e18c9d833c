//! Explicit Euler (seed 000 Alg. 1, the stages of [`crate::integrator::explicit`]) over a
//! spatial domain decomposition, with frames and statistics byte-identical to one process.
//!
//! Every rank holds the whole model (shapes, trees, obstacles: read-only) and a
//! particle-indexed body array of which only its **owned** particles (those whose centre
//! lies in its [`super::rcb`] domain) and its **ghosts** are current. One step:
//!
//! 1. **ghosts** — every owned particle goes to each other rank whose domain lies within
//!    `r + ε + R` of its centre (`R` the largest `r + ε` of the run: the interaction range;
//!    ghosts are sent every step, so no skin is needed);
//! 2. **candidate pairs** — a broad phase over owned + ghost spheres; a pair `(a, b)`,
//!    `a < b`, and a particle–obstacle pair are evaluated only by the owner of `a` (the
//!    ownership rule), in the one-process order (particle pairs ascending, then
//!    particle–obstacle pairs);
//! 3. **narrow phase** on those pairs through the run's [`Detector`]; a pair's kept active
//!    set lives on the owner of `a` and moves with it;
//! 4. **forces** in the two passes of [`crate::contact::force::accumulate_forces`]: each
//!    contact's Coulomb limit goes to the owners of its bodies, which sum them in the global
//!    contact order (key `(kind, a, b, index in the pair)`) and send the sums back to the
//!    ranks holding the body as a ghost; then each contact's force and torques go to the
//!    owners, which sum them in the one-process order (rolling torques first, then the
//!    contacts). Same summands in the same order: the same bits;
//! 5. **integration** of the owned particles;
//! 6. **rebalance** — when rank 0's verdict (sent with its ghosts in step 1) asks for it:
//!    rank 0 decided after the previous step that the load imbalance (`max / mean` of the
//!    ranks' summed weights) exceeds the threshold `r` and has grown by `(r − 1)/2` since
//!    the last bisection (or attempt: a few heavy particles may not split any better); it
//!    asks every rank for its particles' centres, bisects, and sends the new cuts to all
//!    when they balance better. A step late costs nothing: the domains never change the
//!    results;
//! 7. **report and migration, one exchange** — every rank sends rank 0 its counters, its
//!    summed [`super::cost`] weights, its lowest non-finite particle and, per owned
//!    particle, the eight numbers it adds to the energies and momenta ([`ParticleTerms`]),
//!    which rank 0 sums in particle order as one process does
//!    ([`crate::motion::energy::observables`]), so the statistics keep their bits without
//!    the bodies (only at output steps do the owned bodies, the contacts and the wrenches
//!    go too, for the frame); in the same exchange a particle whose centre left its rank's
//!    domain goes, with the kept sets of its pairs, to the rank now holding it;
//! 8. **checkpoint** — when the run loop announced one after this step
//!    ([`Integrator::checkpoint_follows`], rank 0's word travels with its ghosts), every
//!    rank sends its owned bodies and its pairs' kept sets to rank 0, which then writes
//!    the checkpoint one process writes ([`restart`]).
//!
//! Five exchanges per step (ghosts with the verdict; Coulomb limits; their sums back;
//! wrench contributions; report with migration), each an `MPI_Alltoall` of the sizes and
//! an `MPI_Alltoallv` of the bytes ([`super::exchange`]); two more only when rebalancing,
//! one more at a checkpoint.
//!
//! The run starts with [`DistributedExplicit::begin`] on every rank: rank 0 sends the
//! state it starts from (a restored checkpoint's, re-decomposed for this rank count, with
//! each rank's kept sets) or says that it takes no step.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mpi::topology::SimpleCommunicator;

use super::cost::particle_weights;
use super::exchange::exchange;
use super::rcb::{bisect, imbalance, Decomposition, Domain, RcbError};
use crate::contact::force::{
    contact_wrench, prepare_forces, PreparedContact, RollingTorque, Wrench,
};
use crate::contact::Contact;
use crate::detect::broad::{
    bounding_sphere, outer_radius, sphere_touches_aabb, surface_reach, CandidatePair,
};
use crate::detect::{checks_per_level, stats_levels, CertificateSkin, Detector, Search};
use crate::error::StepError;
use crate::frames::{ContactRecord, PhaseTimes, StepStats};
use crate::integrator::explicit::search_for;
use crate::integrator::{Integrator, Stepped};
use crate::model::{Model, Other};
use crate::motion::energy::{particle_terms, Observables, ParticleTerms};
use crate::motion::explicit_euler;
use crate::params::Params;
use crate::state::{Body, State};
use msdem_broadphase::{BroadPhase, BroadPhaseKind, HGridConfig, Sphere};
use msdem_geom::math::Vec3;

pub mod restart;

/// Position of a contact in the one-process contact order: (0 particle / 1 obstacle
/// pair, particle `a`, other body, index within the pair).
pub(super) type ContactKey = (u8, u32, u32, u32);

/// Order of a contribution to a body's wrench: rolling torques (0) before contact forces
/// (1), each in contact order.
type WrenchKey = (u8, ContactKey);

/// A contribution to one body's wrench: force (absent for a rolling torque) and torque.
type WrenchPart = (u32, WrenchKey, Option<[f64; 3]>, [f64; 3]);

/// The quantities [`crate::motion::first_non_finite`] names, by the code a [`Report`]
/// carries.
pub(super) const NON_FINITE: [&str; 4] =
    ["position", "orientation", "velocity", "angular velocity"];

/// What every rank sends rank 0 after a step.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Report {
    /// The owned bodies: output steps only.
    pub(super) bodies: Vec<(u32, Body)>,
    /// The owned particles' terms of the energies and momenta, id ascending.
    pub(super) terms: Vec<(u32, ParticleTerms)>,
    /// Sum of the owned particles' cost weights, id ascending.
    pub(super) load: f64,
    /// The lowest owned particle with a non-finite state and the quantity's code in
    /// [`NON_FINITE`].
    pub(super) non_finite: Option<(u32, u8)>,
    pub(super) checks_per_level: Vec<u64>,
    pub(super) fallbacks: u64,
    pub(super) pairs: u32,
    pub(super) contacts: u32,
    pub(super) unfolds: u32,
    pub(super) narrows: u32,
    pub(super) skipped: u64,
    pub(super) records: Vec<(ContactKey, ContactRecord)>,
    pub(super) wrenches: Vec<(u32, [f64; 3], [f64; 3])>,
    /// Implicit steps: the checks per level of every Picard iteration (explicit: none).
    pub(super) iteration_checks: Vec<Vec<u64>>,
}

/// Bit of rank 0's verdict (sent with its ghosts): recompute the bisection before this
/// step's migration (asked for by the previous step's loads).
const VERDICT_REBALANCE: u8 = 1;

/// Bit of rank 0's verdict: the run loop writes a checkpoint after this step.
pub(super) const VERDICT_CHECKPOINT: u8 = 2;

/// Contact records with their place in the one-process contact order.
pub(super) type KeyedRecords = Vec<(ContactKey, ContactRecord)>;

/// What rank 0 assembles from the ranks' reports (the other ranks: placeholders).
pub(super) struct Gathered {
    pub(super) stats: StepStats,
    pub(super) contacts: Vec<ContactRecord>,
    pub(super) wrenches: Vec<Wrench>,
    /// Rank 0: the energies and momenta of the whole state.
    pub(super) observables: Observables,
    /// Rank 0: the lowest non-finite particle, with the quantity.
    pub(super) non_finite: Option<(u32, &'static str)>,
    /// Rank 0: whether to try a new bisection.
    pub(super) rebalance: bool,
}

/// Communication and balance counters of one rank.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// This rank.
    pub rank: u32,
    /// Number of ranks.
    pub ranks: u32,
    /// Bytes this rank sent to other ranks, all exchanges of all steps so far.
    pub bytes_sent: u64,
    /// Of which the gather to rank 0 (frames and statistics).
    pub bytes_gathered: u64,
    /// Steps taken.
    pub steps: u64,
    /// Ghost particles received, summed over the steps.
    pub ghosts: u64,
    /// Particles that migrated to this rank, summed over the steps.
    pub migrated: u64,
    /// Rebalances (new bisections) so far.
    pub rebalances: u32,
    /// Load imbalance `max / mean` at the last step (rank 0; 0 elsewhere).
    pub imbalance: f64,
}

/// The distributed explicit Euler integrator of one rank (see the module docs).
pub struct DistributedExplicit {
    dt: f64,
    gravity: Vec3,
    search: Search,
    pub(super) rank: u32,
    pub(super) size: u32,
    decomposition: Decomposition,
    domains: Vec<Domain>,
    pub(super) owned: Vec<u32>,
    /// Owner of every particle as far as this rank knows (exact for owned and ghosts).
    pub(super) owner: Vec<u32>,
    pub(super) weights: Vec<f64>,
    reach: f64,
    /// The largest [`crate::detect::broad::surface_reach`] of any particle \[m\] (0 with
    /// facets): a ghost is sent where its own curved surface may reach.
    surface_reach: f64,
    rebalance_above: f64,
    /// Rank 0: the imbalance at the last bisection or attempt at one.
    tried_at: f64,
    pub(super) sent_ghosts: Vec<Vec<u32>>,
    broad: Box<dyn BroadPhase>,
    pub(super) contacts: Vec<Contact>,
    pub(super) prepared: Vec<PreparedContact>,
    pub(super) rolling: Vec<RollingTorque>,
    pub(super) traffic: Traffic,
    pub(super) shared: Arc<Mutex<Traffic>>,
    /// Whether [`DistributedExplicit::begin`] ran (shared with the launcher, which
    /// releases the other ranks itself when rank 0 took no step).
    began: Arc<AtomicBool>,
    /// Rank 0: the run loop writes a checkpoint after the current step.
    checkpoint_next: bool,
    /// Rank 0: the last step's loads ask for a new bisection (sent with the next ghosts).
    pub(super) rebalance_next: bool,
}

impl std::fmt::Debug for DistributedExplicit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistributedExplicit")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("owned", &self.owned.len())
            .field("traffic", &self.traffic)
            .finish()
    }
}

fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

pub(super) fn encode<T: serde::Serialize>(v: &T) -> Vec<u8> {
    postcard::to_allocvec(v).unwrap_or_default()
}

impl DistributedExplicit {
    /// The integrator of rank `rank` of `size` for the run of `model` from `state` with
    /// `params` (the same on every rank): the initial bisection by [`particle_weights`],
    /// rebalanced when the imbalance exceeds `rebalance_above` (≥ 1). Fails when the
    /// decomposition leaves a rank without particles.
    pub fn new(
        model: &Model,
        state: &State,
        params: &Params,
        rank: u32,
        size: u32,
        rebalance_above: f64,
    ) -> Result<Self, RcbError> {
        let weights = particle_weights(model, &state.bodies);
        let (decomposition, owner, owned, tried_at) = decompose(state, &weights, rank, size)?;
        let reach = state
            .bodies
            .iter()
            .map(|b| outer_radius(model, b))
            .fold(0.0, f64::max);
        let surface_reach = state
            .bodies
            .iter()
            .map(|b| surface_reach(model, b))
            .fold(0.0, f64::max);
        let broad = BroadPhaseKind::HGrid(HGridConfig::default())
            .build()
            .map_err(|e| RcbError::BadInput {
                what: "coordinate",
                index: 0,
                value: e.to_string(),
            })?;
        Ok(DistributedExplicit {
            dt: params.dt,
            gravity: params.gravity,
            search: search_for(params),
            rank,
            size,
            domains: decomposition.domains(),
            decomposition,
            owned,
            owner,
            weights,
            reach,
            surface_reach,
            rebalance_above,
            tried_at,
            sent_ghosts: vec![Vec::new(); size as usize],
            broad,
            contacts: Vec::new(),
            prepared: Vec::new(),
            rolling: Vec::new(),
            traffic: Traffic {
                rank,
                ranks: size,
                ..Traffic::default()
            },
            shared: Arc::default(),
            began: Arc::default(),
            checkpoint_next: false,
            rebalance_next: false,
        })
    }

    /// A new bisection of the particles of `state` (a restored checkpoint's).
    fn redecompose(&mut self, state: &State) -> Result<(), RcbError> {
        let (decomposition, owner, owned, tried_at) =
            decompose(state, &self.weights, self.rank, self.size)?;
        self.domains = decomposition.domains();
        self.decomposition = decomposition;
        self.owner = owner;
        self.owned = owned;
        self.tried_at = tried_at;
        Ok(())
    }

    /// A handle on whether [`DistributedExplicit::begin`] ran, for the launcher of rank 0
    /// ([`restart::release`] when it did not).
    pub fn shared_began(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.began)
    }

    /// The particles this rank owns now, ascending.
    pub fn owned(&self) -> &[u32] {
        &self.owned
    }

    /// Communication and balance counters so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic
    }

    /// A handle on [`DistributedExplicit::traffic`], updated after every step (for a
    /// caller that hands the integrator to the run loop).
    pub fn shared_traffic(&self) -> Arc<Mutex<Traffic>> {
        Arc::clone(&self.shared)
    }

    pub(super) fn fail(&self, state: &State, message: impl Into<String>) -> StepError {
        StepError::Distributed {
            step: state.step + 1,
            rank: self.rank,
            message: message.into(),
        }
    }

    pub(super) fn swap(
        &mut self,
        state: &State,
        out: &[Vec<u8>],
    ) -> Result<Vec<Vec<u8>>, StepError> {
        exchange(&world(), out, &mut self.traffic.bytes_sent).map_err(|m| self.fail(state, m))
    }

    pub(super) fn decode<T: serde::de::DeserializeOwned>(
        &self,
        state: &State,
        bytes: &[u8],
        what: &str,
    ) -> Result<T, StepError> {
        postcard::from_bytes(bytes).map_err(|e| self.fail(state, format!("{what}: {e}")))
    }

    /// Step 1: sends owned particles to the ranks that need them as ghosts, rank 0 with
    /// its verdict ([`VERDICT_REBALANCE`], [`VERDICT_CHECKPOINT`]); returns the ghosts
    /// received (id ascending) and the verdict.
    pub(super) fn exchange_ghosts(
        &mut self,
        state: &mut State,
    ) -> Result<(Vec<u32>, u8), StepError> {
        let size = self.size as usize;
        let mut out: Vec<Vec<(u32, &Body)>> = vec![Vec::new(); size];
        for s in &mut self.sent_ghosts {
            s.clear();
        }
        for &k in &self.owned {
            let b = &state.bodies[k as usize];
            let x: [f64; 3] = b.position.into();
            // A little wider than the pair test needs: a ghost too many costs bytes, one
            // too few a contact.
            let range = (b.radius + b.epsilon + self.surface_reach + self.reach) * (1.0 + 1e-9);
            for (r, d) in self.domains.iter().enumerate() {
                if r != self.rank as usize && d.distance_sq(&x) <= range * range {
                    out[r].push((k, b));
                    self.sent_ghosts[r].push(k);
                }
            }
        }
        let mut verdict = 0;
        if self.rank == 0 {
            verdict = (u8::from(self.rebalance_next) * VERDICT_REBALANCE)
                | (u8::from(self.checkpoint_next) * VERDICT_CHECKPOINT);
            self.rebalance_next = false;
        }
        let bytes: Vec<Vec<u8>> = out.iter().map(|m| encode(&(verdict, m))).collect();
        let got = self.swap(state, &bytes)?;
        let mut ghosts = Vec::new();
        for (src, m) in got.iter().enumerate() {
            if m.is_empty() || src == self.rank as usize {
                continue;
            }
            let (said, list): (u8, Vec<(u32, Body)>) = self.decode(state, m, "ghosts")?;
            if src == 0 {
                verdict = said;
            }
            for (id, body) in list {
                if id as usize >= state.bodies.len() {
                    return Err(self.fail(state, format!("ghost particle {id} does not exist")));
                }
                state.bodies[id as usize] = body;
                self.owner[id as usize] = src as u32;
                ghosts.push(id);
            }
        }
        ghosts.sort_unstable();
        self.traffic.ghosts += ghosts.len() as u64;
        Ok((ghosts, verdict))
    }

    /// Step 2: the candidate pairs this rank owns, in the one-process order.
    pub(super) fn owned_pairs(
        &mut self,
        model: &Model,
        state: &State,
        ghosts: &[u32],
    ) -> Result<Vec<CandidatePair>, StepError> {
        let mut local: Vec<u32> = self.owned.iter().chain(ghosts).copied().collect();
        local.sort_unstable();
        let spheres: Vec<Sphere> = local
            .iter()
            .map(|&i| bounding_sphere(model, &state.bodies[i as usize]))
            .collect();
        let mut found = Vec::new();
        self.broad
            .find_pairs(&spheres, &mut found)
            .map_err(|e| self.fail(state, format!("broad phase: {e}")))?;
        let mut pairs: Vec<CandidatePair> = found
            .iter()
            .map(|&(i, j)| (local[i as usize], local[j as usize]))
            .filter(|&(a, _)| self.owner[a as usize] == self.rank)
            .map(|(a, b)| CandidatePair {
                a: a.min(b),
                b: Other::Particle(a.max(b)),
            })
            .collect();
        pairs.sort_unstable_by_key(|p| match p.b {
            Other::Particle(j) => (p.a, j),
            Other::Obstacle(o) => (p.a, o),
        });
        for &a in &self.owned {
            let body = &state.bodies[a as usize];
            for (o, ob) in model.obstacles.iter().enumerate() {
                if sphere_touches_aabb(&body.position, outer_radius(model, body), &ob.aabb) {
                    pairs.push(CandidatePair {
                        a,
                        b: Other::Obstacle(o as u32),
                    });
                }
            }
        }
        Ok(pairs)
    }

    /// Keys of `self.contacts` in the one-process contact order.
    pub(super) fn contact_keys(&self) -> Vec<ContactKey> {
        contact_keys(&self.contacts)
    }

    /// Step 4a: the summed Coulomb limit of every owned and ghost body with a contact.
    pub(super) fn loads(
        &mut self,
        state: &State,
        keys: &[ContactKey],
    ) -> Result<Vec<f64>, StepError> {
        let size = self.size as usize;
        let mut parts: Vec<(u32, ContactKey, f64)> = Vec::new();
        let mut out: Vec<Vec<(u32, ContactKey, f64)>> = vec![Vec::new(); size];
        for ((c, p), key) in self.contacts.iter().zip(&self.prepared).zip(keys) {
            parts.push((c.a, *key, p.limit));
            if let Other::Particle(j) = c.b {
                match self.owner[j as usize] {
                    r if r == self.rank => parts.push((j, *key, p.limit)),
                    r => out[r as usize].push((j, *key, p.limit)),
                }
            }
        }
        let bytes: Vec<Vec<u8>> = out.iter().map(encode).collect();
        for m in self.swap(state, &bytes)? {
            if !m.is_empty() {
                parts.extend(self.decode::<Vec<(u32, ContactKey, f64)>>(state, &m, "loads")?);
            }
        }
        parts.sort_unstable_by_key(|&(body, key, _)| (body, key));
        let mut load = vec![0.0; state.bodies.len()];
        for (body, _, limit) in parts {
            load[body as usize] += limit;
        }
        // The sums of this rank's particles to the ranks that hold them as ghosts.
        let back: Vec<Vec<u8>> = self
            .sent_ghosts
            .iter()
            .map(|ids| {
                encode(
                    &ids.iter()
                        .map(|&k| (k, load[k as usize]))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        for (src, m) in self.swap(state, &back)?.iter().enumerate() {
            if m.is_empty() || src == self.rank as usize {
                continue;
            }
            for (k, l) in self.decode::<Vec<(u32, f64)>>(state, m, "loads")? {
                if let Some(slot) = load.get_mut(k as usize) {
                    *slot = l;
                }
            }
        }
        Ok(load)
    }

    /// Step 4b: the wrench of every owned particle, summed in the one-process order;
    /// the contact records (with their keys) when `record`.
    pub(super) fn wrenches(
        &mut self,
        state: &State,
        keys: &[ContactKey],
        load: &[f64],
        record: bool,
        dt: f64,
    ) -> Result<(Vec<Wrench>, KeyedRecords), StepError> {
        let size = self.size as usize;
        let bodies = &state.bodies;
        let mut parts: Vec<WrenchPart> = Vec::new();
        let mut out: Vec<Vec<WrenchPart>> = vec![Vec::new(); size];
        let mut records = Vec::new();
        let (rank, owner) = (self.rank, &self.owner);
        let mut push = |part: WrenchPart| match owner[part.0 as usize] {
            r if r == rank => parts.push(part),
            r => out[r as usize].push(part),
        };
        let neg = |v: Vec3| -> [f64; 3] { (-v).into() };
        for r in &self.rolling {
            let c = &self.contacts[r.first as usize];
            let key = (0, keys[r.first as usize]);
            push((c.a, key, None, r.torque.into()));
            if let Other::Particle(j) = c.b {
                push((j, key, None, neg(r.torque)));
            }
        }
        for ((c, p), key) in self.contacts.iter().zip(&self.prepared).zip(keys) {
            let load_b = match c.b {
                Other::Particle(j) => load[j as usize],
                Other::Obstacle(_) => 0.0,
            };
            let w = contact_wrench(bodies, c, p, load[c.a as usize], load_b, dt);
            push((c.a, (1, *key), Some(w.force.into()), w.torque_a.into()));
            if let Other::Particle(j) = c.b {
                push((j, (1, *key), Some(neg(w.force)), neg(w.torque_b)));
            }
            if record {
                records.push((
                    *key,
                    ContactRecord {
                        a: c.a,
                        b: c.b,
                        point: c.point.into(),
                        normal: c.normal.into(),
                        force: w.force.into(),
                    },
                ));
            }
        }
        let bytes: Vec<Vec<u8>> = out.iter().map(encode).collect();
        for m in self.swap(state, &bytes)? {
            if !m.is_empty() {
                parts.extend(self.decode::<Vec<WrenchPart>>(state, &m, "wrenches")?);
            }
        }
        parts.sort_unstable_by_key(|&(body, key, _, _)| (body, key));
        let mut wrenches = vec![Wrench::default(); bodies.len()];
        for (body, _, force, torque) in parts {
            let w = &mut wrenches[body as usize];
            if let Some(f) = force {
                w.force += Vec3::from(f);
            }
            w.torque += Vec3::from(torque);
        }
        Ok((wrenches, records))
    }

    /// Step 7 on rank 0, from the reports: the whole state, the statistics and the
    /// contacts and wrenches of the frame; whether the imbalance asks for a new bisection
    /// (at the next step).
    pub(super) fn summarise(
        &mut self,
        model: &Model,
        state: &mut State,
        reports: Vec<(usize, Report)>,
        record: bool,
    ) -> Result<Gathered, StepError> {
        let size = self.size as usize;
        let mut stats = StepStats {
            checks_per_level: vec![
                0;
                checks_per_level(stats_levels(model), &Default::default()).len()
            ],
            iterations: 1,
            converged: true,
            ..StepStats::default()
        };
        let mut records: KeyedRecords = Vec::new();
        let mut wrenches = vec![Wrench::default(); if record { state.bodies.len() } else { 0 }];
        let mut loads = vec![0.0; size];
        if self.rank != 0 {
            return Ok(Gathered {
                stats,
                contacts: Vec::new(),
                wrenches,
                observables: Observables::default(),
                non_finite: None,
                rebalance: false,
            });
        }
        if reports.len() != size {
            return Err(self.fail(state, format!("{} reports for {size} ranks", reports.len())));
        }
        let mut terms: Vec<(u32, ParticleTerms)> = Vec::with_capacity(state.bodies.len());
        let mut non_finite: Option<(u32, u8)> = None;
        for (r, rep) in reports {
            loads[r] = rep.load;
            for (id, body) in rep.bodies {
                if let Some(slot) = state.bodies.get_mut(id as usize) {
                    *slot = body;
                }
            }
            terms.extend(rep.terms);
            non_finite = match (non_finite, rep.non_finite) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            for (s, c) in stats.checks_per_level.iter_mut().zip(&rep.checks_per_level) {
                *s += c;
            }
            stats.fallbacks += rep.fallbacks;
            stats.candidate_pairs += rep.pairs;
            stats.contacts += rep.contacts;
            stats.unfolds += rep.unfolds;
            stats.narrows += rep.narrows;
            stats.skipped += rep.skipped;
            let sums = &mut stats.iteration_checks;
            if sums.len() < rep.iteration_checks.len() {
                sums.resize(rep.iteration_checks.len(), Vec::new());
            }
            for (sum, checks) in sums.iter_mut().zip(&rep.iteration_checks) {
                if sum.len() < checks.len() {
                    sum.resize(checks.len(), 0);
                }
                for (s, c) in sum.iter_mut().zip(checks) {
                    *s += c;
                }
            }
            records.extend(rep.records);
            for (id, f, t) in rep.wrenches {
                if let Some(w) = wrenches.get_mut(id as usize) {
                    *w = Wrench {
                        force: f.into(),
                        torque: t.into(),
                    };
                }
            }
        }
        records.sort_unstable_by_key(|(k, _)| *k);
        // The one-process summation order: particle id ascending.
        terms.sort_unstable_by_key(|&(id, _)| id);
        let mut observables = Observables::default();
        for (_, t) in &terms {
            observables.add(t);
        }
        self.traffic.imbalance = imbalance(&loads);
        let now = self.traffic.imbalance;
        let worse = now > self.tried_at + 0.5 * (self.rebalance_above - 1.0);
        let rebalance = now > self.rebalance_above && worse;
        if rebalance {
            self.tried_at = now;
        }
        Ok(Gathered {
            stats,
            contacts: records.into_iter().map(|(_, r)| r).collect(),
            wrenches,
            observables,
            non_finite: non_finite.map(|(id, q)| (id, NON_FINITE[usize::from(q) % 4])),
            rebalance,
        })
    }

    /// Step 6 when rank 0 asked for it (its verdict, the same on every rank): the owned
    /// centres to rank 0, which bisects them; the new decomposition when it balances
    /// better than the current one (a bisection that fails on coincident particles, or
    /// does no better, keeps the current domains).
    fn rebalance(&mut self, state: &State) -> Result<Option<Decomposition>, StepError> {
        let size = self.size as usize;
        let mut out = vec![Vec::new(); size];
        out[0] = encode(
            &self
                .owned
                .iter()
                .map(|&k| (k, <[f64; 3]>::from(state.bodies[k as usize].position)))
                .collect::<Vec<_>>(),
        );
        let got = self.swap(state, &out)?;
        if self.rank != 0 {
            return Ok(None);
        }
        let mut points = vec![[0.0; 3]; state.bodies.len()];
        for m in &got {
            for (k, x) in self.decode::<Vec<(u32, [f64; 3])>>(state, m, "centres")? {
                if let Some(slot) = points.get_mut(k as usize) {
                    *slot = x;
                }
            }
        }
        let now = self.traffic.imbalance;
        Ok(bisect(&points, &self.weights, self.size).ok().filter(|d| {
            let then = imbalance(&d.loads(&points, &self.weights));
            if then < now {
                self.tried_at = then;
            }
            then < now
        }))
    }

    /// Steps 6–8 in one exchange: the rebalance when rank 0's verdict asked for it, then
    /// this rank's report to rank 0 together with the particles (and their pairs' kept
    /// sets) whose centre left this rank's domain. Returns the reports received (rank 0:
    /// one per rank, by sender).
    pub(super) fn report_and_migrate(
        &mut self,
        state: &mut State,
        detector: &mut Detector,
        verdict: u8,
        report: &Report,
    ) -> Result<Vec<(usize, Report)>, StepError> {
        let size = self.size as usize;
        if verdict & VERDICT_REBALANCE != 0 {
            let mut out = vec![Vec::new(); size];
            if self.rank == 0 {
                let message = encode(&self.rebalance(state)?);
                out.iter_mut().for_each(|m| m.clone_from(&message));
            } else {
                self.rebalance(state)?;
            }
            let got = self.swap(state, &out)?;
            let d = self.decode::<Option<Decomposition>>(state, &got[0], "decomposition")?;
            if let Some(d) = d {
                self.decomposition = d;
                self.domains = self.decomposition.domains();
                self.traffic.rebalances += 1;
            }
        }
        let mut leaving: Vec<Vec<(u32, Body)>> = vec![Vec::new(); size];
        let mut dest: BTreeMap<u32, usize> = BTreeMap::new();
        let mut kept = Vec::with_capacity(self.owned.len());
        for &k in &self.owned {
            let r = self
                .decomposition
                .locate(&state.bodies[k as usize].position.into());
            if r == self.rank {
                kept.push(k);
            } else {
                leaving[r as usize].push((k, state.bodies[k as usize].clone()));
                dest.insert(k, r as usize);
            }
        }
        self.owned = kept;
        let sets = match dest.is_empty() {
            true => vec![Vec::new(); size],
            false => detector.take_pair_states(|a| dest.get(&a).copied(), size),
        };
        for (k, r) in &dest {
            self.owner[*k as usize] = *r as u32;
        }
        let report = encode(report);
        if self.rank != 0 {
            self.traffic.bytes_gathered += report.len() as u64;
        }
        let none: &[u8] = &[];
        let bytes: Vec<Vec<u8>> = leaving
            .iter()
            .zip(&sets)
            .enumerate()
            .map(|(r, (bodies, sets))| {
                let report = if r == 0 { &report[..] } else { none };
                if bodies.is_empty() && report.is_empty() {
                    Vec::new()
                } else {
                    encode(&(report, bodies, sets))
                }
            })
            .collect();
        let mut reports = Vec::new();
        for (src, m) in self.swap(state, &bytes)?.iter().enumerate() {
            if m.is_empty() {
                continue;
            }
            let (report, bodies, sets): (Vec<u8>, Vec<(u32, Body)>, Vec<u8>) =
                self.decode(state, m, "report and migration")?;
            if !report.is_empty() {
                reports.push((src, self.decode::<Report>(state, &report, "report")?));
            }
            for (id, body) in bodies {
                state.bodies[id as usize] = body;
                self.owner[id as usize] = self.rank;
                self.owned.push(id);
                self.traffic.migrated += 1;
            }
            detector
                .insert_pair_states(&sets)
                .map_err(|e| self.fail(state, format!("migration from rank {src}: {e}")))?;
        }
        self.owned.sort_unstable();
        Ok(reports)
    }

    /// One distributed explicit step (module docs). Every rank calls it; rank 0 returns
    /// the step's statistics and (when `record_contacts`) contacts and wrenches of the
    /// whole run, the others placeholder statistics.
    pub fn advance(
        &mut self,
        model: &Model,
        state: &mut State,
        detector: &mut Detector,
        record_contacts: bool,
    ) -> Result<Stepped, StepError> {
        if !self.began.load(Ordering::Relaxed) {
            // Rank 0's first step (the others begin before their loop).
            self.begin(state, detector)?;
        }
        let mut wall = PhaseTimes::default();
        let t0 = Instant::now();
        let (ghosts, verdict) = self.exchange_ghosts(state)?;
        let pairs = self.owned_pairs(model, state, &ghosts)?;
        wall.broad += t0.elapsed().as_secs_f64();
        if self.search == Search::Kept {
            // The one-process explicit step's skin (`ExplicitEuler`): the same sets.
            detector.set_skin(CertificateSkin::EXPLICIT);
            detector.begin_step(false);
        }
        let d = detector.detect_candidates(
            model,
            state,
            self.search,
            &pairs,
            &mut self.contacts,
            &mut wall,
        );

        let t_forces = Instant::now();
        prepare_forces(
            model,
            &state.bodies,
            &self.contacts,
            self.dt,
            &mut self.prepared,
            &mut self.rolling,
        );
        let keys = self.contact_keys();
        let load = self.loads(state, &keys)?;
        let (wrenches, records) = self.wrenches(state, &keys, &load, record_contacts, self.dt)?;
        wall.forces += t_forces.elapsed().as_secs_f64();

        let t_integrate = Instant::now();
        for &k in &self.owned {
            let w = wrenches[k as usize];
            explicit_euler(
                std::slice::from_mut(&mut state.bodies[k as usize]),
                &[w],
                &self.gravity,
                self.dt,
            );
        }
        wall.integrate = t_integrate.elapsed().as_secs_f64();

        let mut load = 0.0;
        let mut non_finite = None;
        let mut terms = Vec::with_capacity(self.owned.len());
        for &k in &self.owned {
            let b = &state.bodies[k as usize];
            load += self.weights[k as usize];
            terms.push((k, particle_terms(b, &self.gravity)));
            if non_finite.is_none() {
                non_finite =
                    crate::motion::first_non_finite(std::slice::from_ref(b)).map(|(_, q)| {
                        (
                            k,
                            NON_FINITE.iter().position(|n| *n == q).unwrap_or(0) as u8,
                        )
                    });
            }
        }
        let report = Report {
            bodies: match record_contacts {
                true => self
                    .owned
                    .iter()
                    .map(|&k| (k, state.bodies[k as usize].clone()))
                    .collect(),
                false => Vec::new(),
            },
            terms,
            load,
            non_finite,
            checks_per_level: checks_per_level(stats_levels(model), &d.stats),
            fallbacks: d.stats.fallbacks,
            pairs: d.pairs,
            contacts: self.contacts.len() as u32,
            unfolds: d.counts.unfolds,
            narrows: d.counts.narrows,
            skipped: d.skipped,
            records,
            wrenches: match record_contacts {
                true => self
                    .owned
                    .iter()
                    .map(|&k| {
                        (
                            k,
                            wrenches[k as usize].force.into(),
                            wrenches[k as usize].torque.into(),
                        )
                    })
                    .collect(),
                false => Vec::new(),
            },
            iteration_checks: Vec::new(),
        };
        let reports = self.report_and_migrate(state, detector, verdict, &report)?;
        let Gathered {
            mut stats,
            contacts,
            wrenches,
            observables: obs,
            non_finite,
            rebalance,
        } = self.summarise(model, state, reports, record_contacts)?;
        self.rebalance_next = rebalance;
        if let Some((particle, quantity)) = non_finite {
            // The error one process reports (its lowest non-finite particle), from rank
            // 0; the other ranks wait in the next exchange until the launcher aborts them.
            return Err(StepError::NonFinite {
                step: state.step + 1,
                particle,
                quantity,
            });
        }
        if verdict & VERDICT_CHECKPOINT != 0 {
            self.gather_checkpoint(state, detector)?;
        }
        self.checkpoint_next = false;
        state.step += 1;
        state.time += self.dt;
        self.traffic.steps += 1;
        if let Ok(mut t) = self.shared.lock() {
            *t = self.traffic;
        }

        stats.step = state.step;
        stats.time = state.time;
        if self.rank == 0 {
            stats.kinetic_energy = obs.kinetic;
            stats.potential_energy = obs.potential;
            stats.linear_momentum = obs.linear_momentum.into();
            stats.angular_momentum = obs.angular_momentum.into();
        }
        stats.wall = wall;
        Ok(Stepped {
            stats,
            contacts,
            wrenches: if record_contacts {
                wrenches
            } else {
                Vec::new()
            },
            residual: 0.0,
        })
    }
}

impl Integrator for DistributedExplicit {
    fn name(&self) -> &'static str {
        "explicit"
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
        self.checkpoint_next = due;
    }

    /// Explicit Euler carries nothing beyond the state and the kept sets (which the
    /// detector restores on rank 0 and [`DistributedExplicit::begin`] hands out): only the
    /// empty snapshot of one process's explicit run is accepted.
    fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        match bytes.is_empty() {
            true => Ok(()),
            false => Err(format!(
                "explicit carries no state, but the checkpoint holds {} bytes for it",
                bytes.len()
            )),
        }
    }
}

/// Keys of `contacts` (one rank's, grouped by pair in pair order) in the one-process
/// contact order.
pub(super) fn contact_keys(contacts: &[Contact]) -> Vec<ContactKey> {
    let mut keys = Vec::with_capacity(contacts.len());
    let mut index = 0u32;
    for (n, c) in contacts.iter().enumerate() {
        let same = n > 0 && contacts[n - 1].a == c.a && contacts[n - 1].b == c.b;
        index = if same { index + 1 } else { 0 };
        keys.push(match c.b {
            Other::Particle(j) => (0, c.a, j, index),
            Other::Obstacle(o) => (1, c.a, o, index),
        });
    }
    keys
}

/// The bisection of the particles of `state` by `weights` into `size` domains: the
/// decomposition, every particle's owner, the particles `rank` owns (ascending) and the
/// imbalance of the bisection.
fn decompose(
    state: &State,
    weights: &[f64],
    rank: u32,
    size: u32,
) -> Result<(Decomposition, Vec<u32>, Vec<u32>, f64), RcbError> {
    let points: Vec<[f64; 3]> = state.bodies.iter().map(|b| b.position.into()).collect();
    let decomposition = bisect(&points, weights, size)?;
    let tried_at = imbalance(&decomposition.loads(&points, weights));
    let owner: Vec<u32> = points.iter().map(|x| decomposition.locate(x)).collect();
    let owned = (0..owner.len() as u32)
        .filter(|&i| owner[i as usize] == rank)
        .collect();
    Ok((decomposition, owner, owned, tried_at))
}
