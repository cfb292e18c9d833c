//! The seed's OpM solver, kept as a test reference: gradient descent with an optimal
//! (exact line-search) step on the fixed global angles `(α₁, α₂)` (seed 002 §5.1,
//! eq. (2), (3)). Slow and singular at the poles `α₂ = ±π/2`; use [`crate::opm`].

use crate::contact::{Contact, Status};
use crate::math::{Iso3, Real, Vec2, Vec3};
use crate::sensitivity::{direction_in_frame, PairGeometry};
use crate::shape::Ellipsoid;

const GLOBAL_FRAME: [Vec3; 3] = [
    Vec3::new(1.0, 0.0, 0.0),
    Vec3::new(0.0, 1.0, 0.0),
    Vec3::new(0.0, 0.0, 1.0),
];

/// Golden-section search for the minimum of `phi` on `[0, hi]`.
fn golden(phi: impl Fn(Real) -> Real, hi: Real) -> Real {
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0, hi);
    let mut x1 = hi - ratio * (hi - lo);
    let mut x2 = lo + ratio * (hi - lo);
    let (mut f1, mut f2) = (phi(x1), phi(x2));
    for _ in 0..80 {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = phi(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = phi(x2);
        }
    }
    0.5 * (lo + hi)
}

/// Gradient descent with optimal step from the centre-to-centre direction, at most
/// `max_iterations` steps; converged when the angle step falls below `1e-11` rad.
/// Same output convention as [`crate::opm`].
pub fn opm_gradient_descent(
    a: &Ellipsoid,
    pose_a: &Iso3,
    b: &Ellipsoid,
    pose_b: &Iso3,
    max_iterations: u32,
) -> Contact {
    let geom = PairGeometry::new(a, pose_a, b, pose_b);
    let q = geom.b_b - geom.b_a;
    let c0 = if q.norm() > 0.0 {
        q.normalize()
    } else {
        Vec3::x()
    };
    let mut alpha = Vec2::new(c0.y.atan2(c0.x), c0.z.clamp(-1.0, 1.0).asin());
    let f_at = |al: &Vec2| geom.f(&direction_in_frame(&GLOBAL_FRAME, al).0);
    let mut converged = false;
    let mut iterations = 0;
    while iterations < max_iterations {
        iterations += 1;
        let (c, c_a, c_aa) = direction_in_frame(&GLOBAL_FRAME, &alpha);
        let g = geom.sensitivities(&c, &c_a, &c_aa).grad;
        let gn = g.norm();
        if gn == 0.0 {
            converged = true;
            break;
        }
        let dir = -g / gn;
        let t = golden(|t| f_at(&(alpha + dir * t)), 0.5);
        alpha += dir * t;
        if t < 1e-11 {
            converged = true;
            break;
        }
    }
    let c = direction_in_frame(&GLOBAL_FRAME, &alpha).0;
    let (point_a, point_b) = geom.points(&c);
    Contact {
        signed_distance: -(point_a - point_b).dot(&c),
        normal: -c,
        point_a,
        point_b,
        status: if converged {
            Status::Converged
        } else {
            Status::NotConverged
        },
        iterations,
    }
}
