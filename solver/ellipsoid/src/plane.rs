//! Ellipsoid–plane contact, closed form: the support point of the ellipsoid along the
//! plane's inward normal (seed 002 eq. with `c = −n`).

use crate::contact::{Contact, Status};
use crate::error::EllipsoidError;
use crate::math::{Iso3, Point3, Real, Vec3};
use crate::shape::Ellipsoid;

/// A plane `{x : n·x = offset}` bounding the solid half-space `n·x ≤ offset` (a wall or
/// floor whose free side is `+n`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace {
    normal: Vec3,
    offset: Real,
}

impl HalfSpace {
    /// The half-space through `point` \[m\] whose outward (free-side) normal is `normal`
    /// (any non-zero length; normalised here).
    pub fn new(point: &Point3, normal: &Vec3) -> Result<Self, EllipsoidError> {
        let len = normal.norm();
        if !(len > 0.0 && len.is_finite() && point.coords.iter().all(|x| x.is_finite())) {
            return Err(EllipsoidError::BadNormal(normal.x, normal.y, normal.z));
        }
        let normal = normal / len;
        Ok(HalfSpace {
            normal,
            offset: normal.dot(&point.coords),
        })
    }

    /// Unit outward normal \[-\].
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// `n·x` on the plane \[m\].
    pub fn offset(&self) -> Real {
        self.offset
    }
}

/// Ellipsoid A against the half-space B: `signed_distance = n·b − √(nᵀ M n) − offset`
/// (exact), `point_a` the support point of A along `−n`, `point_b` its projection onto
/// the plane, normal `n` (from the half-space to the ellipsoid).
pub fn ellipsoid_plane(a: &Ellipsoid, pose_a: &Iso3, plane: &HalfSpace) -> Contact {
    let n = plane.normal;
    let point_a = a.support_world(pose_a, &-n);
    let signed_distance = n.dot(&pose_a.translation.vector)
        - a.support_value(&(pose_a.rotation.inverse() * n))
        - plane.offset;
    Contact {
        signed_distance,
        normal: n,
        point_a,
        point_b: point_a - n * signed_distance,
        status: Status::Converged,
        iterations: 0,
    }
}
