//! Analytic references: spheres, mass properties vs a tessellation, the seed's
//! sensitivities vs finite differences, Newton OpM vs the seed's gradient descent.

mod common;

use common::{random_ellipsoid, random_pose, rng};
use msdem_ellipsoid::math::{Iso3, Point3, Real, Vec2, Vec3};
use msdem_ellipsoid::sensitivity::{direction_in_frame, PairGeometry};
use msdem_ellipsoid::{opm, opm_gradient_descent, Ellipsoid, EllipsoidError};
use rand::Rng;

#[test]
fn equal_radii_reduce_to_the_sphere_formula() {
    let mut r = rng(7);
    for _ in 0..10_000 {
        let (ra, rb) = (r.gen_range(0.1..2.0), r.gen_range(0.1..2.0));
        let a = Ellipsoid::sphere(ra).unwrap();
        let b = Ellipsoid::sphere(rb).unwrap();
        let (pa, pb) = (random_pose(&mut r, 2.0), random_pose(&mut r, 2.0));
        let delta = pa.translation.vector - pb.translation.vector;
        let expected = delta.norm() - ra - rb;
        let o = opm(&a, &pa, &b, &pb);
        assert!(o.converged());
        assert!(
            (o.signed_distance - expected).abs() <= 1e-12,
            "{} vs {expected}",
            o.signed_distance
        );
        assert!((o.normal - delta.normalize()).norm() <= 1e-12);
        assert!(
            (o.point_a - (pa.translation.vector - delta.normalize() * ra))
                .coords
                .norm()
                <= 1e-12
        );
    }
}

#[test]
fn radii_are_validated() {
    assert!(matches!(
        Ellipsoid::new([1.0, -2.0, 1.0]),
        Err(EllipsoidError::BadRadius {
            axis: 1,
            name: 'b',
            ..
        })
    ));
    assert!(Ellipsoid::new([1.0, 1.0, Real::NAN]).is_err());
    assert!(Ellipsoid::new([0.0, 1.0, 1.0]).is_err());
    assert!(Ellipsoid::new([1.0, 1.0, Real::INFINITY]).is_err());
    let long = Ellipsoid::new([101.0, 1.0, 1.0]).unwrap();
    assert!(long.warning().is_some());
    assert!(Ellipsoid::new([100.0, 1.0, 1.0])
        .unwrap()
        .warning()
        .is_none());
    assert!(long.mass_properties(-1.0).is_err());
    let msg = Ellipsoid::new([1.0, 1.0, -3.0]).unwrap_err().to_string();
    assert!(msg.contains("-3") && msg.contains("semi-axis c"), "{msg}");
}

/// Volume, centroid and inertia of a closed triangulated surface by signed tetrahedra.
fn tessellated_mass(
    e: &Ellipsoid,
    n_theta: usize,
    n_phi: usize,
    density: Real,
) -> (Real, Vec3, [Real; 3]) {
    let pi = std::f64::consts::PI;
    let point = |i: usize, j: usize| -> Vec3 {
        let theta = 2.0 * pi * i as Real / n_theta as Real;
        let phi = -pi / 2.0 + pi * j as Real / n_phi as Real;
        e.surface_point(theta, phi).coords
    };
    let (mut vol, mut first, mut second) = (0.0, Vec3::zeros(), [0.0; 6]);
    let mut tet = |a: Vec3, b: Vec3, c: Vec3| {
        let v = a.dot(&b.cross(&c)) / 6.0;
        vol += v;
        first += (a + b + c) * (v / 4.0);
        // ∫ x_k x_l over the tetrahedron (0, a, b, c).
        let idx = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
        for (s, &(k, l)) in second.iter_mut().zip(idx.iter()) {
            let sum = a[k] * a[l] + b[k] * b[l] + c[k] * c[l];
            let all = (a[k] + b[k] + c[k]) * (a[l] + b[l] + c[l]);
            *s += v / 20.0 * (sum + all);
        }
    };
    for i in 0..n_theta {
        for j in 0..n_phi {
            let (p00, p10, p01, p11) = (
                point(i, j),
                point(i + 1, j),
                point(i, j + 1),
                point(i + 1, j + 1),
            );
            tet(p00, p10, p11);
            tet(p00, p11, p01);
        }
    }
    let m = density * vol;
    let (xx, yy, zz) = (
        second[0] * density,
        second[1] * density,
        second[2] * density,
    );
    (m, first / vol, [yy + zz, xx + zz, xx + yy])
}

