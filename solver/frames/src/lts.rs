//! Statistics of the local time stepping integrators (seed 004; `integrator:
//! local_time_stepping` and `global_adaptive`): one [`LtsStepStats`] per step (= one
//! synchronisation interval of `time.dt`) in `OUT/lts.msdem` ([`LtsStatsFile`], magic
//! [`LTS_STATS_MAGIC`], path [`lts_stats_path`]), deterministic; the wall time per phase
//! (seed 004 §8.1 table) in `OUT/lts_timings.msdem` ([`LtsTimingsFile`], magic
//! [`LTS_TIMINGS_MAGIC`], path [`lts_timings_path`]). Both files exist only for runs of
//! those integrators, so the files of other runs — and of earlier builds — are unchanged.
//!
//! Histograms use base-2 bins for counts (bin `k` holds values in `[2^(k−1), 2^k)`, bin 0
//! the value 0 … see [`count_bin`]) and decade bins for time step sizes relative to the
//! interval (bin `k` holds `Δt/dt` in `(10^−(k+1), 10^−k]`, see [`step_bin`]).

use serde::{Deserialize, Serialize};

/// Magic of `lts.msdem`.
pub const LTS_STATS_MAGIC: [u8; 8] = *b"MSDEMLTS";
/// Magic of `lts_timings.msdem`.
pub const LTS_TIMINGS_MAGIC: [u8; 8] = *b"MSDEMLTT";

/// Path of `lts.msdem` in a run folder.
pub fn lts_stats_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("lts.msdem")
}

/// Path of `lts_timings.msdem` in a run folder.
pub fn lts_timings_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("lts_timings.msdem")
}

/// Bin of a count in a base-2 histogram: 0 → 0, 1 → 1, 2–3 → 2, 4–7 → 3, …
pub fn count_bin(n: u64) -> usize {
    (64 - n.leading_zeros()) as usize
}

/// Decade bin of a time step size relative to the interval, `r = Δt/dt ∈ (0, 1]`:
/// `(0.1, 1]` → 0, `(0.01, 0.1]` → 1, …; capped at 15.
pub fn step_bin(r: f64) -> usize {
    if r.is_nan() || r <= 0.0 {
        return 15;
    }
    let k = (-r.log10()).ceil() - 1.0;
    (k.max(0.0) as usize).min(15)
}

/// Adds one to bin `k` of `hist`, growing it as needed.
pub fn bump(hist: &mut Vec<u64>, k: usize) {
    if hist.len() <= k {
        hist.resize(k + 1, 0);
    }
    hist[k] += 1;
}

/// What the local time stepping did in one synchronisation interval (seed 004 §8: Figs.
/// 4, 6, 7, 16, 17).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LtsStepStats {
    /// Step number (as in `stats.msdem`).
    pub step: u64,
    /// Sweeps (the seed's "time steps": the six substeps once) in this interval.
    pub sweeps: u32,
    /// Clusters over all sweeps (incl. clusters already at the interval's end).
    pub clusters: u64,
    /// Active clusters over all sweeps (Def. 2.3).
    pub active_clusters: u64,
    /// Active clusters whose collision solve exchanged momentum (a non-zero impulse).
    pub collisions: u64,
    /// Particles rolled back in time by consolidation (§4, Observation 2).
    pub rollbacks: u64,
    /// Conservative-advancement iterations of the narrowing (§5).
    pub narrowing_iterations: u64,
    /// Triangle-pair kernel calls of the narrowing.
    pub narrowing_checks: u64,
    /// Merged contact points resolved by the collision solver.
    pub contacts: u64,
    /// Sequential-impulse sweeps (§6), summed over clusters.
    pub impulse_iterations: u64,
    /// Collision solves that did not meet their tolerance (after the fallback).
    pub impulse_unconverged: u32,
    /// Collision solves settled by the fallback, the convex relaxation of the Coulomb
    /// problem (issue 12): their sliding points may separate at `μ·|v_t|`.
    pub impulse_relaxed: u32,
    /// Largest violation of the exact contact conditions (seed 004 §6) left by any
    /// collision solve of the interval, in the outgoing velocities \[m/s\] (for a relaxed
    /// solve the normal separation of its sliding points).
    pub impulse_complementarity_m_s: f64,
    /// Smallest time step size of an active cluster \[s\] (0 without any).
    pub min_step: f64,
    /// Histogram of the sizes of active clusters (base-2 bins, [`count_bin`]).
    pub cluster_sizes: Vec<u64>,
    /// Histogram of the time step sizes of active clusters (decade bins of `Δt/dt`,
    /// [`step_bin`]).
    pub step_sizes: Vec<u64>,
    /// Histogram of contact points per colliding cluster (base-2 bins, [`count_bin`]).
    pub contacts_per_cluster: Vec<u64>,
}

/// Wall time per phase of one interval (seed 004 §8.1 table) \[s\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LtsPhaseTimes {
    /// Space-time broad phase: tubes, HGrid, hose checks.
    pub broad: f64,
    /// Clustering (union-find) and consolidation.
    pub clustering: f64,
    /// Time step size (narrowing over the surrogate trees) and masking.
    pub step_size: f64,
    /// Narrow phase: contacts of the active clusters at their new time stamps.
    pub narrow: f64,
    /// Collision: sequential impulses.
    pub collision: f64,
    /// Snapshot roll-over.
    pub roll_over: f64,
}

impl LtsPhaseTimes {
    /// Sum of all phases \[s\].
    pub fn total(&self) -> f64 {
        self.broad
            + self.clustering
            + self.step_size
            + self.narrow
            + self.collision
            + self.roll_over
    }

    /// Adds `o` phase by phase.
    pub fn add(&mut self, o: &LtsPhaseTimes) {
        self.broad += o.broad;
        self.clustering += o.clustering;
        self.step_size += o.step_size;
        self.narrow += o.narrow;
        self.collision += o.collision;
        self.roll_over += o.roll_over;
    }
}

/// `lts.msdem`: one entry per completed step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LtsStatsFile {
    /// Statistics per step, in step order.
    pub steps: Vec<LtsStepStats>,
}

/// `lts_timings.msdem`: one entry per completed step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LtsTimingsFile {
    /// Wall time per phase of each step, in step order.
    pub steps: Vec<LtsPhaseTimes>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_their_definition() {
        assert_eq!(count_bin(0), 0);
        assert_eq!(count_bin(1), 1);
        assert_eq!(count_bin(3), 2);
        assert_eq!(count_bin(4), 3);
        assert_eq!(step_bin(1.0), 0);
        assert_eq!(step_bin(0.11), 0);
        assert_eq!(step_bin(0.1), 0);
        assert_eq!(step_bin(0.05), 1);
        assert_eq!(step_bin(1e-20), 15);
        let mut h = Vec::new();
        bump(&mut h, 3);
        assert_eq!(h, vec![0, 0, 0, 1]);
    }

    #[test]
    fn lts_files_round_trip() {
        let file = LtsStatsFile {
            steps: vec![LtsStepStats {
                step: 3,
                sweeps: 7,
                cluster_sizes: vec![0, 4, 2],
                min_step: 1e-5,
                ..LtsStepStats::default()
            }],
        };
        let bytes = crate::encode(&LTS_STATS_MAGIC, &file);
        let back: LtsStatsFile =
            crate::decode(std::path::Path::new("lts.msdem"), &LTS_STATS_MAGIC, &bytes).unwrap();
        assert_eq!(back, file);
    }
}
