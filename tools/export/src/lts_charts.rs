//! Charts only local time stepping runs have (`lts.msdem`, seed 004 §8), in the binned
//! style of [`crate::plots`], one value per synchronisation interval (= step):
//! * `lts_clusters`: sweeps, clusters and active clusters (Def. 2.3; seed Figs. 4, 17);
//! * `lts_cluster_sizes`: active clusters by size, base-2 bins stacked (the histogram of
//!   seed Fig. 6 over time);
//! * `lts_step_sizes`: active clusters by time step size `Δt/dt`, decade bins stacked
//!   (seed Figs. 6/16);
//! * `lts_min_step`: the smallest step of an active cluster, log axis (Observation 4:
//!   a collapsing step shows here);
//! * `lts_rollbacks`: particles rolled back by consolidation (§4, Observation 2) and
//!   clusters that exchanged momentum;
//! * `lts_narrowing`: conservative-advancement iterations of the narrowing (§5), triangle
//!   checks and sequential-impulse sweeps (§6), log axis;
//! * `lts_phases`: wall time per phase, stacked (broad, clustering, time step size, narrow,
//!   collision, roll-over: the seed's §8.1 table), when `lts_timings.msdem` was written.

use msdem_frames::lts::LtsStepStats;
use msdem_frames::StepStats;

use crate::lts_run::{count_label, step_decade, LtsRow, LtsRun};
use crate::plots::{Chart, Series};

/// Histogram layers drawn one by one; larger bins share the top layer.
const LAYERS: usize = 8;

