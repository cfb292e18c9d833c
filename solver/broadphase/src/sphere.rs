//! Bounding spheres, their validation and the sphere–sphere overlap test.

use crate::BroadPhaseError;

/// A bounding sphere. The radius already includes the contact halo ε \[m\].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sphere {
    /// Centre \[m\].
    pub center: [f64; 3],
    /// Radius \[m\], ≥ 0.
    pub radius: f64,
}

impl Sphere {
    /// Builds a sphere from its centre \[m\] and radius \[m\].
    pub fn new(center: [f64; 3], radius: f64) -> Self {
        Sphere { center, radius }
    }
}

/// Closed overlap test `|c_a − c_b| ≤ r_a + r_b` (touching spheres overlap).
///
/// This is the single definition of "overlap" used by every broad phase, so that all of
/// them agree bit for bit with the brute-force reference.
#[inline]
pub fn spheres_overlap(a: &Sphere, b: &Sphere) -> bool {
    overlap_raw(&a.center, a.radius, &b.center, b.radius)
}

/// [`spheres_overlap`] on unpacked values.
#[inline]
pub(crate) fn overlap_raw(ca: &[f64; 3], ra: f64, cb: &[f64; 3], rb: f64) -> bool {
    let dx = ca[0] - cb[0];
    let dy = ca[1] - cb[1];
    let dz = ca[2] - cb[2];
    let rs = ra + rb;
    dx * dx + dy * dy + dz * dz <= rs * rs
}

/// Checks every sphere (finite centre and radius, radius ≥ 0) and the count (fits `u32`).
///
/// Returns the error of the lowest offending index, so the message is deterministic.
pub fn validate(spheres: &[Sphere]) -> Result<(), BroadPhaseError> {
    if u32::try_from(spheres.len()).is_err() {
        return Err(BroadPhaseError::TooMany {
            count: spheres.len(),
        });
    }
    spheres
        .iter()
        .enumerate()
        .try_for_each(|(index, s)| validate_sphere(index, s))
}

/// Checks one sphere (finite centre and radius, radius ≥ 0); errors carry `index`.
pub(crate) fn validate_sphere(index: usize, s: &Sphere) -> Result<(), BroadPhaseError> {
    let finite = s.center.iter().all(|x| x.is_finite()) && s.radius.is_finite();
    if !finite {
        return Err(BroadPhaseError::NonFinite {
            index,
            center: s.center,
            radius: s.radius,
        });
    }
    if s.radius < 0.0 {
        return Err(BroadPhaseError::NegativeRadius {
            index,
            radius: s.radius,
        });
    }
    Ok(())
}

/// [`validate`] fused with the radius range: the smallest and largest radius \[m\]
/// (`(∞, 0)` for an empty set). One pass, parallel for large sets; the lowest offending
/// index is reported as by [`validate`].
pub(crate) fn validate_radius_range(spheres: &[Sphere]) -> Result<(f64, f64), BroadPhaseError> {
    use rayon::prelude::*;
    // NaN propagates as `None`; min/max of valid values otherwise.
    let scan = |chunk: &[Sphere]| -> Option<(f64, f64)> {
        let mut range = (f64::INFINITY, 0.0f64);
        let mut ok = true;
        for s in chunk {
            let finite = s.center.iter().all(|x| x.is_finite()) && s.radius.is_finite();
            ok &= finite && s.radius >= 0.0;
            range = (range.0.min(s.radius), range.1.max(s.radius));
        }
        ok.then_some(range)
    };
    let merge = |a: Option<(f64, f64)>, b: Option<(f64, f64)>| {
        let (a, b) = (a?, b?);
        Some((a.0.min(b.0), a.1.max(b.1)))
    };
    let range = if spheres.len() < crate::PARALLEL_MIN {
        scan(spheres)
    } else {
        spheres
            .par_chunks(8192)
            .map(scan)
            .reduce(|| Some((f64::INFINITY, 0.0)), merge)
    };
    match range {
        Some(r) if u32::try_from(spheres.len()).is_ok() => Ok(r),
        _ => validate(spheres).map(|()| (f64::INFINITY, 0.0)),
    }
}

/// Work counters of the last query, to compare algorithms independently of timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadPhaseStats {
    /// Sphere–sphere overlap tests performed (the paper's contact-detection effort T^cd).
    pub sphere_tests: u64,
    /// Cells looked up (the paper's cell-access effort T^ca); 0 for all-pairs.
    pub cell_visits: u64,
    /// Whether this query rebuilt the grid (false when a Verlet candidate list was reused).
    pub rebuilt: bool,
}

impl BroadPhaseStats {
    /// Adds the counters of `other` (the `rebuilt` flags are or-ed).
    pub fn merge(&mut self, other: &BroadPhaseStats) {
        self.sphere_tests += other.sphere_tests;
        self.cell_visits += other.cell_visits;
        self.rebuilt |= other.rebuilt;
    }
}
