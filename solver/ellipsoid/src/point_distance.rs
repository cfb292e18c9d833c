//! Exact signed distance from a point to an ellipsoid (or, internally, an ellipse), by
//! the robust bisection of D. Eberly, *Distance from a point to an ellipse, an ellipsoid,
//! or a hyperellipsoid* (2013).
//!
//! In the principal frame with semi-axes sorted `e₀ ≥ e₁ ≥ e₂` and the point reflected
//! into the first octant, the closest point is `xᵢ = eᵢ² yᵢ / (t + eᵢ²)` where `t` is the
//! unique root of `F(t) = Σ (eᵢ yᵢ / (t + eᵢ²))² − 1` on `t > −e_min²` (bracketed, then
//! bisected to machine precision, at most 160 halvings). When `y` lies on the plane of the
//! smallest axis the root may sit at the pole `t = −e_min²`; that case is tested directly
//! and otherwise the problem drops one dimension — which is what makes the method exact
//! for points inside, on symmetry planes, and at the centre.

use crate::math::{Iso3, Point3, Real, Vec3};
use crate::shape::Ellipsoid;

/// Closest surface point to a query point, with the signed distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The closest point on the ellipsoid's surface (world) \[m\].
    pub closest: Point3,
    /// Distance to the surface, negative inside \[m\].
    pub signed_distance: Real,
    /// Outward unit normal of the ellipsoid at `closest` (world) \[-\].
    pub normal: Vec3,
}

/// Bisection count cap.
const MAX_BISECTIONS: u32 = 160;

/// Closest point for sorted semi-axes `e` (descending, scaled so `e₀ = 1`) and `y ≥ 0`.
fn closest_sorted(e: &[Real], y: &[Real], x: &mut [Real]) {
    let n = e.len();
    if n == 1 {
        x[0] = e[0];
        return;
    }
    let last = n - 1;
    if y[last] > 0.0 {
        let en2 = e[last] * e[last];
        let f = |t: Real| -> Real {
            let mut s = -1.0;
            for i in 0..n {
                let r = e[i] * y[i] / (t + e[i] * e[i]);
                s += r * r;
            }
            s
        };
        let mut lo = -en2 + e[last] * y[last];
        let mut hi = -en2 + (0..n).map(|i| (e[i] * y[i]).powi(2)).sum::<Real>().sqrt();
        for _ in 0..MAX_BISECTIONS {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            let value = f(mid);
            if value > 0.0 {
                lo = mid;
            } else if value < 0.0 {
                hi = mid;
            } else {
                lo = mid;
                hi = mid;
                break;
            }
        }
        let t = 0.5 * (lo + hi);
        for i in 0..n {
            x[i] = e[i] * e[i] * y[i] / (t + e[i] * e[i]);
        }
        return;
    }
    // y on the plane of the smallest axis: try the pole root t = −e_last².
    let en2 = e[last] * e[last];
    let mut sum = 0.0;
    let mut valid = true;
    for i in 0..last {
        if y[i] == 0.0 {
            x[i] = 0.0;
            continue;
        }
        let denom = e[i] * e[i] - en2;
        if e[i] * y[i] >= denom {
            valid = false;
            break;
        }
        x[i] = e[i] * e[i] * y[i] / denom;
        sum += (x[i] / e[i]).powi(2);
    }
    if valid && sum < 1.0 {
        x[last] = e[last] * (1.0 - sum).sqrt();
        return;
    }
    x[last] = 0.0;
    closest_sorted(&e[..last], &y[..last], &mut x[..last]);
}

/// Closest point on the axis-aligned ellipse/ellipsoid `Σ (xᵢ/eᵢ)² = 1` (`N` = 2 or 3) to
/// `y`, in the same frame. Works for points inside, outside and on the surface.
pub(crate) fn closest_point_axis_aligned<const N: usize>(
    e: &[Real; N],
    y: &[Real; N],
) -> [Real; N] {
    let mut order: [usize; N] = std::array::from_fn(|i| i);
    order.sort_by(|&i, &j| e[j].total_cmp(&e[i]));
    let scale = e[order[0]];
    let es: [Real; N] = std::array::from_fn(|k| e[order[k]] / scale);
    let ys: [Real; N] = std::array::from_fn(|k| y[order[k]].abs() / scale);
    let mut xs = [0.0; N];
    closest_sorted(&es, &ys, &mut xs);
    let mut out = [0.0; N];
    for k in 0..N {
        let i = order[k];
        out[i] = (xs[k] * scale).copysign(if y[i] < 0.0 { -1.0 } else { 1.0 });
    }
    out
}

/// Signed distance from a world point to a posed ellipsoid, with the closest point and
/// the outward normal there (exact up to bisection precision).
pub fn signed_distance_point(e: &Ellipsoid, pose: &Iso3, p: &Point3) -> PointProjection {
    let local = pose.inverse_transform_point(p);
    let x = closest_point_axis_aligned(&e.radii(), &[local.x, local.y, local.z]);
    let closest_local = Point3::new(x[0], x[1], x[2]);
    let dist = (local - closest_local).norm();
    let signed_distance = if e.level(&local) > 0.0 { dist } else { -dist };
    PointProjection {
        closest: pose * closest_local,
        signed_distance,
        normal: pose.rotation * e.normal_at(&closest_local),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_inside_outside_centre() {
        let s = Ellipsoid::sphere(2.0).unwrap();
        let id = Iso3::identity();
        let r = signed_distance_point(&s, &id, &Point3::new(3.0, 4.0, 0.0));
        assert!((r.signed_distance - 3.0).abs() < 1e-12);
        let r = signed_distance_point(&s, &id, &Point3::new(0.0, 0.5, 0.0));
        assert!((r.signed_distance + 1.5).abs() < 1e-12);
        let r = signed_distance_point(&s, &id, &Point3::origin());
        assert!((r.signed_distance + 2.0).abs() < 1e-12);
    }

    #[test]
    fn ellipsoid_centre_goes_to_smallest_axis() {
        let e = Ellipsoid::new([3.0, 1.0, 2.0]).unwrap();
        let r = signed_distance_point(&e, &Iso3::identity(), &Point3::origin());
        assert!((r.signed_distance + 1.0).abs() < 1e-12);
        assert!((r.closest.y.abs() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn inside_near_long_axis_uses_pole_case() {
        // Deep inside on the x axis of an elongated ellipse: the closest point is off-axis.
        let e = [3.0, 1.0];
        let x = closest_point_axis_aligned(&e, &[1.0, 0.0]);
        // x₀ = e₀² y₀ /(e₀² − e₁²) = 9/8
        assert!((x[0] - 9.0 / 8.0).abs() < 1e-12, "{x:?}");
        assert!(((x[0] / 3.0).powi(2) + x[1].powi(2) - 1.0).abs() < 1e-12);
    }
}
