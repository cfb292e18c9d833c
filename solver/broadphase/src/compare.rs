//! Timing and work counts of one broad phase on one sphere set, for the HGrid vs linked
//! cells comparison (seed 001 §5, Figs. 3 and 7). Speed claims come from here and from the
//! criterion benchmarks, never from tests.

use crate::{BroadPhase, BroadPhaseError, Sphere};
use std::time::Instant;

/// Cost of one broad phase on one sphere set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurement {
    /// Best wall time of one query divided by the sphere count \[s\].
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

/// One case of the HGrid vs linked-cells sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepRow {
    /// Power-law exponent α.
    pub exponent: f64,
    /// Size ratio ω.
    pub size_ratio: f64,
    /// Packing fraction ν.
    pub packing_fraction: f64,
    /// Levels the automatic HGrid chose.
    pub levels: usize,
    /// HGrid cost.
    pub hgrid: Measurement,
    /// Linked-cells cost.
    pub linked: Measurement,
}

/// Measures HGrid (automatic levels) and linked cells on random packings of `count`
/// spheres for every (α, ω, ν) combination; `repeats` timed queries per case (linked cells
/// with more than 1000 tests per sphere are timed once, they are slow by design).
pub fn sweep(
    count: usize,
    exponents: &[f64],
    size_ratios: &[f64],
    packing_fractions: &[f64],
    repeats: usize,
    seed: u64,
) -> Result<Vec<SweepRow>, BroadPhaseError> {
    let mut rows = Vec::new();
    for &packing_fraction in packing_fractions {
        for &exponent in exponents {
            for &size_ratio in size_ratios {
                let spec = crate::workload::PackingSpec {
                    count,
                    exponent,
                    size_ratio,
                    packing_fraction,
                    seed,
                    ..Default::default()
                };
                let spheres = crate::workload::random_packing(&spec);
                let mut hg = crate::HGrid::new(crate::HGridConfig::default())?;
                let hgrid = measure(&mut hg, &spheres, repeats)?;
                let mut lc = crate::LinkedCells::new(None, 0.0)?;
                let mut out = Vec::new();
                lc.find_pairs(&spheres, &mut out)?;
                let expensive = lc.stats().sphere_tests > 1000 * count as u64;
                let linked = measure(&mut lc, &spheres, if expensive { 1 } else { repeats })?;
                if linked.pairs != hgrid.pairs {
                    return Err(BroadPhaseError::Config(format!(
                        "HGrid found {} pairs, linked cells {}",
                        hgrid.pairs, linked.pairs
                    )));
                }
                rows.push(SweepRow {
                    exponent,
                    size_ratio,
                    packing_fraction,
                    levels: hg.cell_sizes().len(),
                    hgrid,
                    linked,
                });
            }
        }
    }
    Ok(rows)
}
