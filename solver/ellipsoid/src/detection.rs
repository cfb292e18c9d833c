//! Broad + narrow contact detection of a whole ellipsoid set (seed 002 §4–§5): bounding
//! spheres through any [`BroadPhase`] (the seed's bins, [`msdem_broadphase::Bins`], or the
//! HGrid), then per candidate pair either OpM alone (the seed's *Method-1*) or the ChM
//! filter followed by OpM on the pairs it keeps (*Method-2*). Method-2 first decides the
//! pairs that are clearly apart or clearly overlapping along their centre line
//! ([`crate::separating_axis`]: a fraction of ChM's cost, and ChM's own answer).
//!
//! The narrow phase runs on the rayon pool over fixed-size chunks of the candidate list,
//! which is sorted; the chunks' results are concatenated in chunk order, so the contact
//! list is the same, byte for byte, at any thread count.

use crate::chm::chm_in_contact;
use crate::contact::Contact;
use crate::error::EllipsoidError;
use crate::opm::opm;
use crate::separating_axis::{overlapping_along_centre_line, separated_along_centre_line};
use crate::workload::PosedEllipsoid;
use msdem_broadphase::{BroadPhase, Sphere};
use rayon::prelude::*;

/// Candidate pairs per rayon task of the narrow phase.
const CHUNK: usize = 2048;

/// Which narrow-phase tests a candidate pair goes through (seed 002 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// *Method-1*: OpM on every candidate; a contact when its signed distance is ≤ 0.
    OpmOnly,
    /// *Method-2*: ChM decides touching/overlapping; OpM gives the contact data of the
    /// pairs ChM keeps.
    ChmThenOpm,
}

/// A contact between bodies `a < b` (indices into the body slice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairContact {
    /// Index of body A.
    pub a: u32,
    /// Index of body B.
    pub b: u32,
    /// OpM's answer (normal from B to A, signed distance ≤ 0 for OpM-only contacts).
    pub contact: Contact,
}

/// Work counts of one detection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectionStats {
    /// Pairs whose bounding spheres overlap (broad-phase output).
    pub candidates: u64,
    /// ChM tests run.
    pub chm_tests: u64,
    /// OpM runs.
    pub opm_runs: u64,
    /// OpM runs that did not converge (their contact is still reported, best iterate).
    pub opm_not_converged: u64,
    /// Contacts reported.
    pub contacts: u64,
}

/// Reusable buffers of [`detect`].
#[derive(Debug, Default)]
pub struct DetectionScratch {
    spheres: Vec<Sphere>,
    candidates: Vec<(u32, u32)>,
}

impl DetectionScratch {
    /// The broad phase's candidate pairs of the last [`detect`] (ascending).
    pub fn candidates(&self) -> &[(u32, u32)] {
        &self.candidates
    }
}

/// The bounding sphere of every body: centre, radius = largest semi-axis \[m\].
pub fn bounding_spheres(bodies: &[PosedEllipsoid], out: &mut Vec<Sphere>) {
    out.clear();
    out.extend(bodies.iter().map(|b| {
        let c = b.pose.translation.vector;
        Sphere::new([c.x, c.y, c.z], b.shape.bounding_radius())
    }));
}

/// Method-2's contact decision: ChM (seed 002 §3), with the centre-line tests of
/// [`crate::separating_axis`] deciding first the pairs that are clearly apart or clearly
/// overlapping (the same answer as ChM's on those, at a fraction of its cost).
fn chm_filter(a: &PosedEllipsoid, b: &PosedEllipsoid) -> bool {
    if separated_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose) {
        return false;
    }
    overlapping_along_centre_line(&a.shape, &a.pose, &b.shape, &b.pose)
        || chm_in_contact(&a.shape, &a.pose, &b.shape, &b.pose)
}

/// One candidate pair through `method`: the contact if there is one, and whether OpM ran
/// and converged.
fn test_pair(bodies: &[PosedEllipsoid], pair: (u32, u32), method: Method) -> PairOutcome {
    let (a, b) = (&bodies[pair.0 as usize], &bodies[pair.1 as usize]);
    if method == Method::ChmThenOpm && !chm_filter(a, b) {
        return PairOutcome::default();
    }
    let c = opm(&a.shape, &a.pose, &b.shape, &b.pose);
    let keep = method == Method::ChmThenOpm || c.in_contact();
    PairOutcome {
        contact: keep.then_some(PairContact {
            a: pair.0,
            b: pair.1,
            contact: c,
        }),
        opm: true,
        not_converged: !c.converged(),
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct PairOutcome {
    contact: Option<PairContact>,
    opm: bool,
    not_converged: bool,
}

/// Narrow phase over candidate pairs (indices into `bodies`, each `< bodies.len()`):
/// clears `out` and fills it with the contacts in candidate order. Pairs naming a body
/// outside `bodies` are an error (nothing is written).
pub fn narrow_phase(
    bodies: &[PosedEllipsoid],
    candidates: &[(u32, u32)],
    method: Method,
    out: &mut Vec<PairContact>,
) -> Result<DetectionStats, EllipsoidError> {
    out.clear();
    if let Some(k) = candidates
        .iter()
        .position(|&(a, b)| a as usize >= bodies.len() || b as usize >= bodies.len())
    {
        return Err(EllipsoidError::BadWorkload(format!(
            "candidate pair {k} ({}, {}) names a body outside 0..{}",
            candidates[k].0,
            candidates[k].1,
            bodies.len()
        )));
    }
    let parts: Vec<(Vec<PairContact>, DetectionStats)> = candidates
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut found = Vec::new();
            let mut stats = DetectionStats::default();
            for &pair in chunk {
                let outcome = test_pair(bodies, pair, method);
                stats.opm_runs += u64::from(outcome.opm);
                stats.opm_not_converged += u64::from(outcome.not_converged);
                if let Some(c) = outcome.contact {
                    found.push(c);
                }
            }
            (found, stats)
        })
        .collect();
    let mut stats = DetectionStats {
        candidates: candidates.len() as u64,
        chm_tests: if method == Method::ChmThenOpm {
            candidates.len() as u64
        } else {
            0
        },
        ..Default::default()
    };
    out.reserve(parts.iter().map(|p| p.0.len()).sum());
    for (found, s) in parts {
        out.extend_from_slice(&found);
        stats.opm_runs += s.opm_runs;
        stats.opm_not_converged += s.opm_not_converged;
    }
    stats.contacts = out.len() as u64;
    Ok(stats)
}

/// Broad + narrow detection of a whole set: bounding spheres through `broad`, then
/// [`narrow_phase`] with `method`. `out` holds the contacts, ordered by `(a, b)`.
pub fn detect(
    bodies: &[PosedEllipsoid],
    broad: &mut dyn BroadPhase,
    method: Method,
    scratch: &mut DetectionScratch,
    out: &mut Vec<PairContact>,
) -> Result<DetectionStats, EllipsoidError> {
    out.clear();
    bounding_spheres(bodies, &mut scratch.spheres);
    broad.find_pairs(&scratch.spheres, &mut scratch.candidates)?;
    narrow_phase(bodies, &scratch.candidates, method, out)
}
