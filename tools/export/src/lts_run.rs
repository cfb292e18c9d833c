//! The local time stepping statistics of a run (`lts.msdem`, `lts_timings.msdem`; crate
//! `msdem-frames`, module `lts`) lined up with the rows of `stats.msdem`, and the names of
//! their histogram bins (base-2 bins of counts, decade bins of the time step size relative
//! to the synchronisation interval: seed 004 §8, Figs. 6 and 16).

use std::collections::BTreeMap;

use msdem_frames::lts::{LtsPhaseTimes, LtsStepStats};
use msdem_frames::StepStats;

/// What `lts.msdem` and `lts_timings.msdem` hold: one entry per step, in step order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LtsRun {
    /// Statistics per synchronisation interval (= step).
    pub steps: Vec<LtsStepStats>,
    /// Wall time per phase of each step (same order as `steps`; empty when the run did not
    /// write `lts_timings.msdem`).
    pub timings: Vec<LtsPhaseTimes>,
}

/// One step's local time stepping record with its phase times (zero when not recorded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LtsRow<'a> {
    /// The interval's statistics.
    pub stats: &'a LtsStepStats,
    /// Its wall time per phase \[s\].
    pub wall: LtsPhaseTimes,
}

impl LtsRun {
    /// For every row of `steps`, the record with the same step number (`None` where
    /// `lts.msdem` has none, e.g. a step it lacks).
    pub fn aligned<'a>(&'a self, steps: &[StepStats]) -> Vec<Option<LtsRow<'a>>> {
        let index: BTreeMap<u64, usize> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.step, i))
            .collect();
        steps
            .iter()
            .map(|s| {
                index.get(&s.step).map(|&i| LtsRow {
                    stats: &self.steps[i],
                    wall: self.timings.get(i).copied().unwrap_or_default(),
                })
            })
            .collect()
    }

    /// Number of bins of the widest histogram `hist` picks (at least 1).
    pub fn bins(&self, hist: impl Fn(&LtsStepStats) -> &[u64]) -> usize {
        self.steps
            .iter()
            .map(|s| hist(s).len())
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// Range of base-2 bin `k` of a count ([`msdem_frames::lts::count_bin`]): `(lo, hi)`
/// inclusive — bin 0 is `(0, 0)`, bin 1 `(1, 1)`, bin 2 `(2, 3)`, bin 3 `(4, 7)`, …
pub fn count_range(k: usize) -> (u64, u64) {
    match k {
        0 => (0, 0),
        k if k >= 64 => (1 << 63, u64::MAX),
        k => (1 << (k - 1), (1u64 << k) - 1),
    }
}

/// Label of base-2 bin `k`: `"1"`, `"2-3"`, … with `sep` between the bounds.
pub fn count_label(k: usize, sep: &str) -> String {
    let (lo, hi) = count_range(k);
    if lo == hi {
        format!("{lo}")
    } else {
        format!("{lo}{sep}{hi}")
    }
}

/// Decade bin `k` of the time step size relative to the interval
/// ([`msdem_frames::lts::step_bin`]) as exponents `(a, b)`: `Δt/dt ∈ (10^a, 10^b]`, i.e.
/// `(−(k+1), −k)`; the last bin (15) also holds every smaller ratio.
pub fn step_decade(k: usize) -> (i32, i32) {
    let k = k as i32;
    (-(k + 1), -k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_frames::lts::{count_bin, step_bin};

    #[test]
    fn bin_ranges_match_the_solvers_binning() {
        for k in 0..20 {
            let (lo, hi) = count_range(k);
            assert_eq!(count_bin(lo), k, "lower end of bin {k}");
            assert_eq!(count_bin(hi), k, "upper end of bin {k}");
            if hi < u64::MAX {
                assert_eq!(count_bin(hi + 1), k + 1);
            }
        }
        assert_eq!(count_label(2, "_"), "2_3");
        assert_eq!(count_label(1, "_"), "1");
        for k in 0..15 {
            let (a, b) = step_decade(k);
            // Inside the decade, off its floating-point edges.
            assert_eq!(step_bin(10f64.powi(b) * 0.99), k, "just below 1e{b}");
            assert_eq!(step_bin(10f64.powi(a) * 1.01), k, "just above 1e{a}");
        }
    }

    #[test]
    fn records_line_up_by_step_number_not_position() {
        let rec = |step| LtsStepStats {
            step,
            sweeps: step as u32 * 10,
            ..LtsStepStats::default()
        };
        let lts = LtsRun {
            steps: vec![rec(2), rec(3)],
            timings: vec![LtsPhaseTimes {
                broad: 1.0,
                ..LtsPhaseTimes::default()
            }],
        };
        let steps: Vec<StepStats> = (1..=3)
            .map(|step| StepStats {
                step,
                ..StepStats::default()
            })
            .collect();
        let rows = lts.aligned(&steps);
        assert!(rows[0].is_none());
        assert_eq!(rows[1].unwrap().stats.sweeps, 20);
        assert_eq!(rows[1].unwrap().wall.broad, 1.0);
        assert_eq!(rows[2].unwrap().stats.sweeps, 30);
        assert_eq!(rows[2].unwrap().wall, LtsPhaseTimes::default(), "no timing");
        assert_eq!(lts.bins(|s| &s.cluster_sizes), 1, "at least one bin");
    }
}
