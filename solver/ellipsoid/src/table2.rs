//! Seed 002 Table 2 (§5.2): the contact count of equal-radii ellipsoids against the sphere
//! path on the same realisation ([`crate::workload::table2`]).
//!
//! *Sphere path:* the exact closed sphere-overlap test of the broad phase,
//! `|c_i − c_j| ≤ r_i + r_j`, on the true radii. *Ellipsoid path:* candidates from bounding
//! spheres inflated by [`INFLATION`] (so that ChM also has to reject separated pairs), then
//! ChM + OpM (*Method-2*) and OpM alone (*Method-1*) on them.

use crate::detection::{narrow_phase, Method};
use crate::error::EllipsoidError;
use crate::workload::PosedEllipsoid;
use msdem_broadphase::{BroadPhase, HGrid, HGridConfig, Sphere};

/// Factor on the bounding radii of the ellipsoid path's broad phase \[-\].
pub const INFLATION: f64 = 1.5;

/// The three contact counts of one realisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table2Counts {
    /// Overlapping sphere pairs (sphere path).
    pub spheres: usize,
    /// Candidates of the inflated broad phase given to the narrow phase.
    pub candidates: usize,
    /// Contacts by ChM + OpM.
    pub chm_opm: usize,
    /// Contacts by OpM alone (`None` when not run).
    pub opm_only: Option<usize>,
}

/// Counts contacts of `bodies` (equal semi-axes expected: the sphere path uses the
/// largest) by both paths; `opm_only` also runs Method-1.
pub fn count_contacts(
    bodies: &[PosedEllipsoid],
    opm_only: bool,
) -> Result<Table2Counts, EllipsoidError> {
    let spheres_at = |scale: f64| -> Vec<Sphere> {
        bodies
            .iter()
            .map(|b| {
                let c = b.pose.translation.vector;
                Sphere::new([c.x, c.y, c.z], b.shape.max_radius() * scale)
            })
            .collect()
    };
    let mut grid = HGrid::new(HGridConfig::default())?;
    let mut pairs = Vec::new();
    grid.find_pairs(&spheres_at(1.0), &mut pairs)?;
    let spheres = pairs.len();
    grid.find_pairs(&spheres_at(INFLATION), &mut pairs)?;
    let mut out = Vec::new();
    narrow_phase(bodies, &pairs, Method::ChmThenOpm, &mut out)?;
    let chm_opm = out.len();
    let opm_only = if opm_only {
        narrow_phase(bodies, &pairs, Method::OpmOnly, &mut out)?;
        Some(out.len())
    } else {
        None
    };
    Ok(Table2Counts {
        spheres,
        candidates: pairs.len(),
        chm_opm,
        opm_only,
    })
}
