//! Particle placement by the scenario's generators (`lattice`, `random_box`, `drop`; the
//! pattern generators `pairs`, `stack`, `ring` of seed 004 in [`pattern`]).
//!
//! Random placement draws centres uniformly in the box shrunk by the particle's bounding
//! sphere including its halo (radius `r + ε`), so every particle lies inside the box, and
//! accepts a centre only if that sphere is disjoint from every sphere placed before (listed
//! particles and earlier generators included) and farther than `r + ε + ε_obstacle` from every
//! obstacle triangle. All draws come from one seeded `Xoshiro256++` stream, consumed in
//! generator order, so the same scenario and seed give the same particles.

pub mod grid;
pub mod pairs;
pub mod pattern;
pub mod placed;
pub mod ring;
pub mod stack;

use msdem_geom::math::{Quat, Tri, Vec3};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Attempts per particle before random placement gives up.
pub const MAX_ATTEMPTS: u32 = 2000;

/// A placed sphere: centre \[m\] and radius including the halo \[m\].
#[derive(Clone, Copy, Debug)]
pub struct Sphere {
    /// Centre \[m\].
    pub center: Vec3,
    /// Radius incl. halo \[m\].
    pub radius: f64,
}

/// An obstacle as seen by placement: world triangles and halo.
#[derive(Clone, Debug)]
pub struct ObstacleSoup {
    /// World triangles \[m\].
    pub tris: Vec<Tri>,
    /// Per-triangle world AABB `(min, max)` \[m\].
    pub boxes: Vec<([f32; 3], [f32; 3])>,
    /// Halo width \[m\].
    pub epsilon: f64,
}

impl ObstacleSoup {
    /// Builds the placement view of world triangles.
    pub fn new(tris: Vec<Tri>, epsilon: f64) -> Self {
        let boxes = tris
            .iter()
            .map(|t| {
                let mut lo = t.v[0];
                let mut hi = t.v[0];
                for v in &t.v[1..] {
                    for k in 0..3 {
                        lo[k] = lo[k].min(v[k]);
                        hi[k] = hi[k].max(v[k]);
                    }
                }
                (lo, hi)
            })
            .collect();
        ObstacleSoup {
            tris,
            boxes,
            epsilon,
        }
    }

    /// True if the sphere comes closer than `sphere.radius + ε_obstacle` to a triangle.
    fn blocks(&self, s: &Sphere) -> bool {
        let reach = s.radius + self.epsilon;
        let c = [s.center.x as f32, s.center.y as f32, s.center.z as f32];
        // Generous f32 slack: placement only needs to be conservative.
        let reach32 = (reach * (1.0 + 1e-5)) as f32;
        self.tris.iter().zip(&self.boxes).any(|(t, (lo, hi))| {
            let outside = (0..3).any(|k| c[k] < lo[k] - reach32 || c[k] > hi[k] + reach32);
            !outside && {
                let (_, d2) = msdem_geom::kernel::closest_point_on_triangle(c, t);
                d2 <= reach32 * reach32
            }
        })
    }
}

/// A uniformly distributed random rotation (Shoemake's method).
pub fn random_rotation(rng: &mut Xoshiro256PlusPlus) -> Quat {
    let u1: f64 = rng.gen();
    let u2: f64 = rng.gen::<f64>() * std::f64::consts::TAU;
    let u3: f64 = rng.gen::<f64>() * std::f64::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let q = nalgebra::Quaternion::new(b * u3.cos(), a * u2.sin(), a * u2.cos(), b * u3.sin());
    Quat::from_quaternion(q)
}

/// Lattice positions: `origin + (i·sx, j·sy, k·sz)`, x fastest, then y, then z. The
/// caller has checked the count against the scenario's particle cap.
pub fn lattice_positions(origin: [f64; 3], spacing: [f64; 3], count: [u32; 3]) -> Vec<Vec3> {
    let total = msdem_scenario::limits::lattice_total(count).unwrap_or(0);
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    for k in 0..count[2] {
        for j in 0..count[1] {
            for i in 0..count[0] {
                out.push(Vec3::new(
                    origin[0] + f64::from(i) * spacing[0],
                    origin[1] + f64::from(j) * spacing[1],
                    origin[2] + f64::from(k) * spacing[2],
                ));
            }
        }
    }
    out
}

/// Why random placement failed.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaceError {
    /// The box is narrower than one particle's bounding sphere (incl. halo) on some axis.
    BoxTooSmall {
        /// Bounding radius incl. halo \[m\].
        radius: f64,
    },
    /// Only `placed` of the requested particles fitted.
    Crowded {
        /// Particles placed before giving up.
        placed: u32,
    },
}

