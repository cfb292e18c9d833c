//! Unit normal of one fine–fine contact, from `b` towards `a` (seed 000 §2, Fig. 2: the
//! normal points from the contact point to the closest point on one triangle).
//!
//! The regular normal is `u = (p − q)/|p − q|`. Two situations make it meaningless, and a
//! robust normal from the triangles' outward normals `n_a`, `n_b` is used instead
//! ([`robust_normal`]):
//!
//! * **intersecting triangles**: `|p − q|` below [`TINY_DISTANCE`]`·margin`, so `p − q`
//!   carries no direction;
//! * **penetration past the halo**: `p` lies straight behind `b`'s face
//!   (`u·n_b < −`[`BEHIND_FACE_COS`]) or `q` straight behind `a`'s face
//!   (`u·n_a > `[`BEHIND_FACE_COS`]). Then `u` points *into* the other body and the spring
//!   would pull the bodies further together. (Near edges and vertices `u` is oblique to the
//!   faces and stays in use.)

use super::pair::TINY_DISTANCE;
use msdem_geom::math::Vec3;

/// Cosine beyond which a closest point counts as straight behind the other face [-].
pub const BEHIND_FACE_COS: f64 = 0.99;

/// Robust normal from `b` towards `a` from the world outward normals of the two triangles:
/// the obstacle's face normal `n_b` when `b` is an obstacle, `normalise(n_b − n_a)` for two
/// particles (both terms point from `b` towards `a` for touching surfaces), and
/// `centre_dir` (unit, from `b`'s centre of mass towards `a`'s) if those cancel.
pub fn robust_normal(n_a: &Vec3, n_b: &Vec3, b_is_obstacle: bool, centre_dir: &Vec3) -> Vec3 {
    if b_is_obstacle && n_b.norm_squared() > 0.0 {
        return *n_b;
    }
    (n_b - n_a).try_normalize(1e-6).unwrap_or(*centre_dir)
}

/// Normal of a contact with closest points `p` (on `a`) and `q` (on `b`), pair margin
/// `margin` \[m\], world outward triangle normals `n_a`, `n_b` and the robust fallback
/// `fallback` (see the module docs).
pub fn contact_normal(
    p: &Vec3,
    q: &Vec3,
    margin: f64,
    n_a: &Vec3,
    n_b: &Vec3,
    fallback: &Vec3,
) -> Vec3 {
    let d = p - q;
    let len = d.norm();
    if !(len.is_finite() && len > TINY_DISTANCE * margin) {
        return *fallback;
    }
    let u = d / len;
    if u.dot(n_b) < -BEHIND_FACE_COS || u.dot(n_a) > BEHIND_FACE_COS {
        return *fallback;
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_contact_uses_closest_points() {
        // a's bottom face (normal −z) 1 cm above b's top face (normal +z), offset sideways.
        let (p, q) = (Vec3::new(0.3, 0.0, 0.01), Vec3::new(0.3, 0.0, 0.0));
        let n = contact_normal(&p, &q, 0.02, &-Vec3::z(), &Vec3::z(), &Vec3::x());
        assert_eq!(n, Vec3::z());
        // Edge-to-edge contact: oblique to both faces, kept.
        let q2 = Vec3::new(0.29, 0.0, 0.0);
        let n2 = contact_normal(&p, &q2, 0.02, &-Vec3::z(), &Vec3::z(), &Vec3::x());
        assert!((n2 - (p - q2).normalize()).norm() < 1e-15);
    }

    #[test]
    fn intersecting_or_penetrated_triangles_use_the_fallback() {
        let fb = robust_normal(&-Vec3::z(), &Vec3::z(), true, &Vec3::x());
        assert_eq!(fb, Vec3::z());
        let p = Vec3::new(0.0, 0.0, 0.0);
        assert_eq!(
            contact_normal(&p, &p, 0.02, &-Vec3::z(), &Vec3::z(), &fb),
            fb
        );
        // a's face sank 1 cm below b's face: p − q points into b.
        let (p, q) = (Vec3::new(0.0, 0.0, -0.01), Vec3::zeros());
        assert_eq!(
            contact_normal(&p, &q, 0.02, &-Vec3::z(), &Vec3::z(), &fb),
            fb
        );
        // q behind a's face (a's face normal points away from b's point).
        assert_eq!(
            contact_normal(&p, &q, 0.02, &-Vec3::z(), &Vec3::x(), &fb),
            fb
        );
    }

    #[test]
    fn particle_fallback_averages_faces_then_centres() {
        let n = robust_normal(
            &Vec3::new(0.0, 0.0, -1.0),
            &Vec3::new(0.0, 1.0, 0.0),
            false,
            &Vec3::x(),
        );
        assert!((n - Vec3::new(0.0, 1.0, 1.0).normalize()).norm() < 1e-15);
        assert_eq!(
            robust_normal(&Vec3::z(), &Vec3::z(), false, &Vec3::x()),
            Vec3::x()
        );
    }
}
