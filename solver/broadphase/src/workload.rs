//! Seeded random sphere sets for tests, benchmarks and the comparison example: power-law
//! radii (seed 001 §4, eq. 29) at random positions in a cube sized for a target packing
//! fraction (seed 001 §3, eqs. 6–8; no excluded volume, as in the paper's model).

use crate::Sphere;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A polydisperse random packing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackingSpec {
    /// Number of spheres.
    pub count: usize,
    /// Exponent α of the radius density `f(r) ∝ r^α` (0, −2, −3 in the paper).
    pub exponent: f64,
    /// Size ratio ω = r_max / r_min (≥ 1).
    pub size_ratio: f64,
    /// Packing fraction ν (total sphere volume / box volume).
    pub packing_fraction: f64,
    /// Smallest radius \[m\].
    pub min_radius: f64,
    /// Lower corner of the box \[m\].
    pub origin: [f64; 3],
    /// RNG seed.
    pub seed: u64,
}

impl Default for PackingSpec {
    fn default() -> Self {
        PackingSpec {
            count: 1000,
            exponent: -3.0,
            size_ratio: 10.0,
            packing_fraction: 0.3,
            min_radius: 0.01,
            origin: [0.0; 3],
            seed: 0,
        }
    }
}

/// Radius \[m\] at quantile `u ∈ [0, 1]` of the truncated power law `f(r) = C r^α` on
/// `[r_min, r_max]` (seed 001 eqs. 29–30), by inverting its CDF.
pub fn power_law_radius(u: f64, exponent: f64, r_min: f64, r_max: f64) -> f64 {
    if r_max <= r_min {
        return r_min;
    }
    let r = if (exponent + 1.0).abs() < 1e-12 {
        r_min * (r_max / r_min).powf(u)
    } else {
        let e = exponent + 1.0;
        let (a, b) = (r_min.powf(e), r_max.powf(e));
        (a + u * (b - a)).powf(1.0 / e)
    };
    r.clamp(r_min, r_max)
}

/// Cube edge \[m\] holding spheres of these radii at packing fraction `nu` (eq. 8).
pub fn box_edge(radii: impl Iterator<Item = f64>, nu: f64) -> f64 {
    let volume: f64 = radii
        .map(|r| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3))
        .sum();
    (volume / nu).cbrt()
}

/// Generates the packing: radii from the power law, centres uniform in the cube.
pub fn random_packing(spec: &PackingSpec) -> Vec<Sphere> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed);
    let r_max = spec.min_radius * spec.size_ratio;
    let radii: Vec<f64> = (0..spec.count)
        .map(|_| power_law_radius(rng.gen::<f64>(), spec.exponent, spec.min_radius, r_max))
        .collect();
    let edge = box_edge(radii.iter().copied(), spec.packing_fraction);
    radii
        .into_iter()
        .map(|r| {
            let mut c = spec.origin;
            for x in c.iter_mut() {
                *x += rng.gen::<f64>() * edge;
            }
            Sphere::new(c, r)
        })
        .collect()
}

/// Moves every sphere by a random displacement of at most `step` \[m\] per axis.
pub fn jiggle(spheres: &mut [Sphere], step: f64, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for s in spheres {
        for x in s.center.iter_mut() {
            *x += (2.0 * rng.gen::<f64>() - 1.0) * step;
        }
    }
}
