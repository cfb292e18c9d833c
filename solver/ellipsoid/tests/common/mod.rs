//! Shared helpers of the integration tests: seeded random ellipsoid pairs.
#![allow(dead_code)]

use msdem_ellipsoid::math::{Iso3, Quat, Real, Vec3};
use msdem_ellipsoid::Ellipsoid;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded RNG.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// A uniformly random rotation (Shoemake).
pub fn random_rotation(r: &mut impl Rng) -> Quat {
    let (u1, u2, u3): (Real, Real, Real) = (r.gen(), r.gen(), r.gen());
    let tau = 2.0 * std::f64::consts::PI;
    let q = nalgebra::Quaternion::new(
        (1.0 - u1).sqrt() * (tau * u2).sin(),
        (1.0 - u1).sqrt() * (tau * u2).cos(),
        u1.sqrt() * (tau * u3).sin(),
        u1.sqrt() * (tau * u3).cos(),
    );
    Quat::from_quaternion(q)
}

/// A random ellipsoid with semi-axes in `[lo, hi]`.
pub fn random_ellipsoid(r: &mut impl Rng, lo: Real, hi: Real) -> Ellipsoid {
    Ellipsoid::new([r.gen_range(lo..hi), r.gen_range(lo..hi), r.gen_range(lo..hi)]).unwrap()
}

/// A random pose with the centre in a cube of half-width `half`.
pub fn random_pose(r: &mut impl Rng, half: Real) -> Iso3 {
    let t = Vec3::new(
        r.gen_range(-half..half),
        r.gen_range(-half..half),
        r.gen_range(-half..half),
    );
    Iso3::from_parts(t.into(), random_rotation(r))
}

/// Fibonacci-sphere unit directions, `n` of them (near-uniform).
pub fn fibonacci_sphere(n: usize) -> Vec<Vec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as Real + 0.5) / n as Real;
            let r = (1.0 - z * z).sqrt();
            let th = golden * i as Real;
            Vec3::new(r * th.cos(), r * th.sin(), z)
        })
        .collect()
}
