//! Candidate pairs of the initial interpenetration check (issue 16, "setup scales"):
//! particle pairs whose bounding spheres overlap strictly (`|c_i − c_j| < r_i + r_j`, radii
//! without the halo) and particle–obstacle pairs whose sphere meets the obstacle's box.
//!
//! The particle pairs come from the hierarchical grid of seed 001 ([`HGrid`], §2) in
//! O(n) expected time instead of all n²/2 pairs: the grid is searched with radii
//! inflated by [`INFLATE`] (relative) and its closed-overlap pairs are filtered with the
//! strict test, so the set is exactly the brute-force set whatever the rounding of the
//! grid's squared distances. [`brute_force`] is the reference the tests compare with.

use msdem_broadphase::{BroadPhase, HGrid, HGridConfig, Sphere};
use msdem_geom::math::Vec3;

/// Relative inflation of the radii searched in the grid: a superset of the strict pairs.
pub const INFLATE: f64 = 1e-9;

/// One side of a candidate pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Another particle, index > the first's.
    Particle(usize),
    /// An obstacle (index).
    Obstacle(usize),
}

/// A particle's bounding sphere for the check: centre \[m\], radius without halo \[m\].
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Centre \[m\].
    pub center: Vec3,
    /// Bounding radius about the centre of mass \[m\].
    pub radius: f64,
}

/// An obstacle's world box `(min, max)` \[m\].
pub type ObstacleBox = (Vec3, Vec3);

fn spheres_cross(a: &Bound, b: &Bound) -> bool {
    (a.center - b.center).norm() < a.radius + b.radius
}

fn meets_box(a: &Bound, o: &ObstacleBox) -> bool {
    let (c, r) = (a.center, a.radius);
    (0..3).all(|k| c[k] + r >= o.0[k] && c[k] - r <= o.1[k])
}

/// Every candidate pair, ordered by the first particle, then its particle partners
/// (ascending), then its obstacles (ascending) — the order of [`brute_force`]. Falls back
/// to [`brute_force`] when the grid refuses the input (a non-finite centre or radius,
/// which the later checks report).
pub fn candidates(bodies: &[Bound], obstacles: &[ObstacleBox]) -> Vec<(usize, Side)> {
    let spheres: Vec<Sphere> = bodies
        .iter()
        .map(|b| Sphere::new(b.center.into(), b.radius * (1.0 + INFLATE)))
        .collect();
    let mut pairs = Vec::new();
    let grid =
        HGrid::new(HGridConfig::default()).and_then(|mut g| g.find_pairs(&spheres, &mut pairs));
    if grid.is_err() {
        return brute_force(bodies, obstacles);
    }
    // `pairs` is sorted ascending by (i, j): merge it with the obstacles per particle.
    let mut out = Vec::new();
    let mut next = 0;
    for (i, b) in bodies.iter().enumerate() {
        while let Some(&(a, j)) = pairs.get(next) {
            if a as usize != i {
                break;
            }
            next += 1;
            if spheres_cross(b, &bodies[j as usize]) {
                out.push((i, Side::Particle(j as usize)));
            }
        }
        for (k, o) in obstacles.iter().enumerate() {
            if meets_box(b, o) {
                out.push((i, Side::Obstacle(k)));
            }
        }
    }
    out
}

/// The all-pairs reference of [`candidates`] (O(n²)).
pub fn brute_force(bodies: &[Bound], obstacles: &[ObstacleBox]) -> Vec<(usize, Side)> {
    let mut out = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        for (j, c) in bodies.iter().enumerate().skip(i + 1) {
            if spheres_cross(b, c) {
                out.push((i, Side::Particle(j)));
            }
        }
        for (k, o) in obstacles.iter().enumerate() {
            if meets_box(b, o) {
                out.push((i, Side::Obstacle(k)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn crowded(seed: u64, n: usize, spread: f64) -> Vec<Bound> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n)
            .map(|_| Bound {
                center: Vec3::from_fn(|_, _| rng.gen::<f64>() * spread),
                // Radii over two decades: several grid levels.
                radius: 0.01 * 10f64.powf(rng.gen::<f64>() * 2.0),
            })
            .collect()
    }

    #[test]
    fn grid_candidates_equal_brute_force_on_random_crowded_layouts() {
        let boxes = vec![
            (Vec3::new(-1.0, -1.0, -0.1), Vec3::new(2.0, 2.0, 0.0)),
            (Vec3::new(0.4, 0.4, 0.4), Vec3::new(0.6, 0.6, 0.6)),
        ];
        let mut total = 0;
        for seed in 0..12 {
            let spread = [0.5, 1.0, 3.0][seed as usize % 3];
            let bodies = crowded(seed, 700, spread);
            let fast = candidates(&bodies, &boxes);
            assert_eq!(fast, brute_force(&bodies, &boxes), "seed {seed}");
            total += fast.len();
        }
        assert!(total > 1000, "layouts not crowded: {total} pairs");
    }

    #[test]
    fn exactly_touching_spheres_are_no_candidates_and_nan_falls_back() {
        // Spheres that touch (distance = r_i + r_j) are allowed: strict test.
        let touching = [
            Bound {
                center: Vec3::zeros(),
                radius: 0.5,
            },
            Bound {
                center: Vec3::new(1.0, 0.0, 0.0),
                radius: 0.5,
            },
            Bound {
                center: Vec3::new(1.5, 0.0, 0.0),
                radius: 0.25,
            },
        ];
        assert_eq!(candidates(&touching, &[]), vec![(1, Side::Particle(2))]);
        let mut bad = touching.to_vec();
        bad[2].center.x = f64::NAN;
        assert_eq!(candidates(&bad, &[]), brute_force(&bad, &[]));
    }
}
