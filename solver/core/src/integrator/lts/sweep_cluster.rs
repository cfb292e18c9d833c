//! Substeps 3–4 and 6 of a sweep for one cluster (seed 004 §4–§6): consolidation and the
//! time step size by narrowing (reused for clusters that did not change), then free flight
//! of an active cluster to its new time stamp and the detection of its contacts.

use super::collide::{detect_cluster, CollideScratch};
use super::distance::Witness;
use super::impulse::ImpulseReport;
use super::snapshot::Snapshot;
use super::step_size::{narrow, ClusterView, NarrowScratch, Narrowed};
use super::{list, Advanced, Cached, LocalTimeStepping, Plan};
use crate::error::StepError;
use crate::model::{Model, Other};
use crate::state::Body;

/// A cluster's plan, its narrowing result for reuse (`None`: no narrowing ran) and the
/// witnesses of the pairs searched.
pub(super) type Planned = (Plan, Option<Cached>, Vec<(u32, Other, Witness)>);

impl LocalTimeStepping {
    /// Substeps 3–4 for cluster `c` (consolidation, narrowing). With a narrowing, also
    /// its result for reuse and the witness of every pair searched (global ids, for
    /// [`super::witnesses::WitnessStore::replace`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan(
        &self,
        model: &Model,
        bodies: &[Body],
        c: usize,
        t_end: f64,
        scratch: &mut NarrowScratch,
    ) -> Result<Planned, StepError> {
        let members = self.clusters.members(c);
        let g = self.gravity;
        let time = members
            .iter()
            .map(|&p| self.timelines[p as usize].cur.time)
            .fold(f64::INFINITY, f64::min);
        let span_end = members
            .iter()
            .map(|&p| self.tubes[p as usize].hi)
            .fold(f64::INFINITY, f64::min);
        let edges = self.clusters.edges(c);
        let reaches = members.iter().any(|&p| !self.reach[p as usize].is_empty());
        if time >= t_end || (edges.is_empty() && !reaches) {
            // Idle, or nothing to narrow against: the span is the step (no allocation).
            let plan = Plan {
                time,
                end: if time >= t_end { t_end } else { span_end },
                idle: time >= t_end,
                ..Plan::default()
            };
            return Ok((plan, None, Vec::new()));
        }
        let mut obstacles: Vec<u32> = members
            .iter()
            .flat_map(|&p| self.reach[p as usize].iter().copied())
            .collect();
        obstacles.sort_unstable();
        obstacles.dedup();
        if let Some(Some(k)) = self.cache.get(members[0] as usize) {
            let same = k.members == members
                && k.span_end == span_end
                && k.edges == edges
                && k.obstacles == obstacles
                && members
                    .iter()
                    .zip(&k.versions)
                    .all(|(&p, &v)| self.versions[p as usize] == v);
            if same {
                let mut plan = k.plan.clone();
                plan.stats = Narrowed {
                    dt: plan.stats.dt,
                    collision: plan.stats.collision,
                    ..Narrowed::default()
                };
                return Ok((plan, None, Vec::new()));
            }
        }
        let local: Vec<Body> = members
            .iter()
            .map(|&p| bodies[p as usize].clone())
            .collect();
        let states: Vec<Snapshot> = members
            .iter()
            .map(|&p| self.timelines[p as usize].at(time, &g))
            .collect();
        let index = |p: u32| members.binary_search(&p).unwrap_or(0);
        let mut pairs: Vec<(usize, Other)> = edges
            .iter()
            .map(|&(a, b)| (index(a), Other::Particle(index(b) as u32)))
            .collect();
        for (i, &p) in members.iter().enumerate() {
            pairs.extend(
                self.reach[p as usize]
                    .iter()
                    .map(|&o| (i, Other::Obstacle(o))),
            );
        }
        let view = ClusterView {
            model,
            bodies: &local,
            states: &states,
            gravity: g,
        };
        let span = span_end - time;
        let global = |a: usize, b: Other| {
            let other = match b {
                Other::Particle(j) => Other::Particle(members[j as usize]),
                o => o,
            };
            (members[a], other)
        };
        let mut witnesses: Vec<Witness> = pairs
            .iter()
            .map(|&(a, b)| {
                let (a, other) = global(a, b);
                self.witnesses.get(a, other)
            })
            .collect();
        let Some(n) = narrow(&view, &pairs, &mut witnesses, span, scratch) else {
            return Err(StepError::Unsupported {
                what: format!(
                    "local time stepping needs mesh particles and obstacles with surrogate \
                     trees; cluster of particles {} has another kind",
                    list(members)
                ),
            });
        };
        let (end, narrowed) = if n.dt >= span {
            (span_end, false)
        } else {
            (time + n.dt, true)
        };
        let plan = Plan {
            time,
            end,
            collision: n.collision && narrowed,
            narrowed,
            idle: false,
            stats: n,
            obstacles: obstacles.clone(),
        };
        let cached = Cached {
            members: members.to_vec(),
            versions: members.iter().map(|&p| self.versions[p as usize]).collect(),
            edges: edges.to_vec(),
            obstacles,
            span_end,
            plan: plan.clone(),
        };
        let found = pairs
            .iter()
            .zip(witnesses)
            .map(|(&(a, b), w)| {
                let (a, other) = global(a, b);
                (a, other, w)
            })
            .collect();
        Ok((plan, Some(cached), found))
    }

    /// Substep 6 for active cluster `c`: free flight to `end`, collision.
    pub(super) fn advance(
        &self,
        model: &Model,
        bodies: &[Body],
        c: usize,
        plan: &Plan,
        scratch: &mut CollideScratch,
    ) -> Result<Advanced, StepError> {
        let g = self.gravity;
        let members = self.clusters.members(c);
        let start: Vec<Snapshot> = members
            .iter()
            .map(|&p| self.timelines[p as usize].at(plan.time, &g))
            .collect();
        let local: Vec<Body> = members
            .iter()
            .zip(&start)
            .map(|(&p, s)| {
                let mut b = bodies[p as usize].clone();
                s.flown(plan.end - plan.time, &g).apply(&mut b);
                b
            })
            .collect();
        let mut contacts = Vec::new();
        detect_cluster(
            model,
            &local,
            &plan.obstacles,
            self.kernel,
            scratch,
            &mut contacts,
        );
        Ok(Advanced {
            bodies: local,
            start,
            contacts,
            impulse: ImpulseReport::default(),
            impulses: Vec::new(),
        })
    }
}
