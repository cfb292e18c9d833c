//! A certified lower bound on the penetration depth of two overlapping ellipsoids, from
//! the balls inscribed in each body and tangent at OpM's witness points (seed 002 §2:
//! certifies that a local minimum of eq. (2) is the global one, so that OpM may skip its
//! extra starts without changing its answer).
//!
//! # Tangent inscribed balls
//! For an ellipsoid with smallest semi-axis `r_min` and support value `h(u) = √(uᵀ M u)`
//! (eq., `M` of eq. ), the ball of radius `ρ(u) = r_min² / h(u)` tangent
//! internally at the surface point with outward normal `u` (`G(u) = M u / h(u)`,
//! eq.) lies inside the ellipsoid, and so does every smaller ball tangent there.
//! Why: in the principal frame, with the smallest semi-axis along `z`, the inner normal
//! from `p = G(u)` meets the plane `z = 0` after `r_min² |R⁻² p| = r_min² / h(u)`; from
//! that point the closest surface point is `p` itself (its Lagrange multiplier is
//! `r_min²`, the largest an interior point admits), so the ball reaching `p` is inscribed.
//! Spheres: `ρ = r`; the end of the longest axis of an ellipse: `b²/a`, the osculating
//! circle.
//!
//! # The bound
//! With `q = b_B − b_A` and `K = A₀ ⊕ B₀` (the centred bodies), the depth is
//! `δ = dist(q, ∂K)` and every OpM value `f(c) = |G_A(c) + G_B(c) − q|²` is at least `δ²`
//! (see `opm.rs`). At a direction `c` with `d = G_A(c) + G_B(c) − q`, `D = d·c` and the
//! residual `e = d − D c`, split `D = t_A + t_B` with `t_A ≤ ρ_A(c)`, `t_B ≤ ρ_B(c)`:
//! the balls `B(G_A − t_A c, t_A) ⊂ A₀` and `B(G_B − t_B c, t_B) ⊂ B₀` sum to the ball
//! `B(G_A + G_B − D c, D) = B(q + e, D)` inside `K`, which contains `B(q, D − |e|)`; so
//! `δ ≥ D − |e|`. At a stationary point of `f`, `e = 0` and the bound is the depth itself
//! whenever `D ≤ ρ_A + ρ_B`.

use crate::math::{Real, Vec3};
use crate::sensitivity::PairGeometry;

/// Rounding allowance of the bound, relative to the pair's length scale
/// `|q|₁ + h_A + h_B + |D|` (about 45 units in the last place; every term of `d` is
/// computed from the difference of the centres' floats, whose rounding is relative to
/// `q`, not to the centres' coordinates) \[-\].
const ROUNDING: Real = 1e-14;

/// Radius \[m\] of the largest ball inside an ellipsoid tangent at its surface point with
/// outward normal `u`: `r_min² / h(u)`, `h(u) = √(uᵀ M u)` the support value \[m\]
/// (module doc). `None` for a non-positive or non-finite support value.
pub fn tangent_ball_radius(min_radius: Real, support_value: Real) -> Option<Real> {
    (support_value > 0.0 && support_value.is_finite())
        .then(|| min_radius * min_radius / support_value)
}

