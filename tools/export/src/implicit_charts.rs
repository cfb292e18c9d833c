//! Charts only implicit runs have: the triangle-pair checks of every Picard iteration,
//! stacked (seed 000 §6.5, Fig. 4: "the lowest layer illustrates the triangle comparison
//! count for the first iteration, the next layer for the second iteration and so forth"),
//! and the multiscale active-set activity per step (seed 000 Alg. 6: widenings,
//! narrowings, checks skipped by separation certificates).

use msdem_frames::StepStats;

use crate::plots::{Chart, Series};

/// Iteration layers drawn one by one; later iterations share the top layer.
const LAYERS: usize = 8;

/// The implicit-only charts of `steps`: `checks_per_iteration` when any step iterated more
/// than once, `active_sets` when any step widened, narrowed or skipped a pair.
pub fn implicit_charts(steps: &[StepStats]) -> Vec<Chart> {
    let time = "simulated time [s]".to_string();
    let mut charts = Vec::new();
    let deepest = steps
        .iter()
        .map(|s| s.iteration_checks.len())
        .max()
        .unwrap_or(0);
    if deepest > 1 {
        let layers = deepest.min(LAYERS);
        // Layer k: checks of iterations 1..=k summed (the last layer: all iterations).
        let series = (1..=layers)
            .map(|k| {
                let all = k == layers;
                let name = match (k, all && deepest > layers) {
                    (1, _) => "iteration 1".to_string(),
                    (_, true) => format!("iterations 1–{deepest}"),
                    _ => format!("iterations 1–{k}"),
                };
                Series {
                    name,
                    points: steps
                        .iter()
                        .map(|s| {
                            let upto = if all { usize::MAX } else { k };
                            let sum: u64 = s
                                .iteration_checks
                                .iter()
                                .take(upto)
                                .map(|c| c.iter().sum::<u64>())
                                .sum();
                            (s.time, sum as f64)
                        })
                        .collect(),
                }
            })
            .collect();
        charts.push(Chart {
            stem: "checks_per_iteration",
            title: "Triangle-pair checks per Picard iteration, stacked".into(),
            x_label: time.clone(),
            y_label: "checks per step (cumulative over iterations)".into(),
            series,
            log_y: false,
        });
    }
    if steps
        .iter()
        .any(|s| s.unfolds > 0 || s.narrows > 0 || s.skipped > 0)
    {
        let line = |name: &str, f: fn(&StepStats) -> f64| Series {
            name: name.to_string(),
            points: steps.iter().map(|s| (s.time, f(s))).collect(),
        };
        charts.push(Chart {
            stem: "active_sets",
            title: "Multiscale active sets per step".into(),
            x_label: time,
            y_label: "count per step".into(),
            series: vec![
                line("widenings (unfolds)", |s| f64::from(s.unfolds)),
                line("narrowings", |s| f64::from(s.narrows)),
                line("checks skipped by certificates", |s| s.skipped as f64),
            ],
            log_y: true,
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
    fn layers_stack_iterations_and_the_top_layer_holds_every_iteration() {
        let deep: Vec<u64> = (1..=10).collect();
        let steps = vec![step(0.1, &[5, 3]), step(0.2, &deep)];
        let charts = implicit_charts(&steps);
        assert_eq!(charts.len(), 1, "no multiscale activity → one chart");
        let c = &charts[0];
        assert_eq!(c.series.len(), LAYERS);
        assert_eq!(c.series[0].name, "iteration 1");
        assert_eq!(c.series[1].name, "iterations 1–2");
        assert_eq!(c.series[LAYERS - 1].name, "iterations 1–10");
        // Step 1: (5+1), then (5+1)+(3+1) from layer 2 on.
        assert_eq!(c.series[0].points[0], (0.1, 6.0));
        assert_eq!(c.series[1].points[0], (0.1, 10.0));
        assert_eq!(c.series[LAYERS - 1].points[0], (0.1, 10.0));
        // Step 2: layer k sums iterations 1..k; the top layer all ten.
        assert_eq!(
            c.series[2].points[1],
            (0.2, (1..=3).map(|i| i + 1).sum::<u64>() as f64)
        );
        let all: u64 = (1..=10).map(|i| i + 1).sum();
        assert_eq!(c.series[LAYERS - 1].points[1], (0.2, all as f64));
    }

    #[test]
    fn explicit_runs_get_no_implicit_chart_and_activity_gets_its_own() {
        let explicit = vec![step(0.1, &[7]), step(0.2, &[9])];
        assert!(implicit_charts(&explicit).is_empty());
        let mut busy = explicit.clone();
        busy[1].unfolds = 4;
        let charts = implicit_charts(&busy);
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].stem, "active_sets");
        assert_eq!(charts[0].series[0].points[1], (0.2, 4.0));
    }
}
