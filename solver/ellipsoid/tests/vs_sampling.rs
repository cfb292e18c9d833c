//! OpM, ellipsoid–triangle and ellipsoid–plane against brute-force sampling (proptest).
//!
//! Two independent brute forces:
//! * surface points: `n` Fibonacci directions `u` mapped to `R u` on each ellipsoid (and a
//!   barycentric grid on triangles); the sampled minimum distance is ≥ the true distance
//!   and exceeds it by at most the covering radii of the samples;
//! * support directions: `σ = −min_u Φ(u)` with `Φ(u) = h_A(u) + h_B(−u)` sampled on
//!   Fibonacci directions; the sample is ≤ the true signed distance, short of it by the
//!   second-order `ℓ δ²` for direction spacing `δ`.

mod common;

use common::fibonacci_sphere;
use msdem_ellipsoid::math::{Iso3, Point3, Quat, Real, Vec3};
use msdem_ellipsoid::{ellipsoid_plane, ellipsoid_triangle, opm, Ellipsoid, HalfSpace, Triangle};
use proptest::prelude::*;
use std::sync::OnceLock;

const SURFACE_SAMPLES: usize = 3000;
const DIRECTION_SAMPLES: usize = 40_000;

fn surface_dirs() -> &'static Vec<Vec3> {
    static D: OnceLock<Vec<Vec3>> = OnceLock::new();
    D.get_or_init(|| fibonacci_sphere(SURFACE_SAMPLES))
}

fn support_dirs() -> &'static Vec<Vec3> {
    static D: OnceLock<Vec<Vec3>> = OnceLock::new();
    D.get_or_init(|| fibonacci_sphere(DIRECTION_SAMPLES))
}

/// Covering radius of `n` Fibonacci points on the unit sphere, with margin.
fn covering(n: usize) -> Real {
    2.0 * (4.0 * std::f64::consts::PI / n as Real).sqrt()
}

fn surface_points(e: &Ellipsoid, pose: &Iso3) -> Vec<Point3> {
    let r = Vec3::from(e.radii());
    surface_dirs()
        .iter()
        .map(|u| pose * Point3::from(r.component_mul(u)))
        .collect()
}

fn min_pair_distance(p: &[Point3], q: &[Point3]) -> Real {
    let mut best = Real::INFINITY;
    for x in p {
        for y in q {
            best = best.min((x - y).norm_squared());
        }
    }
    best.sqrt()
}

fn sampled_signed(phi: impl Fn(&Vec3) -> Real) -> Real {
    -support_dirs()
        .iter()
        .map(phi)
        .fold(Real::INFINITY, Real::min)
}

/// As [`sampled_signed`], then two zoomed 41×41 tangent grids around the best direction
/// (radius `2ρ`, then `2ρ/20`): for the kinked `Φ` of a triangle the plain sample is
/// only first-order accurate.
fn refined_signed(phi: impl Fn(&Vec3) -> Real) -> (Real, Real) {
    let mut best =
        support_dirs()
            .iter()
            .map(|u| (phi(u), *u))
            .fold(
                (Real::INFINITY, Vec3::x()),
                |b, x| if x.0 < b.0 { x } else { b },
            );
    let mut radius = covering(DIRECTION_SAMPLES);
    for _ in 0..2 {
        let u0 = best.1;
        let helper = if u0.x.abs() < 0.6 {
            Vec3::x()
        } else {
            Vec3::y()
        };
        let e1 = u0.cross(&helper).normalize();
        let e2 = u0.cross(&e1);
        for i in -20..=20 {
            for j in -20..=20 {
                let u = (u0 + e1 * (radius * i as Real / 20.0) + e2 * (radius * j as Real / 20.0))
                    .normalize();
                let value = phi(&u);
                if value < best.0 {
                    best = (value, u);
                }
            }
        }
        radius /= 20.0;
    }
    (-best.0, radius * 20.0 / 20.0)
}

