//! Brute-force broad phase: tests every pair. O(N²); the reference for tests.

use crate::{validate, BroadPhase, BroadPhaseError, BroadPhaseStats, Sphere};

/// Tests all N(N−1)/2 pairs. Reference implementation and fallback for tiny scenes.
#[derive(Clone, Debug, Default)]
pub struct AllPairs {
    stats: BroadPhaseStats,
}

impl AllPairs {
    /// A new all-pairs broad phase.
    pub fn new() -> Self {
        AllPairs::default()
    }
}

impl BroadPhase for AllPairs {
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        out.clear();
        self.stats = BroadPhaseStats {
            rebuilt: true,
            ..Default::default()
        };
        validate(spheres)?;
        for (i, a) in spheres.iter().enumerate() {
            for (j, b) in spheres.iter().enumerate().skip(i + 1) {
                if crate::spheres_overlap(a, b) {
                    // Both indices fit u32: checked by `validate`.
                    out.push((i as u32, j as u32));
                }
            }
        }
        let n = spheres.len() as u64;
        self.stats.sphere_tests = n * n.saturating_sub(1) / 2;
        Ok(())
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }
}
