//! Seeded random ellipsoid sets for the scale tests and benchmarks (seed 002 §5).
//!
//! * [`table2`]: the setting of seed 002 §5.2, Table 2 — centres uniform in a cube sized
//!   for the number density `n = 1.25e-7` \[m⁻³\], radii uniform in \[0, 101\] m, here as
//!   equal-radii ellipsoids (spheres) so that the contact count has the sphere path as
//!   its exact reference.
//! * [`random_ellipsoids`]: tri-axial ellipsoids with random orientations and aspect
//!   ratios up to a given bound, at a given solid volume fraction.
//!
//! Same seed, same set, on every machine (Xoshiro256++, no platform-dependent maths).

use crate::error::EllipsoidError;
use crate::math::{Iso3, Quat, Real, Vec3};
use crate::shape::Ellipsoid;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Number density of seed 002 Table 2 \[m⁻³\].
pub const TABLE2_NUMBER_DENSITY: Real = 1.25e-7;

/// Largest radius of seed 002 Table 2 \[m\] (radii uniform in `[0, 101]`).
pub const TABLE2_MAX_RADIUS_M: Real = 101.0;

/// One posed ellipsoid of a scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PosedEllipsoid {
    /// The shape (semi-axes in its body frame).
    pub shape: Ellipsoid,
    /// Body → world pose.
    pub pose: Iso3,
}

/// A random ellipsoid set: `count` bodies whose largest semi-axis is uniform in
/// `[radius_min_m, radius_max_m]`, the other two that times a factor uniform in
/// `[1 / max_aspect, 1]` (so every aspect ratio is at most `max_aspect`), uniformly random
/// orientations (Shoemake's method), centres uniform in a cube sized so that the solid
/// volume over the cube volume is `volume_fraction` (overlaps counted twice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomSetSpec {
    /// Number of bodies.
    pub count: usize,
    /// Smallest value of the largest semi-axis \[m\].
    pub radius_min_m: Real,
    /// Largest value of the largest semi-axis \[m\].
    pub radius_max_m: Real,
    /// Largest aspect ratio (largest over smallest semi-axis) \[-\], ≥ 1.
    pub max_aspect: Real,
    /// Σ volumes / cube volume \[-\], > 0.
    pub volume_fraction: Real,
    /// Seed of the generator.
    pub seed: u64,
}

/// A uniformly distributed rotation from three uniforms (Shoemake 1992).
pub fn random_rotation(rng: &mut impl Rng) -> Quat {
    let (u1, u2, u3): (Real, Real, Real) = (rng.gen(), rng.gen(), rng.gen());
    let tau = 2.0 * std::f64::consts::PI;
    let (s, t) = ((1.0 - u1).sqrt(), u1.sqrt());
    let q = nalgebra::Quaternion::new(
        t * (tau * u3).cos(),
        s * (tau * u2).sin(),
        s * (tau * u2).cos(),
        t * (tau * u3).sin(),
    );
    Quat::from_quaternion(q)
}

/// The set of a [`RandomSetSpec`] and the cube's edge \[m\]. Errors name the bad field.
pub fn random_ellipsoids(
    spec: &RandomSetSpec,
) -> Result<(Vec<PosedEllipsoid>, Real), EllipsoidError> {
    let ok = spec.radius_min_m > 0.0
        && spec.radius_max_m >= spec.radius_min_m
        && spec.radius_max_m.is_finite()
        && spec.max_aspect >= 1.0
        && spec.max_aspect.is_finite()
        && spec.volume_fraction > 0.0
        && spec.volume_fraction.is_finite();
    if !ok {
        return Err(EllipsoidError::BadWorkload(format!("{spec:?}")));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed);
    let mut shapes = Vec::new();
    shapes
        .try_reserve_exact(spec.count)
        .map_err(|_| EllipsoidError::BadWorkload(format!("count {} too large", spec.count)))?;
    let mut volume = 0.0;
    for _ in 0..spec.count {
        let big = rng.gen_range(spec.radius_min_m..=spec.radius_max_m);
        let lo = 1.0 / spec.max_aspect;
        let mut radii = [
            big,
            big * rng.gen_range(lo..=1.0),
            big * rng.gen_range(lo..=1.0),
        ];
        // Which body axis is the long one is part of the randomness too.
        radii.rotate_left(rng.gen_range(0..3));
        let shape = Ellipsoid::new(radii)?;
        volume += shape.volume();
        shapes.push((shape, random_rotation(&mut rng)));
    }
    let edge = (volume / spec.volume_fraction).cbrt();
    let bodies = shapes
        .into_iter()
        .map(|(shape, rotation)| {
            let c = Vec3::new(rng.gen(), rng.gen(), rng.gen()) * edge;
            PosedEllipsoid {
                shape,
                pose: Iso3::from_parts(c.into(), rotation),
            }
        })
        .collect();
    Ok((bodies, edge))
}

/// Seed 002 Table 2's realisation for `count` bodies: centres uniform in a cube of edge
/// `(count / n)^(1/3)`, radii uniform in `[0, 101]` m (a radius drawn as exactly 0 is
/// replaced by the smallest positive `f64`), as spheres (equal semi-axes) with random
/// orientations — the rotation must not change the answer. Returns the bodies and the edge \[m\].
pub fn table2(count: usize, seed: u64) -> Result<(Vec<PosedEllipsoid>, Real), EllipsoidError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let edge = (count as Real / TABLE2_NUMBER_DENSITY).cbrt();
    let mut bodies = Vec::new();
    bodies
        .try_reserve_exact(count)
        .map_err(|_| EllipsoidError::BadWorkload(format!("count {count} too large")))?;
    for _ in 0..count {
        let c = Vec3::new(rng.gen(), rng.gen(), rng.gen()) * edge;
        let r = (rng.gen::<Real>() * TABLE2_MAX_RADIUS_M).max(Real::MIN_POSITIVE);
        bodies.push(PosedEllipsoid {
            shape: Ellipsoid::sphere(r)?,
            pose: Iso3::from_parts(c.into(), random_rotation(&mut rng)),
        });
    }
    Ok((bodies, edge))
}