fn pose_strategy(half: Real) -> impl Strategy<Value = Iso3> {
    (
        -half..half,
        -half..half,
        -half..half,
        -3.2..3.2f64,
        -1.5..1.5f64,
        -3.2..3.2f64,
    )
        .prop_map(|(x, y, z, r, p, w)| {
            Iso3::from_parts(Vec3::new(x, y, z).into(), Quat::from_euler_angles(r, p, w))
        })
}

fn ellipsoid_strategy() -> impl Strategy<Value = Ellipsoid> {
    (0.2..1.0f64, 0.2..1.0f64, 0.2..1.0f64).prop_map(|(a, b, c)| Ellipsoid::new([a, b, c]).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        // Seeded: the same cases in every run (a failure reproduces; CI is deterministic).
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0002),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn opm_vs_sampling(a in ellipsoid_strategy(), b in ellipsoid_strategy(), pa in pose_strategy(1.5), pb in pose_strategy(1.5)) {
        let o = opm(&a, &pa, &b, &pb);
        prop_assert!(o.converged());
        let q = pb.translation.vector - pa.translation.vector;
        let support = sampled_signed(|u| a.support_value_world(&pa, u) + b.support_value_world(&pb, &-u));
        let ell = a.max_radius() + b.max_radius() + q.norm();
        let dir_tol = ell * 4.0 * std::f64::consts::PI / DIRECTION_SAMPLES as Real;
        // The support sample is a lower bound of the signed distance, close to it.
        prop_assert!(o.signed_distance >= support - 1e-9, "opm {} < support sample {}", o.signed_distance, support);
        prop_assert!(o.signed_distance <= support + dir_tol, "opm {} vs support sample {}", o.signed_distance, support);
        if o.signed_distance > 0.0 {
            let sampled = min_pair_distance(&surface_points(&a, &pa), &surface_points(&b, &pb));
            let tol = (a.max_radius() + b.max_radius()) * covering(SURFACE_SAMPLES);
            prop_assert!(o.signed_distance <= sampled + 1e-9, "opm {} > sampled {}", o.signed_distance, sampled);
            prop_assert!(o.signed_distance >= sampled - tol, "opm {} vs sampled {} tol {}", o.signed_distance, sampled, tol);
        }
        // Witness points on the surfaces, normal unit.
        prop_assert!(a.level(&pa.inverse_transform_point(&o.point_a)).abs() < 1e-9);
        prop_assert!(b.level(&pb.inverse_transform_point(&o.point_b)).abs() < 1e-9);
        prop_assert!((o.normal.norm() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn triangle_vs_sampling(
        a in ellipsoid_strategy(),
        pa in pose_strategy(0.3),
        v in proptest::array::uniform3((-1.6..1.6f64, -1.6..1.6f64, -1.6..1.6f64)),
    ) {
        let tri = Triangle::new(
            Point3::new(v[0].0, v[0].1, v[0].2),
            Point3::new(v[1].0, v[1].1, v[1].2),
            Point3::new(v[2].0, v[2].1, v[2].2),
        );
        let c = ellipsoid_triangle(&a, &pa, &tri);
        let (support, _spacing) = refined_signed(|u| a.support_value_world(&pa, u) + tri.support_value(&-u));
        if c.signed_distance > 0.0 {
            // Separated: exact.
            // (The support sample bounds it from below only: Φ's kinks make its grid error
            // hard to bound from above, so the upper check is the surface sampling below.)
            prop_assert!(c.signed_distance >= support - 1e-9, "tri {} < support sample {}", c.signed_distance, support);
            let n = 60;
            let mut grid = Vec::new();
            for i in 0..=n {
                for j in 0..=(n - i) {
                    let (s, t) = (i as Real / n as Real, j as Real / n as Real);
                    grid.push(tri.v[0] + (tri.v[1] - tri.v[0]) * s + (tri.v[2] - tri.v[0]) * t);
                }
            }
            let edge = (0..3).map(|k| (tri.v[(k + 1) % 3] - tri.v[k]).norm()).fold(0.0, Real::max);
            let sampled = min_pair_distance(&surface_points(&a, &pa), &grid);
            let tol = a.max_radius() * covering(SURFACE_SAMPLES) + edge / n as Real;
            prop_assert!(c.signed_distance <= sampled + 1e-9, "tri {} > sampled {}", c.signed_distance, sampled);
            prop_assert!(c.signed_distance >= sampled - tol);
        } else {
            // Overlapping: the reported depth is an estimate, never below the true
            // translational depth; the sampled value is also only an upper bound of that
            // depth (Φ is not convex on the sphere when overlapping), so neither bounds the
            // other and only sanity is asserted here (see `triangle.rs`).
            prop_assert!(c.signed_distance.is_finite() && c.signed_distance <= 0.0);
            prop_assert!(support.is_finite());
        }
        prop_assert!(a.level(&pa.inverse_transform_point(&c.point_a)).abs() < 1e-9);
    }

    #[test]
    fn plane_vs_sampling(a in ellipsoid_strategy(), pa in pose_strategy(1.0), n in (-1.0..1.0f64, -1.0..1.0f64, 0.2..1.0f64)) {
        let normal = Vec3::new(n.0, n.1, n.2).normalize();
        let plane = HalfSpace::new(&Point3::new(0.1, -0.2, 0.05), &normal).unwrap();
        let c = ellipsoid_plane(&a, &pa, &plane);
        let sampled = surface_points(&a, &pa).iter().map(|p| normal.dot(&p.coords) - plane.offset()).fold(Real::INFINITY, Real::min);
        let tol = a.max_radius() * covering(SURFACE_SAMPLES).powi(2);
        prop_assert!(c.signed_distance <= sampled + 1e-12);
        prop_assert!(c.signed_distance >= sampled - tol, "{} vs {}", c.signed_distance, sampled);
        prop_assert!((normal.dot(&c.point_b.coords) - plane.offset()).abs() < 1e-12);
    }
}

#[test]
fn triangle_face_contact_equals_the_plane_formula() {
    let a = Ellipsoid::new([0.5, 0.2, 0.3]).unwrap();
    let pose = Iso3::from_parts(
        Vec3::new(0.0, 0.0, 0.25).into(),
        Quat::from_euler_angles(0.4, 0.3, 0.1),
    );
    let tri = Triangle::new(
        Point3::new(-5.0, -5.0, 0.0),
        Point3::new(5.0, -5.0, 0.0),
        Point3::new(0.0, 5.0, 0.0),
    );
    let plane = HalfSpace::new(&Point3::origin(), &Vec3::z()).unwrap();
    let t = ellipsoid_triangle(&a, &pose, &tri);
    let p = ellipsoid_plane(&a, &pose, &plane);
    assert!(
        (t.signed_distance - p.signed_distance).abs() < 1e-12,
        "{} vs {}",
        t.signed_distance,
        p.signed_distance
    );
    assert!((t.normal - Vec3::z()).norm() < 1e-12);
    assert!((t.point_a - p.point_a).norm() < 1e-12);
}

#[test]
fn degenerate_triangles_do_not_produce_nan() {
    let a = Ellipsoid::new([0.5, 0.2, 0.3]).unwrap();
    let pose = Iso3::translation(0.0, 0.0, 1.0);
    let p = Point3::new(0.1, 0.2, 0.0);
    for tri in [
        Triangle::new(p, p, p),
        Triangle::new(p, Point3::new(1.0, 0.0, 0.0), Point3::new(2.0, -0.2, 0.0)),
        Triangle::new(p, p, Point3::new(1.0, 0.0, 0.0)),
    ] {
        let c = ellipsoid_triangle(&a, &pose, &tri);
        assert!(c.signed_distance.is_finite() && c.normal.iter().all(|x| x.is_finite()));
    }
    let point = ellipsoid_triangle(&a, &pose, &Triangle::new(p, p, p));
    let exact = msdem_ellipsoid::signed_distance_point(&a, &pose, &p).signed_distance;
    assert!((point.signed_distance - exact).abs() < 1e-12);
}
