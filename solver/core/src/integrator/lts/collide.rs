//! Collision of one cluster at its new common time stamp (seed 004 §2.2 substep 5, §6):
//! every contact of the cluster's particles among themselves and with the obstacles their
//! tubes reach, found by the detection layer's complete search from the roots (seed 000
//! Alg. 5 over the surrogate trees, [`crate::detect::dispatch::roots_pair`]) and merged as
//! in every integrator ([`crate::contact::patch::pair_contacts`]) — [`detect_cluster`];
//! then the momentum exchange by sequential impulses ([`super::impulse::resolve_cluster_warm`])
//! — [`resolve`].

use super::impulse::{resolve_cluster_warm, ImpulseReport, ImpulseScratch, ImpulseSettings};
use crate::contact::patch::pair_contacts;
use crate::contact::{Contact, RawContact};
use crate::detect::broad::{outer_radius, sphere_touches_aabb, surface_reach, CandidatePair};
use crate::detect::dispatch::{roots_pair, RootsScratches};
use crate::error::StepError;
use crate::model::{Model, Other};
use crate::params::{DetectionMode, KernelChoice};
use crate::state::Body;
use msdem_geom::math::Vec3;
use msdem_tree::LevelStats;

/// Reusable buffers of one worker's collisions.
#[derive(Debug, Default)]
pub struct CollideScratch {
    roots: RootsScratches,
    raw: Vec<RawContact>,
    impulse: ImpulseScratch,
}

/// The merged contacts of the cluster `bodies` (cluster-local ids, posed at the new time
/// stamp) with each other and with `obstacles` (candidate obstacle indices), into `contacts`
/// (cleared first).
pub fn detect_cluster(
    model: &Model,
    bodies: &[Body],
    obstacles: &[u32],
    kernel: KernelChoice,
    scratch: &mut CollideScratch,
    contacts: &mut Vec<Contact>,
) {
    let CollideScratch { roots, raw, .. } = scratch;
    contacts.clear();
    let mut stats = LevelStats::default();
    let n = bodies.len();
    let mut search = |pair: CandidatePair, bodies: &[Body], contacts: &mut Vec<Contact>| {
        raw.clear();
        roots_pair(
            model,
            bodies,
            &pair,
            DetectionMode::Hierarchy,
            kernel,
            roots,
            raw,
            &mut stats,
        );
        if !raw.is_empty() {
            pair_contacts(model, bodies, pair.a, pair.b, raw, contacts);
        }
    };
    for a in 0..n {
        let ba = &bodies[a];
        for b in a + 1..n {
            let bb = &bodies[b];
            let reach = ba.radius
                + ba.epsilon
                + bb.radius
                + bb.epsilon
                + surface_reach(model, ba)
                + surface_reach(model, bb);
            if (ba.position - bb.position).norm_squared() <= reach * reach {
                let pair = CandidatePair {
                    a: a as u32,
                    b: Other::Particle(b as u32),
                };
                search(pair, bodies, contacts);
            }
        }
        for &o in obstacles {
            let Some(ob) = model.obstacles.get(o as usize) else {
                continue;
            };
            if sphere_touches_aabb(&ba.position, outer_radius(model, ba), &ob.aabb) {
                let pair = CandidatePair {
                    a: a as u32,
                    b: Other::Obstacle(o),
                };
                search(pair, bodies, contacts);
            }
        }
    }
}

/// Resolves `contacts` of the cluster `bodies` (velocities by impulses, positions by the
/// separation term), each contact starting from its impulse in `warm` (warm start, see
/// [`resolve_cluster_warm`]); the accumulated impulses into `impulses`. The default report
/// without contacts.
pub fn resolve(
    model: &Model,
    bodies: &mut [Body],
    contacts: &[Contact],
    warm: &[Vec3],
    settings: &ImpulseSettings,
    scratch: &mut CollideScratch,
    impulses: &mut Vec<Vec3>,
) -> Result<ImpulseReport, StepError> {
    impulses.clear();
    if contacts.is_empty() {
        return Ok(ImpulseReport::default());
    }
    resolve_cluster_warm(
        model,
        bodies,
        contacts,
        warm,
        settings,
        &mut scratch.impulse,
        impulses,
    )
}