/// A lower bound \[m\] on the penetration depth `dist(b_B − b_A, ∂(A₀ ⊕ B₀))` of the pair
/// from the tangent inscribed balls at the unit direction `c` (module doc), less a
/// rounding allowance that also covers the rounding of any OpM value `f` of the pair.
/// `None` when the bound says nothing: the pair is not overlapping along `c`, or the
/// depth along `c` exceeds the two balls.
pub fn depth_lower_bound(
    geom: &PairGeometry,
    min_radius_a: Real,
    min_radius_b: Real,
    c: &Vec3,
) -> Option<Real> {
    let h_a = c.dot(&(geom.m_a * c)).sqrt();
    let h_b = c.dot(&(geom.m_b * c)).sqrt();
    let balls = tangent_ball_radius(min_radius_a, h_a)? + tangent_ball_radius(min_radius_b, h_b)?;
    let d = geom.d(c);
    let along = d.dot(c);
    let residual = (d - c * along).norm();
    let scale = (geom.b_b - geom.b_a).abs().sum() + h_a + h_b + along.abs();
    let bound = along - residual - 2.0 * ROUNDING * scale;
    (along > 0.0 && along <= balls * (1.0 - 1e-12) && bound > 0.0 && bound.is_finite())
        .then_some(bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Iso3, Point3, Quat};
    use crate::point_distance::signed_distance_point;
    use crate::shape::Ellipsoid;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The tangent ball's centre is at its radius from the surface (exact point distance,
    /// Eberly's bisection): the ball is inscribed and the largest one tangent there.
    #[test]
    fn tangent_balls_are_inscribed_by_the_exact_point_distance() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for k in 0..2000 {
            let radii = [0; 3].map(|_| rng.gen_range(0.1..2.0));
            let e = Ellipsoid::new(radii).unwrap();
            let pose = Iso3::from_parts(
                Vec3::new(rng.gen(), rng.gen(), rng.gen()).into(),
                Quat::from_euler_angles(rng.gen(), rng.gen(), rng.gen()),
            );
            let u = Vec3::new(rng.gen(), rng.gen(), rng.gen()).map(|x: Real| x - 0.5);
            let u = u.normalize();
            let m = e.shape_matrix(&pose);
            let h = u.dot(&(m * u)).sqrt();
            let rho = tangent_ball_radius(e.min_radius(), h).unwrap();
            let p = e.support_world(&pose, &u);
            // Inside the largest tangent ball the surface point stays the closest one (at
            // `ρ` itself the centre sits on the medial plane, where the bisection of
            // `point_distance` loses digits: checked just inside).
            for t in [0.25 * rho, 0.9 * rho, 0.99 * rho] {
                let centre = Point3::from(p.coords - u * t);
                let dist = -signed_distance_point(&e, &pose, &centre).signed_distance;
                assert!(
                    (dist - t).abs() <= 1e-9 * (1.0 + t),
                    "case {k}: radii {radii:?}, t {t}, distance {dist}"
                );
            }
            // Beyond it the ball leaves the body (unless the body is a sphere there).
            let centre = Point3::from(p.coords - u * (1.2 * rho));
            let dist = -signed_distance_point(&e, &pose, &centre).signed_distance;
            assert!(dist < 1.2 * rho * (1.0 - 1e-9) || e.aspect_ratio() < 1.0001);
        }
    }

    /// Against the depth of two spheres (exact: `r_A + r_B − |q|`) and of coaxial
    /// ellipsoids overlapping along a shared axis, where the bound is tight.
    #[test]
    fn bound_is_tight_at_the_optimum_and_below_the_depth_elsewhere() {
        let s = |r| Ellipsoid::sphere(r).unwrap();
        let at = |x: Real| Iso3::translation(x, 0.0, 0.0);
        let g = PairGeometry::new(&s(1.0), &at(0.0), &s(0.5), &at(1.2));
        let c = Vec3::x();
        let lb = depth_lower_bound(&g, 1.0, 0.5, &c).unwrap();
        assert!((lb - 0.3).abs() < 1e-12, "{lb}");
        // Along a tilted direction the bound is lower than the depth (and still valid).
        let tilted = Vec3::new(1.0, 0.3, 0.0).normalize();
        let lb = depth_lower_bound(&g, 1.0, 0.5, &tilted).unwrap_or(0.0);
        assert!((0.0..0.3).contains(&lb), "{lb}");
        // Flat sides of two ellipsoids stacked along z: depth 0.1, tangent balls
        // ρ_A = 0.5²/0.5 and ρ_B = 0.4²/0.4.
        let a = Ellipsoid::new([2.0, 2.0, 0.5]).unwrap();
        let b = Ellipsoid::new([1.5, 1.0, 0.4]).unwrap();
        let g = PairGeometry::new(&a, &Iso3::identity(), &b, &Iso3::translation(0.0, 0.0, 0.8));
        let lb = depth_lower_bound(&g, 0.5, 0.4, &Vec3::z()).unwrap();
        assert!((lb - 0.1).abs() < 1e-12, "{lb}");
        // Deeper (1.4) than the two tangent balls (0.9) together: no bound.
        let g = PairGeometry::new(
            &a,
            &Iso3::identity(),
            &b,
            &Iso3::translation(0.0, 0.0, -0.5),
        );
        assert_eq!(depth_lower_bound(&g, 0.5, 0.4, &Vec3::z()), None);
        // Separated along c: no bound.
        let g = PairGeometry::new(&a, &Iso3::identity(), &b, &Iso3::translation(0.0, 0.0, 1.0));
        assert_eq!(depth_lower_bound(&g, 0.5, 0.4, &Vec3::z()), None);
    }
}
