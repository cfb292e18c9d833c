//! Persistent contacts between collisions: the warm start of the sequential impulses and
//! the contact records of a frame (issue 12).
//!
//! After every collision of a cluster (seed 004 §6) each of its particles keeps the contact
//! points of that collision on its side `a`: the other body (global particle id or
//! obstacle), the point in `a`'s body frame and in the world, the normal, the accumulated
//! impulse and the length of the step that ended in it. The next collision of the same
//! pair starts every contact point from the impulse of the kept point nearest to it in
//! `a`'s body frame (within [`MATCH_FRACTION`] of `a`'s bounding radius), scaled by the
//! ratio of the two step lengths: a resting contact carries the weight gravity adds during
//! the step, so its impulse grows with the step. The store is a vector indexed by particle
//! id, written only when a cluster is committed (in cluster order), so it is the same at
//! any thread count.
//!
//! At the end of an interval every particle's last collision is at the interval's end, so
//! the kept points are the contacts of the synchronised state: [`WarmStore::records`]
//! turns them into frame contact records, with the mean force `P/Δt` over the step.

use crate::contact::force::Wrench;
use crate::contact::Contact;
use crate::frames::ContactRecord;
use crate::model::Other;
use crate::state::Body;
use msdem_geom::math::Vec3;

/// Largest distance between two contact points taken for the same persistent contact,
/// relative to the bounding radius of particle `a` [-].
pub const MATCH_FRACTION: f64 = 0.1;

/// One kept contact point.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Kept {
    /// The other body (global particle id, or obstacle index).
    other: Other,
    /// The point in `a`'s body frame (relative to its centre of mass) \[m\].
    local: Vec3,
    /// The point in the world \[m\].
    point: Vec3,
    /// Unit normal from the other body towards `a`.
    normal: Vec3,
    /// Accumulated impulse on `a` (world) [N·s].
    impulse: Vec3,
    /// Length of the step that ended in this collision \[s\].
    step_s: f64,
}

/// The kept contact points of every particle (see the module docs); serialised into a
/// checkpoint with the timelines ([`super::carry`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WarmStore {
    kept: Vec<Vec<Kept>>,
}

/// `other` of a cluster contact with cluster-local particle ids, in global ids.
fn global(other: Other, members: &[u32]) -> Other {
    match other {
        Other::Particle(j) => Other::Particle(members.get(j as usize).copied().unwrap_or(j)),
        o => o,
    }
}

impl WarmStore {
    /// Particles the store has room for.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether the store has room for no particle.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Makes room for `n` particles, forgetting everything when the count changes.
    pub fn resize(&mut self, n: usize) {
        if self.kept.len() != n {
            self.kept.clear();
            self.kept.resize_with(n, Vec::new);
        }
    }

    /// Forgets every kept point.
    pub fn clear(&mut self) {
        self.kept.iter_mut().for_each(Vec::clear);
    }

    /// The warm-start impulses of `contacts` of the cluster `members` (global ids; contact
    /// particles cluster-local, `bodies` the cluster's particles at the collision) for a
    /// step of `step_s` seconds, into `out` (one per contact, zero without a match).
    pub fn lookup(
        &self,
        members: &[u32],
        bodies: &[Body],
        contacts: &[Contact],
        step_s: f64,
        out: &mut Vec<Vec3>,
    ) {
        out.clear();
        out.extend(contacts.iter().map(|c| {
            let (Some(&p), Some(body)) = (members.get(c.a as usize), bodies.get(c.a as usize))
            else {
                return Vec3::zeros();
            };
            let Some(kept) = self.kept.get(p as usize) else {
                return Vec3::zeros();
            };
            let other = global(c.b, members);
            let local = body
                .orientation
                .inverse_transform_vector(&(c.point - body.position));
            let reach = MATCH_FRACTION * body.radius;
            let mut best: Option<(f64, &Kept)> = None;
            for k in kept.iter().filter(|k| k.other == other) {
                let d = (k.local - local).norm();
                if d <= reach && best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, k));
                }
            }
            match best {
                Some((_, k)) if k.step_s > 0.0 && step_s.is_finite() && step_s > 0.0 => {
                    k.impulse * (step_s / k.step_s)
                }
                _ => Vec3::zeros(),
            }
        }));
    }

    /// Replaces the kept points of the cluster `members` by its collision's `contacts`
    /// with their accumulated `impulses` (as from
    /// [`super::impulse::resolve_cluster_warm`]) after a step of `step_s` seconds; contacts
    /// without impulse are kept too (they are touching points of the frame).
    pub fn commit(
        &mut self,
        members: &[u32],
        bodies: &[Body],
        contacts: &[Contact],
        impulses: &[Vec3],
        step_s: f64,
    ) {
        for &p in members {
            if let Some(k) = self.kept.get_mut(p as usize) {
                k.clear();
            }
        }
        for (i, c) in contacts.iter().enumerate() {
            let (Some(&p), Some(body)) = (members.get(c.a as usize), bodies.get(c.a as usize))
            else {
                continue;
            };
            let Some(&impulse) = impulses.get(i) else {
                continue;
            };
            let Some(kept) = self.kept.get_mut(p as usize) else {
                continue;
            };
            kept.push(Kept {
                other: global(c.b, members),
                local: body
                    .orientation
                    .inverse_transform_vector(&(c.point - body.position)),
                point: c.point,
                normal: c.normal,
                impulse,
                step_s,
            });
        }
    }

    /// The contact records of the synchronised state (every particle's last collision) and
    /// each particle's wrench from them (`bodies` the synchronised particles): force = the
    /// contact's impulse over the step that ended in it, on `a` and (reversed) on a particle
    /// `b`; torques about the centres of mass.
    pub fn records(&self, bodies: &[Body]) -> (Vec<ContactRecord>, Vec<Wrench>) {
        let mut records = Vec::new();
        let mut wrenches = vec![Wrench::default(); bodies.len()];
        for (a, kept) in self.kept.iter().enumerate() {
            for k in kept {
                let force = if k.step_s > 0.0 {
                    k.impulse / k.step_s
                } else {
                    Vec3::zeros()
                };
                records.push(ContactRecord {
                    a: a as u32,
                    b: k.other,
                    point: k.point.into(),
                    normal: k.normal.into(),
                    force: force.into(),
                });
                if let Some(body) = bodies.get(a) {
                    let w = &mut wrenches[a];
                    w.force += force;
                    w.torque += (k.point - body.position).cross(&force);
                }
                if let Other::Particle(j) = k.other {
                    if let Some(body) = bodies.get(j as usize) {
                        let w = &mut wrenches[j as usize];
                        w.force -= force;
                        w.torque -= (k.point - body.position).cross(&force);
                    }
                }
            }
        }
        (records, wrenches)
    }
}