#[test]
fn mass_properties_match_a_fine_tessellation() {
    for radii in [[3.0, 1.0, 2.0], [0.5, 0.5, 0.5], [1.0, 0.2, 0.7]] {
        let e = Ellipsoid::new(radii).unwrap();
        let mp = e.mass_properties(2500.0).unwrap();
        let (m, com, inertia) = tessellated_mass(&e, 600, 300, 2500.0);
        assert!((m - mp.mass).abs() / mp.mass < 1e-3, "{m} vs {}", mp.mass);
        assert!(com.norm() < 1e-3 * e.max_radius());
        #[allow(clippy::needless_range_loop)]
        for k in 0..3 {
            let rel = (inertia[k] - mp.principal_inertia[k]).abs() / mp.principal_inertia[k];
            assert!(
                rel < 1e-3,
                "{radii:?} axis {k}: {} vs {}",
                inertia[k],
                mp.principal_inertia[k]
            );
        }
        assert!((mp.volume - e.volume()).abs() < 1e-15 * mp.volume);
        assert_eq!(mp.center_of_mass, Point3::origin());
    }
}

#[test]
fn analytic_gradient_and_hessian_match_finite_differences() {
    let mut r = rng(11);
    let frame = [Vec3::x(), Vec3::y(), Vec3::z()];
    for _ in 0..200 {
        let a = random_ellipsoid(&mut r, 0.3, 1.5);
        let b = random_ellipsoid(&mut r, 0.3, 1.5);
        let geom = PairGeometry::new(&a, &random_pose(&mut r, 2.0), &b, &random_pose(&mut r, 2.0));
        let alpha = Vec2::new(r.gen_range(-3.0..3.0), r.gen_range(-1.3..1.3));
        let (c, c_a, c_aa) = direction_in_frame(&frame, &alpha);
        let s = geom.sensitivities(&c, &c_a, &c_aa);
        let f = |al: Vec2| geom.f(&direction_in_frame(&frame, &al).0);
        let grad_at = |al: Vec2| {
            let (c, c_a, c_aa) = direction_in_frame(&frame, &al);
            geom.sensitivities(&c, &c_a, &c_aa).grad
        };
        let h = 1e-6;
        for i in 0..2 {
            let mut e = Vec2::zeros();
            e[i] = h;
            let fd = (f(alpha + e) - f(alpha - e)) / (2.0 * h);
            assert!(
                (fd - s.grad[i]).abs() <= 1e-6 * (1.0 + s.grad.norm()),
                "grad {i}: {fd} vs {}",
                s.grad[i]
            );
            let fd_h = (grad_at(alpha + e) - grad_at(alpha - e)) / (2.0 * h);
            for j in 0..2 {
                assert!(
                    (fd_h[j] - s.hess[(j, i)]).abs() <= 1e-5 * (1.0 + s.hess.norm()),
                    "hess {j}{i}: {} vs {}",
                    fd_h[j],
                    s.hess[(j, i)]
                );
            }
        }
    }
}

#[test]
fn newton_matches_the_seed_gradient_descent() {
    let mut r = rng(5);
    let (mut compared, mut gd_unconverged) = (0, 0);
    while compared < 30 {
        let a = random_ellipsoid(&mut r, 0.3, 1.0);
        let b = random_ellipsoid(&mut r, 0.3, 1.0);
        let pa = Iso3::from_parts(Vec3::zeros().into(), common::random_rotation(&mut r));
        let pb = random_pose(&mut r, 2.5);
        let newton = opm(&a, &pa, &b, &pb);
        if newton.signed_distance <= 0.05 {
            continue;
        }
        let gd = opm_gradient_descent(&a, &pa, &b, &pb, 3_000);
        if !gd.converged() {
            gd_unconverged += 1;
            continue;
        }
        compared += 1;
        assert!(
            (gd.signed_distance - newton.signed_distance).abs() <= 1e-6,
            "gd {} newton {}",
            gd.signed_distance,
            newton.signed_distance
        );
        assert!((gd.normal - newton.normal).norm() <= 1e-4);
    }
    println!("compared {compared}, gradient descent unconverged {gd_unconverged}");
}
