//! What the run log reports of the solver's run folder: counts from the manifest and the
//! statistics, the phase breakdown from the timings — read with `msdem_frames`' own
//! readers, so a damaged or foreign file is named, never guessed at.

use std::path::Path;

use msdem_frames::{
    manifest_path, read_record, stats_path, timings_path, RunManifest, StatsFile, TimingsFile,
    MANIFEST_MAGIC,
};

/// Particles and triangles of a run (from `run.msdem`).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCounts {
    /// Particles.
    pub particles: usize,
    /// Shapes.
    pub shapes: usize,
    /// Obstacles.
    pub obstacles: usize,
    /// Triangles of all particles (each particle counts its shape's mesh; ellipsoids 0).
    pub particle_triangles: u64,
    /// Output interval \[steps\].
    pub output_every: u32,
    /// Time step \[s\].
    pub dt: f64,
}

/// Totals over `stats.msdem`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepTotals {
    /// Completed steps.
    pub steps: u64,
    /// Simulated time at the end \[s\].
    pub time: f64,
    /// Merged contacts summed over the steps.
    pub contacts_total: u64,
    /// Most merged contacts in one step.
    pub contacts_max: u32,
    /// Most candidate pairs of the broad phase in one step.
    pub candidate_pairs_max: u32,
    /// Triangle-pair checks summed over steps and levels.
    pub checks: u64,
    /// Exact-kernel fallbacks.
    pub fallbacks: u64,
    /// Picard iterations summed over the steps (= steps for explicit runs).
    pub iterations: u64,
    /// Most Picard iterations in one step.
    pub iterations_max: u32,
    /// Steps whose Picard iterations did not converge.
    pub unconverged: u64,
}

/// Wall time of the solver's phases summed over the steps (`timings.msdem`) \[s\].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTotals {
    /// Steps timed.
    pub steps: usize,
    /// Broad phase.
    pub broad: f64,
    /// Narrow phase (tree traversal + triangle kernels).
    pub narrow: f64,
    /// Contact merging and forces.
    pub forces: f64,
    /// Integration.
    pub integrate: f64,
}

impl PhaseTotals {
    /// The four phases summed.
    pub fn sum(&self) -> f64 {
        self.broad + self.narrow + self.forces + self.integrate
    }
}

/// Reads `run.msdem` in `run_dir`.
pub fn model_counts(run_dir: &Path) -> Result<ModelCounts, String> {
    let m: RunManifest =
        read_record(&manifest_path(run_dir), &MANIFEST_MAGIC).map_err(|e| e.to_string())?;
    let particle_triangles = m
        .particles
        .iter()
        .map(|p| {
            m.shapes
                .get(p.shape as usize)
                .filter(|s| s.ellipsoid.is_none())
                .map_or(0, |s| u64::from(s.triangles))
        })
        .sum();
    Ok(ModelCounts {
        particles: m.particles.len(),
        shapes: m.shapes.len(),
        obstacles: m.obstacles.len(),
        particle_triangles,
        output_every: m.output_every,
        dt: m.dt,
    })
}

/// Reads `stats.msdem` in `run_dir` and sums it.
pub fn step_totals(run_dir: &Path) -> Result<StepTotals, String> {
    let stats: StatsFile = StatsFile::read(&stats_path(run_dir)).map_err(|e| e.to_string())?;
    let mut t = StepTotals::default();
    for s in &stats.steps {
        t.steps = s.step;
        t.time = s.time;
        t.contacts_total += u64::from(s.contacts);
        t.contacts_max = t.contacts_max.max(s.contacts);
        t.candidate_pairs_max = t.candidate_pairs_max.max(s.candidate_pairs);
        t.checks += s.checks_per_level.iter().sum::<u64>();
        t.fallbacks += s.fallbacks;
        t.iterations += u64::from(s.iterations);
        t.iterations_max = t.iterations_max.max(s.iterations);
        t.unconverged += u64::from(!s.converged);
    }
    Ok(t)
}

/// Reads `timings.msdem` in `run_dir` and sums each phase (in step order).
pub fn phase_totals(run_dir: &Path) -> Result<PhaseTotals, String> {
    let timings: TimingsFile =
        TimingsFile::read(&timings_path(run_dir)).map_err(|e| e.to_string())?;
    let mut t = PhaseTotals {
        steps: timings.steps.len(),
        ..PhaseTotals::default()
    };
    for p in &timings.steps {
        t.broad += p.broad;
        t.narrow += p.narrow;
        t.forces += p.forces;
        t.integrate += p.integrate;
    }
    Ok(t)
}