/// Places `count` spheres of radius `radius` (incl. halo) at random in `[min, max]`,
/// disjoint from `existing` (which grows with every placed sphere) and from the obstacles.
/// Returns the centres. Earlier spheres are looked up in a [`grid::SphereGrid`], so a
/// placement costs O(1) expected instead of O(placed) with the same verdicts.
pub fn random_positions(
    rng: &mut Xoshiro256PlusPlus,
    count: u32,
    radius: f64,
    min: [f64; 3],
    max: [f64; 3],
    existing: &mut Vec<Sphere>,
    obstacles: &[ObstacleSoup],
) -> Result<Vec<Vec3>, PlaceError> {
    let lo = Vec3::new(min[0] + radius, min[1] + radius, min[2] + radius);
    let hi = Vec3::new(max[0] - radius, max[1] - radius, max[2] - radius);
    if (0..3).any(|k| lo[k] > hi[k]) {
        return Err(PlaceError::BoxTooSmall { radius });
    }
    // Reserve no more than what can be placed: the count is the user's.
    let mut out = Vec::with_capacity((count as usize).min(1 << 16));
    let mut grid = grid::SphereGrid::new(radius, existing);
    for placed in 0..count {
        let mut found = None;
        for _ in 0..MAX_ATTEMPTS {
            let c = Vec3::from_fn(|k, _| lo[k] + (hi[k] - lo[k]) * rng.gen::<f64>());
            let s = Sphere { center: c, radius };
            let free = grid.is_free(c, radius) && !obstacles.iter().any(|o| o.blocks(&s));
            if free {
                found = Some(s);
                break;
            }
        }
        match found {
            Some(s) => {
                grid.insert(s);
                existing.push(s);
                out.push(s.center);
            }
            None => return Err(PlaceError::Crowded { placed }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn random_positions_are_disjoint_inside_the_box_and_reproducible() {
        let run = || {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
            let mut existing = vec![Sphere {
                center: Vec3::new(0.5, 0.5, 0.5),
                radius: 0.2,
            }];
            let p = random_positions(&mut rng, 30, 0.05, [0.0; 3], [1.0; 3], &mut existing, &[])
                .unwrap();
            (p, existing)
        };
        let (p, all) = run();
        assert_eq!(p.len(), 30);
        assert_eq!(all.len(), 31);
        for (i, a) in all.iter().enumerate() {
            for k in 0..3 {
                assert!(a.center[k] - a.radius >= 0.0 && a.center[k] + a.radius <= 1.0);
            }
            for b in &all[i + 1..] {
                assert!((a.center - b.center).norm() > a.radius + b.radius);
            }
        }
        assert_eq!(run().0, p);
    }

    /// The all-pairs placement the grid replaced: the reference.
    fn brute_positions(seed: u64, count: u32, radius: f64, existing: &[Sphere]) -> Vec<Vec3> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut all = existing.to_vec();
        let (lo, hi) = (Vec3::repeat(radius), Vec3::repeat(1.0 - radius));
        let mut out = Vec::new();
        for _ in 0..count {
            for _ in 0..MAX_ATTEMPTS {
                let c = Vec3::from_fn(|k, _| lo[k] + (hi[k] - lo[k]) * rng.gen::<f64>());
                let free = all
                    .iter()
                    .all(|o| (o.center - c).norm_squared() > (o.radius + radius).powi(2));
                if free {
                    all.push(Sphere { center: c, radius });
                    out.push(c);
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn grid_placement_equals_the_all_pairs_placement() {
        // Earlier spheres of mixed sizes, one so large that it lives in the plain list.
        let existing = vec![
            Sphere {
                center: Vec3::new(0.5, 0.5, 0.5),
                radius: 0.3,
            },
            Sphere {
                center: Vec3::new(0.1, 0.9, 0.2),
                radius: 0.05,
            },
            Sphere {
                center: Vec3::new(0.9, 0.1, 0.8),
                radius: 0.0021,
            },
        ];
        for (seed, radius, count) in [(1, 0.004, 3000), (2, 0.01, 1500), (3, 0.03, 120)] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut all = existing.clone();
            let fast = random_positions(&mut rng, count, radius, [0.0; 3], [1.0; 3], &mut all, &[])
                .unwrap();
            assert_eq!(
                fast,
                brute_positions(seed, count, radius, &existing),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn overfull_box_and_tiny_box_are_refused() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        // Centres of radius-0.3 spheres lie in [0.3, 0.7]³, at most 0.4·√3 ≈ 0.69 apart:
        // a few fit (disjoint needs > 0.6), ten never do.
        let e = random_positions(&mut rng, 10, 0.3, [0.0; 3], [1.0; 3], &mut vec![], &[]);
        assert!(matches!(e, Err(PlaceError::Crowded { placed }) if (1..10).contains(&placed)));
        let e = random_positions(&mut rng, 1, 0.6, [0.0; 3], [1.0; 3], &mut vec![], &[]);
        assert_eq!(e, Err(PlaceError::BoxTooSmall { radius: 0.6 }));
    }

    #[test]
    fn obstacles_keep_their_distance() {
        let floor = vec![
            Tri::new([-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0]),
            Tri::new([-1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]),
        ];
        let soup = ObstacleSoup::new(floor, 0.05);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let p = random_positions(
            &mut rng,
            20,
            0.05,
            [-1.0, -1.0, -0.05],
            [1.0, 1.0, 0.3],
            &mut vec![],
            std::slice::from_ref(&soup),
        )
        .unwrap();
        assert!(p.iter().all(|c| c.z > 0.1 - 1e-6), "{p:?}");
    }

    #[test]
    fn lattice_order_is_x_fastest() {
        let p = lattice_positions([1.0, 2.0, 3.0], [0.5, 1.0, 2.0], [2, 2, 2]);
        assert_eq!(p.len(), 8);
        assert_eq!(p[1], Vec3::new(1.5, 2.0, 3.0));
        assert_eq!(p[2], Vec3::new(1.0, 3.0, 3.0));
        assert_eq!(p[4], Vec3::new(1.0, 2.0, 5.0));
    }

    #[test]
    fn random_rotations_are_unit_and_spread() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut mean = Vec3::zeros();
        for _ in 0..2000 {
            let q = random_rotation(&mut rng);
            assert!((q.norm() - 1.0).abs() < 1e-12);
            mean += q * Vec3::z();
        }
        // Uniform rotations send z to a uniform direction: the mean tends to 0.
        assert!((mean / 2000.0).norm() < 0.1, "{mean}");
    }
}
