//! Seeded random body sets for the tests and the `gpu_ellipsoids` example.
//!
//! * [`table2_spheres`]: seed 002 Table 2 — centres uniform in a cube sized for a number
//!   density of 1.25e-7 m⁻³, radii U(0, 101] m, as ellipsoids with three equal semi-axes
//!   (random orientations, so the rotation code runs), no halo.
//! * [`random_ellipsoids`]: the same density, semi-axes U\[20, 100\] m each (aspect ratios
//!   up to 5), random orientations, a 2 m halo.

use crate::body::EllipsoidBody;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Number density of seed 002 Table 2 \[m⁻³\].
pub const TABLE2_DENSITY: f64 = 1.25e-7;

/// Uniformly random unit quaternion `(w, x, y, z)` (Shoemake's method), normalised.
pub fn random_orientation(rng: &mut impl Rng) -> [f64; 4] {
    let (u1, u2, u3): (f64, f64, f64) = (rng.gen(), rng.gen(), rng.gen());
    let tau = std::f64::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let q = [
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
        b * (tau * u3).cos(),
    ];
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    q.map(|x| x / n)
}

fn centre(rng: &mut impl Rng, edge: f64) -> [f64; 3] {
    [0, 1, 2].map(|_| rng.gen::<f64>() * edge)
}

fn edge_for(count: usize) -> f64 {
    (count as f64 / TABLE2_DENSITY).cbrt()
}

/// Seed 002 Table 2's sphere set as ellipsoids (see the module doc).
pub fn table2_spheres(count: usize, seed: u64) -> Vec<EllipsoidBody> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let edge = edge_for(count);
    (0..count)
        .map(|_| {
            let center_m = centre(&mut rng, edge);
            let r = 101.0 * (1.0 - rng.gen::<f64>());
            EllipsoidBody {
                center_m,
                orientation: random_orientation(&mut rng),
                semi_axes_m: [r; 3],
                halo_m: 0.0,
            }
        })
        .collect()
}

/// Random tri-axial ellipsoids at the Table 2 density (see the module doc).
pub fn random_ellipsoids(count: usize, seed: u64) -> Vec<EllipsoidBody> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed_e11f);
    let edge = edge_for(count);
    (0..count)
        .map(|_| {
            let center_m = centre(&mut rng, edge);
            EllipsoidBody {
                center_m,
                orientation: random_orientation(&mut rng),
                semi_axes_m: [0, 1, 2].map(|_| rng.gen_range(20.0..=100.0)),
                halo_m: 2.0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_valid_seeded_and_at_the_density() {
        for set in [table2_spheres(4000, 3), random_ellipsoids(4000, 3)] {
            crate::pack::validate(&set).unwrap();
            let edge = edge_for(set.len());
            assert!(set
                .iter()
                .all(|b| b.center_m.iter().all(|&x| (0.0..edge).contains(&x))));
        }
        assert_eq!(table2_spheres(50, 1), table2_spheres(50, 1));
        assert_ne!(table2_spheres(50, 1), table2_spheres(50, 2));
        assert!((edge_for(1000).powi(3) * TABLE2_DENSITY - 1000.0).abs() < 1e-6);
    }
}
