//! `pairs:` placement (seed 004 §8.1): pair `i` at height `origin.z + i·pitch`, its two
//! particles `separation` apart along x about `origin`'s x, y, each moving towards the
//! other with a speed drawn uniformly from `[min, max]` (left particle first).

use msdem_geom::math::{Quat, Vec3};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::placed::Placed;
use crate::scenario::PairsSpec;

/// The `2·count` particles of `spec`, pair by pair, the one at smaller x first.
pub fn place(spec: &PairsSpec, rng: &mut Xoshiro256PlusPlus) -> Vec<Placed> {
    let [lo, hi] = spec.speed_m_s;
    let mut speed = || if hi > lo { rng.gen_range(lo..=hi) } else { lo };
    let origin = Vec3::from(spec.origin);
    let half = Vec3::new(0.5 * spec.separation_m, 0.0, 0.0);
    let mut out = Vec::with_capacity(2 * spec.count as usize);
    for i in 0..spec.count {
        let centre = origin + Vec3::new(0.0, 0.0, f64::from(i) * spec.pitch_m);
        let (left, right) = (speed(), speed());
        out.push(Placed {
            position: centre - half,
            orientation: Quat::identity(),
            velocity: Vec3::new(left, 0.0, 0.0),
        });
        out.push(Placed {
            position: centre + half,
            orientation: Quat::identity(),
            velocity: Vec3::new(-right, 0.0, 0.0),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn spec(count: u32) -> PairsSpec {
        PairsSpec {
            shape: "ball".into(),
            material: "rock".into(),
            count,
            origin: [1.0, 2.0, 3.0],
            pitch_m: 0.25,
            separation_m: 0.8,
            speed_m_s: [0.5, 2.0],
        }
    }

    /// Every pair's relative velocity points along its line of centres, towards the
    /// partner; speeds lie in the range; pairs move on disjoint horizontal lines (their
    /// paths never cross); the same seed gives the same pairs.
    #[test]
    fn pairs_collide_head_on_on_their_own_lines() {
        let s = spec(50);
        let p = place(&s, &mut Xoshiro256PlusPlus::seed_from_u64(9));
        assert_eq!(p.len(), 100);
        let mut heights = Vec::new();
        for pair in p.chunks(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let line = b.position - a.position;
            assert!((line.norm() - s.separation_m).abs() < 1e-12);
            let closing = a.velocity - b.velocity;
            assert!(
                closing.cross(&line).norm() <= 1e-12 * closing.norm(),
                "along the line"
            );
            assert!(closing.dot(&line) > 0.0, "towards each other");
            for q in [a, b] {
                let speed = q.velocity.norm();
                assert!((0.5..=2.0).contains(&speed), "{speed}");
                assert!(q.velocity.y == 0.0 && q.velocity.z == 0.0);
                assert_eq!(q.position.z, a.position.z);
            }
            assert_eq!(a.position.y, 2.0);
            heights.push(a.position.z);
        }
        for w in heights.windows(2) {
            assert!(
                (w[1] - w[0] - s.pitch_m).abs() < 1e-12,
                "a pitch apart: paths never meet"
            );
        }
        let again = place(&s, &mut Xoshiro256PlusPlus::seed_from_u64(9));
        assert_eq!(again, p);
        let other = place(&s, &mut Xoshiro256PlusPlus::seed_from_u64(10));
        assert_ne!(other, p, "random speeds");
    }

    #[test]
    fn a_single_speed_is_used_as_is() {
        let s = PairsSpec {
            speed_m_s: [1.5, 1.5],
            ..spec(3)
        };
        let p = place(&s, &mut Xoshiro256PlusPlus::seed_from_u64(0));
        assert!(p.iter().all(|q| q.velocity.x.abs() == 1.5));
    }
}