fn series(rows: &[(f64, LtsRow<'_>)], name: &str, f: impl Fn(&LtsRow<'_>) -> f64) -> Series {
    Series {
        name: name.to_string(),
        points: rows.iter().map(|(t, r)| (*t, f(r))).collect(),
    }
}

/// One stacked layer per bin of `hist` (at most [`LAYERS`]; the top layer also holds the
/// larger bins), named by `label` (for the top layer: its first bin's label and "+").
fn histogram_layers(
    rows: &[(f64, LtsRow<'_>)],
    width: usize,
    first: usize,
    hist: fn(&LtsStepStats) -> &[u64],
    label: impl Fn(usize) -> String,
) -> Vec<Series> {
    let width = width.max(first + 1);
    let layers = (width - first).min(LAYERS);
    (0..layers)
        .map(|j| {
            let k = first + j;
            let top = j + 1 == layers && first + layers < width;
            let name = if top {
                format!("{} and beyond", label(k))
            } else {
                label(k)
            };
            let take = if top { usize::MAX } else { 1 };
            series(rows, &name, |r| {
                hist(r.stats).iter().skip(k).take(take).sum::<u64>() as f64
            })
        })
        .collect()
}

/// The local time stepping charts of a run whose per-step statistics are `steps` (their
/// times are the x values), at least `bin_steps` steps per plotted bin. Steps without a
/// record in `lts` are left out of these charts.
pub fn lts_charts(steps: &[StepStats], lts: &LtsRun, bin_steps: usize) -> Vec<Chart> {
    let rows: Vec<(f64, LtsRow<'_>)> = steps
        .iter()
        .zip(lts.aligned(steps))
        .filter_map(|(s, r)| r.map(|r| (s.time, r)))
        .collect();
    let chart = |stem: &'static str, title: &str, y_label: &str| {
        Chart::over_time(stem, title, y_label, bin_steps)
    };
    let mut clusters = chart(
        "lts_clusters",
        "Local time stepping: clusters per interval",
        "count per interval",
    );
    clusters.lines = vec![
        series(&rows, "clusters (all sweeps)", |r| r.stats.clusters as f64),
        series(&rows, "active clusters", |r| r.stats.active_clusters as f64),
        series(&rows, "sweeps", |r| f64::from(r.stats.sweeps)),
    ];
    let mut sizes = chart(
        "lts_cluster_sizes",
        "Active clusters by size (particles), stacked",
        "active clusters per interval",
    );
    // Bin 0 (empty clusters) never occurs.
    sizes.stacked = histogram_layers(
        &rows,
        lts.bins(|s| &s.cluster_sizes),
        1,
        |s| &s.cluster_sizes,
        |k| format!("size {}", count_label(k, "–")),
    );
    let mut step_sizes = chart(
        "lts_step_sizes",
        "Active clusters by time step size / interval, stacked",
        "active clusters per interval",
    );
    step_sizes.stacked = histogram_layers(
        &rows,
        lts.bins(|s| &s.step_sizes),
        0,
        |s| &s.step_sizes,
        |k| {
            let (a, b) = step_decade(k);
            format!("step/interval in (1e{a}, 1e{b}]")
        },
    );
    let mut min_step = chart(
        "lts_min_step",
        "Smallest time step of an active cluster",
        "time step [s]",
    );
    min_step.lines = vec![series(&rows, "smallest step", |r| r.stats.min_step)];
    min_step.log_y = rows.iter().any(|(_, r)| r.stats.min_step > 0.0);
    let mut rollbacks = chart(
        "lts_rollbacks",
        "Rollbacks and collisions per interval",
        "count per interval",
    );
    rollbacks.lines = vec![
        series(&rows, "particles rolled back", |r| r.stats.rollbacks as f64),
        series(&rows, "clusters exchanging momentum", |r| {
            r.stats.collisions as f64
        }),
    ];
    let mut narrowing = chart(
        "lts_narrowing",
        "Narrowing and collision solver work per interval",
        "count per interval",
    );
    narrowing.lines = vec![
        series(&rows, "narrowing iterations", |r| {
            r.stats.narrowing_iterations as f64
        }),
        series(&rows, "narrowing triangle checks", |r| {
            r.stats.narrowing_checks as f64
        }),
        series(&rows, "contact points", |r| r.stats.contacts as f64),
        series(&rows, "sequential-impulse sweeps", |r| {
            r.stats.impulse_iterations as f64
        }),
    ];
    narrowing.log_y = rows.iter().any(|(_, r)| r.stats.narrowing_checks > 0);
    let mut charts = vec![clusters, sizes, step_sizes, min_step, rollbacks, narrowing];
    if !lts.timings.is_empty() {
        let mut phases = chart(
            "lts_phases",
            "Local time stepping: wall time per phase, stacked",
            "wall time [ms]",
        );
        let ms = |f: fn(&LtsRow<'_>) -> f64| move |r: &LtsRow<'_>| 1e3 * f(r);
        phases.stacked = vec![
            series(&rows, "broad phase", ms(|r| r.wall.broad)),
            series(&rows, "clustering", ms(|r| r.wall.clustering)),
            series(&rows, "time step size", ms(|r| r.wall.step_size)),
            series(&rows, "narrow phase", ms(|r| r.wall.narrow)),
            series(&rows, "collision", ms(|r| r.wall.collision)),
            series(&rows, "roll-over", ms(|r| r.wall.roll_over)),
        ];
        charts.push(phases);
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_layers_sum_to_the_histogram_total_and_fold_the_tail() {
        // 12 bins: layers 1..=7 one bin each, the 8th holds bins 8–11.
        let hist: Vec<u64> = (0..12).map(|k| k * k + 1).collect();
        let lts = LtsRun {
            steps: vec![LtsStepStats {
                step: 1,
                cluster_sizes: hist.clone(),
                ..LtsStepStats::default()
            }],
            timings: Vec::new(),
        };
        let steps = [StepStats {
            step: 1,
            time: 0.5,
            ..StepStats::default()
        }];
        let charts = lts_charts(&steps, &lts, 1);
        let sizes = charts
            .iter()
            .find(|c| c.stem == "lts_cluster_sizes")
            .unwrap();
        assert_eq!(sizes.stacked.len(), LAYERS);
        let total: f64 = sizes.stacked.iter().map(|s| s.points[0].1).sum();
        assert_eq!(
            total,
            hist[1..].iter().sum::<u64>() as f64,
            "bin 0 is left out"
        );
        let top = sizes.stacked.last().unwrap();
        assert_eq!(top.name, "size 128–255 and beyond");
        assert_eq!(top.points[0], (0.5, hist[8..].iter().sum::<u64>() as f64));
        assert!(
            charts.iter().all(|c| c.stem != "lts_phases"),
            "no timings, no phase chart"
        );
    }
}
