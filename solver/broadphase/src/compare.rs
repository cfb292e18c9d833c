//! Timing and work counts of one broad phase on one sphere set, for the HGrid vs linked
//! cells comparison (seed 001 §5, Figs. 3 and 7). Speed claims come from here and from the
//! criterion benchmarks, never from tests.

use crate::{BroadPhase, BroadPhaseError, Sphere};
use std::time::Instant;

/// Cost of one broad phase on one sphere set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurement {
    /// Best wall time of one query divided by the sphere count [s].
    pub seconds_per_sphere: f64,
    /// Sphere–sphere tests per sphere.
    pub tests_per_sphere: f64,
    /// Cell visits per sphere.
    pub cells_per_sphere: f64,
    /// Overlapping pairs found.
    pub pairs: usize,
}

/// Runs one warm-up query (which also plans automatic levels), then `repeats` timed
/// queries, keeping the fastest.
pub fn measure(
    bp: &mut dyn BroadPhase,
    spheres: &[Sphere],
    repeats: usize,
) -> Result<Measurement, BroadPhaseError> {
    let mut out = Vec::new();
    bp.find_pairs(spheres, &mut out)?;
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        bp.find_pairs(spheres, &mut out)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    let n = spheres.len().max(1) as f64;
    let stats = bp.stats();
    Ok(Measurement {
        seconds_per_sphere: best / n,
        tests_per_sphere: stats.sphere_tests as f64 / n,
        cells_per_sphere: stats.cell_visits as f64 / n,
        pairs: out.len(),
    })
}
