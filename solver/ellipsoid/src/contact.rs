//! The result type shared by every pair query (ellipsoid–ellipsoid, –plane, –triangle).

use crate::math::{Point3, Real, Vec3};

/// Whether an iterative query met its tolerance within its iteration cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Converged (or exact: closed-form queries always report this).
    Converged,
    /// The iteration cap or the line search gave up first: the fields hold the best
    /// iterate found, which is a valid configuration (points on the surfaces, unit
    /// normal) but not certified optimal. Callers should not trust the distance.
    NotConverged,
}

/// Contact between body A and body B, in world coordinates.
///
/// Convention: [`Contact::normal`] is the unit vector **from B towards A** (the outward
/// normal of B at `point_b`; moving A along it separates the pair), and
/// `signed_distance = (point_a − point_b)·normal`: the gap \[m\] when positive, minus the
/// penetration depth \[m\] when negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Gap (> 0) or minus the penetration depth (< 0) \[m\].
    pub signed_distance: Real,
    /// Unit contact normal, from B towards A \[-\].
    pub normal: Vec3,
    /// Witness point on A's surface \[m\].
    pub point_a: Point3,
    /// Witness point on B's surface \[m\].
    pub point_b: Point3,
    /// Convergence status of the iteration behind this result.
    pub status: Status,
    /// Newton (or bisection) iterations spent, all starts together.
    pub iterations: u32,
}

impl Contact {
    /// Whether the bodies touch or overlap (`signed_distance ≤ 0`).
    pub fn in_contact(&self) -> bool {
        self.signed_distance <= 0.0
    }

    /// Penetration depth \[m\]: `max(0, −signed_distance)`.
    pub fn penetration_depth(&self) -> Real {
        (-self.signed_distance).max(0.0)
    }

    /// The midpoint of the two witness points, the contact point the seed hands to the
    /// dynamics (seed 002 §2, after eq. (5)) \[m\].
    pub fn contact_point(&self) -> Point3 {
        nalgebra::center(&self.point_a, &self.point_b)
    }

    /// Whether the query converged.
    pub fn converged(&self) -> bool {
        self.status == Status::Converged
    }

    /// The bits of the geometric answer (signed distance, normal, both witness points),
    /// for bit-for-bit comparisons of two paths; the status and the iteration count are
    /// left out.
    pub fn bits(&self) -> [u64; 10] {
        [
            self.signed_distance,
            self.normal.x,
            self.normal.y,
            self.normal.z,
            self.point_a.x,
            self.point_a.y,
            self.point_a.z,
            self.point_b.x,
            self.point_b.y,
            self.point_b.z,
        ]
        .map(Real::to_bits)
    }
}
