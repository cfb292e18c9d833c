//! Charts only implicit runs have: the triangle-pair checks of every Picard iteration as
//! stacked areas (seed 000 §6.5, Fig. 4: "the lowest layer illustrates the triangle
//! comparison count for the first iteration, the next layer for the second iteration and
//! so forth"), and the multiscale active-set activity per step (seed 000 Alg. 6:
//! widenings, narrowings, checks skipped by separation certificates).

use msdem_frames::StepStats;

use crate::plots::{step_series, Chart, Series};

/// Iteration layers drawn one by one; later iterations share the top layer.
const LAYERS: usize = 8;

/// The implicit-only charts of `steps` (at least `bin_steps` steps per plotted bin):
/// `checks_per_iteration` when any step iterated more than once, `active_sets` when any
/// step widened, narrowed or skipped a pair.
pub fn implicit_charts(steps: &[StepStats], bin_steps: usize) -> Vec<Chart> {
    let mut charts = Vec::new();
    let deepest = steps
        .iter()
        .map(|s| s.iteration_checks.len())
        .max()
        .unwrap_or(0);
    if deepest > 1 {
        let layers = deepest.min(LAYERS);
        // Layer k (1-based): the checks of iteration k; the top layer also those of every
        // later iteration.
        let stacked = (1..=layers)
            .map(|k| {
                let top = k == layers;
                let name = if top && deepest > layers {
                    format!("iterations {k}–{deepest}")
                } else {
                    format!("iteration {k}")
                };
                Series {
                    name,
                    points: steps
                        .iter()
                        .map(|s| {
                            let take = if top { usize::MAX } else { 1 };
                            let sum: u64 = s
                                .iteration_checks
                                .iter()
                                .skip(k - 1)
                                .take(take)
                                .map(|c| c.iter().sum::<u64>())
                                .sum();
                            (s.time, sum as f64)
                        })
                        .collect(),
                }
            })
            .collect();
        charts.push(Chart {
            stacked,
            ..Chart::over_time(
                "checks_per_iteration",
                "Triangle-pair checks per Picard iteration, stacked",
                "checks per step",
                bin_steps,
            )
        });
    }
    if steps
        .iter()
        .any(|s| s.unfolds > 0 || s.narrows > 0 || s.skipped > 0)
    {
        charts.push(Chart {
            lines: vec![
                step_series(steps, "widenings (unfolds)", |s| f64::from(s.unfolds)),
                step_series(steps, "narrowings", |s| f64::from(s.narrows)),
                step_series(steps, "checks skipped by certificates", |s| {
                    s.skipped as f64
                }),
            ],
            log_y: true,
            ..Chart::over_time(
                "active_sets",
                "Multiscale active sets per step",
                "count per step",
                bin_steps,
            )
        });
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(time: f64, iterations: &[u64]) -> StepStats {
        StepStats {
            time,
            iterations: iterations.len() as u32,
            iteration_checks: iterations.iter().map(|&c| vec![c, 1]).collect(),
            ..StepStats::default()
        }
    }

    #[test]
    fn layers_are_single_iterations_and_the_top_layer_holds_the_rest() {
        let deep: Vec<u64> = (1..=10).collect();
        let steps = vec![step(0.1, &[5, 3]), step(0.2, &deep)];
        let charts = implicit_charts(&steps, 1);
        assert_eq!(charts.len(), 1, "no multiscale activity → one chart");
        let c = &charts[0];
        assert!(c.lines.is_empty());
        assert_eq!(c.stacked.len(), LAYERS);
        assert_eq!(c.stacked[0].name, "iteration 1");
        assert_eq!(c.stacked[1].name, "iteration 2");
        assert_eq!(c.stacked[LAYERS - 1].name, "iterations 8–10");
        // Step 1: (5+1), then (3+1), then nothing.
        assert_eq!(c.stacked[0].points[0], (0.1, 6.0));
        assert_eq!(c.stacked[1].points[0], (0.1, 4.0));
        assert_eq!(c.stacked[2].points[0], (0.1, 0.0));
        assert_eq!(c.stacked[LAYERS - 1].points[0], (0.1, 0.0));
        // Step 2: layer 3 is iteration 3 (3+1); the top layer iterations 8, 9 and 10.
        assert_eq!(c.stacked[2].points[1], (0.2, 4.0));
        assert_eq!(c.stacked[LAYERS - 1].points[1], (0.2, (9 + 10 + 11) as f64));
        // The stack's total is every iteration's checks.
        let total: f64 = c.stacked.iter().map(|s| s.points[1].1).sum();
        assert_eq!(total, (1..=10).map(|i| i + 1).sum::<u64>() as f64);
    }

    #[test]
    fn explicit_runs_get_no_implicit_chart_and_activity_gets_its_own() {
        let explicit = vec![step(0.1, &[7]), step(0.2, &[9])];
        assert!(implicit_charts(&explicit, 1).is_empty());
        let mut busy = explicit.clone();
        busy[1].unfolds = 4;
        let charts = implicit_charts(&busy, 1);
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].stem, "active_sets");
        assert_eq!(charts[0].lines[0].points[1], (0.2, 4.0));
    }
}
