//! A cheap, conservative rejection before ChM (seed 002 §3–§4): two ellipsoids whose
//! projections on the line through their centres do not overlap are separated by a plane
//! perpendicular to that line, so the characteristic-equation test need not run.
//!
//! The projection of a posed ellipsoid on a unit direction `u` is its centre's projection
//! ± its support value `h(u) = |R Aᵀ u|` (eq. ). The pair is rejected only when the
//! gap along the centre line, `|q| − h_A(q̂) − h_B(q̂)`, exceeds [`REJECT_MARGIN`] of
//! `|q|`: the true gap is at least that, and ChM's touching band (`|ψ| ≤ 1e-10`, a
//! relative gap of about 5e-11, `chm.rs`) is far narrower, so every pair rejected here is
//! one ChM reports separated — the contact decision is unchanged.

use crate::math::{Iso3, Real, Vec3};
use crate::shape::Ellipsoid;

/// Smallest gap along the centre line, relative to the centre distance, for a rejection
/// \[-\].
pub const REJECT_MARGIN: Real = 1e-6;

/// `true` when a plane perpendicular to the centre line separates the two posed
/// ellipsoids with a gap above [`REJECT_MARGIN`] of the centre distance (so ChM reports
/// them separated); `false` when the test cannot decide (coincident centres included).
pub fn separated_along_centre_line(
    a: &Ellipsoid,
    pose_a: &Iso3,
    b: &Ellipsoid,
    pose_b: &Iso3,
) -> bool {
    let q = pose_b.translation.vector - pose_a.translation.vector;
    let dist = q.norm();
    if !(dist > 0.0 && dist.is_finite()) {
        return false;
    }
    let u = q / dist;
    let h_a = a.support_value(&pose_a.rotation.inverse_transform_vector(&u));
    let h_b = b.support_value(&pose_b.rotation.inverse_transform_vector(&u));
    dist - h_a - h_b > REJECT_MARGIN * dist
}

/// `true` when the two posed ellipsoids certainly overlap: along the centre line, the
/// radial extents `1/|R⁻¹ Aᵀ q̂|` of A (towards B) and of B (towards A) together exceed the
/// centre distance by more than [`REJECT_MARGIN`] of it, so a segment of the centre line
/// lies inside both bodies (and ChM, whose touching band is far narrower, reports them
/// overlapping). `false` when the test cannot decide; coincident centres overlap.
pub fn overlapping_along_centre_line(
    a: &Ellipsoid,
    pose_a: &Iso3,
    b: &Ellipsoid,
    pose_b: &Iso3,
) -> bool {
    let q = pose_b.translation.vector - pose_a.translation.vector;
    let dist = q.norm();
    if dist == 0.0 {
        return true;
    }
    if !dist.is_finite() {
        return false;
    }
    let u = q / dist;
    let extent = |e: &Ellipsoid, pose: &Iso3| {
        let local = pose.rotation.inverse_transform_vector(&u);
        let [ra, rb, rc] = e.radii();
        1.0 / Vec3::new(local.x / ra, local.y / rb, local.z / rc).norm()
    };
    extent(a, pose_a) + extent(b, pose_b) > (1.0 + REJECT_MARGIN) * dist
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chm::{chm, ChmState};
    use crate::math::Quat;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn spheres_are_rejected_exactly_when_apart_beyond_the_margin() {
        let s = Ellipsoid::sphere(1.0).unwrap();
        let at = |x: Real| Iso3::translation(x, 0.0, 0.0);
        assert!(separated_along_centre_line(&s, &at(0.0), &s, &at(2.01)));
        assert!(!separated_along_centre_line(&s, &at(0.0), &s, &at(2.0)));
        assert!(!separated_along_centre_line(&s, &at(0.0), &s, &at(1.5)));
        assert!(!separated_along_centre_line(&s, &at(0.0), &s, &at(0.0)));
        assert!(overlapping_along_centre_line(&s, &at(0.0), &s, &at(1.99)));
        assert!(!overlapping_along_centre_line(&s, &at(0.0), &s, &at(2.0)));
        assert!(overlapping_along_centre_line(&s, &at(0.0), &s, &at(0.0)));
    }

    /// Brute force against ChM on random pairs: never rejects a pair ChM keeps nor
    /// accepts one ChM does not find overlapping, and decides a good share of both.
    #[test]
    fn rejects_only_pairs_chm_separates() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let (mut separated, mut rejected, mut accepted) = (0, 0, 0);
        for k in 0..200_000 {
            let shape = |rng: &mut Xoshiro256PlusPlus| {
                Ellipsoid::new([0; 3].map(|_| rng.gen_range(0.2..1.0))).unwrap()
            };
            let (a, b) = (shape(&mut rng), shape(&mut rng));
            let pose = |rng: &mut Xoshiro256PlusPlus| {
                Iso3::from_parts(
                    (Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 2.4).into(),
                    Quat::from_euler_angles(rng.gen(), rng.gen(), rng.gen()),
                )
            };
            let (pa, pb) = (pose(&mut rng), pose(&mut rng));
            let chm_separated = chm(&a, &pa, &b, &pb).state == ChmState::Separated;
            let reject = separated_along_centre_line(&a, &pa, &b, &pb);
            assert!(!reject || chm_separated, "pair {k}: rejected, ChM keeps it");
            let accept = overlapping_along_centre_line(&a, &pa, &b, &pb);
            assert!(
                !accept || chm(&a, &pa, &b, &pb).state == ChmState::Overlapping,
                "pair {k}: accepted, ChM does not find an overlap"
            );
            assert!(!(accept && reject), "pair {k}");
            separated += usize::from(chm_separated);
            rejected += usize::from(reject);
            accepted += usize::from(accept);
        }
        let overlapping = 200_000 - separated;
        assert!(
            separated > 50_000 && rejected > separated / 4,
            "{rejected} of {separated}"
        );
        assert!(
            overlapping > 50_000 && accepted > overlapping / 4,
            "{accepted} of {overlapping}"
        );
    }
}
