//! Plots of the per-step statistics (`stats.msdem`) as PNG: kinetic energy, contacts,
//! triangle-pair checks per tree level over time (log y, one line per level, as seed 000
//! §6 Fig. 4), wall time per step per phase and, for implicit runs, Picard iterations per
//! step (seed 000 §6.5 Table 5) with the charts of [`crate::implicit_charts`].

use std::ops::Range;

use msdem_frames::{RunManifest, StatsFile};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

use crate::fonts::{text_available, FAMILY};
use crate::raster::Image;

/// Size of every plot \[px\].
pub const PLOT_SIZE: (u32, u32) = (900, 560);

/// One named line: `(x, y)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Output file stem (`plots/<stem>.png`).
    pub stem: &'static str,
    /// Caption.
    pub title: String,
    /// x-axis description.
    pub x_label: String,
    /// y-axis description.
    pub y_label: String,
    /// Lines.
    pub series: Vec<Series>,
    /// Logarithmic y axis (non-positive values are left out, breaking the line).
    pub log_y: bool,
}

/// The charts of a run: `energy`, `contacts`, `checks_per_level`, `wall_time`, plus
/// `picard_iterations` when any step took more than one iteration (implicit runs).
pub fn run_charts(manifest: &RunManifest, stats: &StatsFile) -> Vec<Chart> {
    let steps = &stats.steps;
    let line = |name: &str, f: &dyn Fn(&msdem_frames::StepStats) -> f64| Series {
        name: name.to_string(),
        points: steps.iter().map(|s| (s.time, f(s))).collect(),
    };
    let time = "simulated time [s]".to_string();
    let mut energy = vec![line("kinetic", &|s| s.kinetic_energy)];
    if steps.iter().any(|s| s.potential_energy != 0.0) {
        energy.push(line("potential", &|s| s.potential_energy));
        energy.push(line("kinetic + potential", &|s| {
            s.kinetic_energy + s.potential_energy
        }));
    }
    let levels = steps
        .iter()
        .map(|s| s.checks_per_level.len())
        .max()
        .unwrap_or(0)
        .max(manifest.levels as usize);
    let mut checks: Vec<Series> = (0..levels)
        .map(|l| {
            // The last entry counts the fine–fine (real triangle) checks (`StepStats`).
            let name = if l + 1 == levels {
                "fine–fine".to_string()
            } else {
                format!("level {l}")
            };
            line(&name, &|s| {
                s.checks_per_level.get(l).copied().unwrap_or(0) as f64
            })
        })
        .collect();
    checks.push(line("exact fallbacks", &|s| s.fallbacks as f64));
    let ms = |f: fn(&msdem_frames::PhaseTimes) -> f64| {
        move |s: &msdem_frames::StepStats| 1e3 * f(&s.wall)
    };
    let picard = steps.iter().any(|s| s.iterations > 1).then(|| {
        let mut series = vec![line("Picard iterations", &|s| f64::from(s.iterations))];
        if steps.iter().any(|s| !s.converged) {
            let mut count = 0u32;
            series.push(Series {
                name: "steps not converged (running total)".into(),
                points: steps
                    .iter()
                    .map(|s| {
                        count += u32::from(!s.converged);
                        (s.time, f64::from(count))
                    })
                    .collect(),
            });
        }
        Chart {
            stem: "picard_iterations",
            title: "Picard iterations per step".into(),
            x_label: time.clone(),
            y_label: "iterations".into(),
            series,
            log_y: false,
        }
    });
    let mut charts = vec![
        Chart {
            stem: "energy",
            title: "Energy".into(),
            x_label: time.clone(),
            y_label: "energy [J]".into(),
            series: energy,
            log_y: false,
        },
        Chart {
            stem: "contacts",
            title: "Contacts per step".into(),
            x_label: time.clone(),
            y_label: "count".into(),
            series: vec![
                line("merged contact points", &|s| f64::from(s.contacts)),
                line("broad-phase candidate pairs", &|s| {
                    f64::from(s.candidate_pairs)
                }),
            ],
            log_y: false,
        },
        Chart {
            stem: "checks_per_level",
            title: "Triangle-pair checks per tree level".into(),
            x_label: time.clone(),
            y_label: "checks per step".into(),
            series: checks,
            log_y: true,
        },
        Chart {
            stem: "wall_time",
            title: "Wall time per step".into(),
            x_label: time,
            y_label: "wall time [ms]".into(),
            series: vec![
                line("broad phase", &ms(|w| w.broad)),
                line("narrow phase", &ms(|w| w.narrow)),
                line("forces", &ms(|w| w.forces)),
                line("integration", &ms(|w| w.integrate)),
                line(
                    "total",
                    &ms(|w| w.broad + w.narrow + w.forces + w.integrate),
                ),
            ],
            log_y: false,
        },
    ];
    charts.extend(picard);
    charts.extend(crate::implicit_charts::implicit_charts(steps));
    charts
}

/// Line colours (well separated on white, colour-blind friendly order).
const COLORS: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// Fraction of the plot height kept free above the data for the legend.
const HEADROOM: f64 = 0.3;

/// Compact tick labels: plain decimals for moderate magnitudes, exponent otherwise;
/// values below `1e-9 · span` (rounding noise of a zero tick) print as 0.
fn tick(v: f64, span: f64) -> String {
    let a = v.abs();
    if a <= 1e-9 * span {
        "0".to_string()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The x range: exactly the data, extended to 0 when the data start near it (time axes).
fn x_range(lo: f64, hi: f64) -> Range<f64> {
    if lo.is_finite() && hi > lo {
        let lo = if lo >= 0.0 && lo < 0.1 * hi { 0.0 } else { lo };
        lo..hi
    } else {
        widen(lo, hi)
    }
}

fn widen(lo: f64, hi: f64) -> Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    if hi > lo {
        let pad = 0.04 * (hi - lo);
        (lo - pad)..(hi + pad)
    } else {
        let pad = if lo == 0.0 { 1.0 } else { 0.5 * lo.abs() };
        (lo - pad)..(hi + pad)
    }
}

/// Runs of consecutive points the axis can show.
fn runs(points: &[(f64, f64)], log_y: bool) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for &(x, y) in points {
        let ok = x.is_finite() && y.is_finite() && (!log_y || y > 0.0);
        match (ok, out.last_mut()) {
            (true, Some(run)) => run.push((x, y)),
            (false, Some(run)) if !run.is_empty() => out.push(Vec::new()),
            _ => {}
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

/// At most this many points per drawn line; longer runs keep each bucket's extremes.
const MAX_POINTS: usize = 4000;

/// Reduces a run to at most [`MAX_POINTS`] points, keeping the minimum and maximum of each
/// bucket (in x order) so that spikes stay visible.
fn decimate(run: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if run.len() <= MAX_POINTS {
        return run;
    }
    let size = run.len().div_ceil(MAX_POINTS / 2);
    let mut out = Vec::with_capacity(MAX_POINTS);
    for bucket in run.chunks(size) {
        let by_y = |a: &&(f64, f64), b: &&(f64, f64)| a.1.total_cmp(&b.1);
        let lo = bucket.iter().enumerate().min_by(|a, b| by_y(&a.1, &b.1));
        let hi = bucket.iter().enumerate().max_by(|a, b| by_y(&a.1, &b.1));
        if let (Some((i, &p)), Some((j, &q))) = (lo, hi) {
            match i.cmp(&j) {
                std::cmp::Ordering::Less => out.extend([p, q]),
                std::cmp::Ordering::Greater => out.extend([q, p]),
                std::cmp::Ordering::Equal => out.push(p),
            }
        }
    }
    out
}

type Failure = Box<dyn std::error::Error>;

fn draw_lines<'a, X, Y>(
    root: &DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    chart: &Chart,
    x: X,
    y: Y,
    text: bool,
) -> Result<(), Failure>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut builder = ChartBuilder::on(root);
    builder.margin(16);
    if text {
        builder
            .caption(&chart.title, (FAMILY, 24))
            .x_label_area_size(48)
            .y_label_area_size(80);
    }
    let mut ctx = builder.build_cartesian_2d(x, y)?;
    if text {
        let span = |r: Range<f64>| (r.end - r.start).abs();
        let (xs, ys) = (span(ctx.x_range()), span(ctx.y_range()));
        ctx.configure_mesh()
            .x_label_formatter(&|v| tick(*v, xs))
            .y_label_formatter(&|v| tick(*v, ys))
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .label_style((FAMILY, 14))
            .draw()?;
    }
    for (i, s) in chart.series.iter().enumerate() {
        let (r, g, b) = COLORS[i % COLORS.len()];
        let color = RGBColor(r, g, b);
        for (k, run) in runs(&s.points, chart.log_y)
            .into_iter()
            .map(decimate)
            .enumerate()
        {
            let drawn = if run.len() == 1 {
                ctx.draw_series(run.into_iter().map(|p| Circle::new(p, 3, color.filled())))?
            } else {
                ctx.draw_series(LineSeries::new(run, color.stroke_width(2)))?
            };
            if k == 0 {
                drawn.label(s.name.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            }
        }
    }
    if text {
        ctx.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FAMILY, 14))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    Ok(())
}

/// Draws a chart into an RGB image of `size` (text only if the embedded font registered).
pub fn render_chart(chart: &Chart, size: (u32, u32)) -> Result<Image, String> {
    let text = text_available();
    let mut rgb = vec![0u8; 3 * size.0 as usize * size.1 as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let all = chart
            .series
            .iter()
            .flat_map(|s| runs(&s.points, chart.log_y))
            .flatten();
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for (_, y) in all {
            (y0, y1) = (y0.min(y), y1.max(y));
        }
        // The time axis spans every step, also those a log axis cannot show.
        for &(x, _) in chart.series.iter().flat_map(|s| &s.points) {
            if x.is_finite() {
                (x0, x1) = (x0.min(x), x1.max(x));
            }
        }
        let xr = x_range(x0, x1);
        let result = if chart.log_y {
            let (lo, hi) = if y0.is_finite() {
                let (lo, hi) = (y0 / 2.0, y1 * 2.0);
                (lo, hi * (hi / lo).powf(HEADROOM / (1.0 - HEADROOM)))
            } else {
                (1.0, 10.0)
            };
            draw_lines(&root, chart, xr, (lo..hi).log_scale(), text)
        } else {
            let r = widen(y0.min(0.0), y1);
            let top = r.end + (r.end - r.start) * HEADROOM / (1.0 - HEADROOM);
            draw_lines(&root, chart, xr, r.start..top, text)
        };
        result.map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(Image {
        width: size.0,
        height: size.1,
        rgb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_bounds_points_and_keeps_extremes() {
        let run: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, if i == 54_321 { 9e9 } else { (i % 97) as f64 }))
            .collect();
        let d = decimate(run);
        assert!(d.len() <= MAX_POINTS, "{}", d.len());
        assert!(d.contains(&(54_321.0, 9e9)));
        assert!(d.iter().any(|p| p.1 == 0.0));
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0), "x order kept");
    }

    #[test]
    fn log_axis_breaks_lines_at_non_positive_values() {
        let pts = [
            (0.0, 1.0),
            (1.0, 2.0),
            (2.0, 0.0),
            (3.0, 4.0),
            (4.0, f64::NAN),
        ];
        assert_eq!(
            runs(&pts, true),
            vec![vec![(0.0, 1.0), (1.0, 2.0)], vec![(3.0, 4.0)]]
        );
        assert_eq!(runs(&pts, false).concat().len(), 4);
    }

    #[test]
    fn checks_chart_has_one_line_per_level_on_a_log_axis() {
        let manifest = RunManifest {
            name: String::new(),
            dt: 1e-3,
            output_every: 1,
            shapes: vec![],
            obstacles: vec![],
            particles: vec![],
            levels: 4,
        };
        let stats = StatsFile {
            steps: vec![msdem_frames::StepStats {
                checks_per_level: vec![1, 2],
                ..Default::default()
            }],
        };
        let charts = run_charts(&manifest, &stats);
        let checks = charts
            .iter()
            .find(|c| c.stem == "checks_per_level")
            .unwrap();
        assert!(checks.log_y);
        let names: Vec<&str> = checks.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "level 0",
                "level 1",
                "level 2",
                "fine–fine",
                "exact fallbacks"
            ]
        );
        assert_eq!(checks.series[1].points, vec![(0.0, 2.0)]);
        assert_eq!(checks.series[3].points, vec![(0.0, 0.0)]);
        // One iteration per step (explicit): no Picard chart.
        assert!(charts.iter().all(|c| c.stem != "picard_iterations"));
    }

    #[test]
    fn picard_chart_appears_for_implicit_runs_and_counts_unconverged_steps() {
        let manifest = RunManifest {
            name: String::new(),
            dt: 1e-3,
            output_every: 1,
            shapes: vec![],
            obstacles: vec![],
            particles: vec![],
            levels: 2,
        };
        let step = |n: u64, iterations: u32, converged: bool| msdem_frames::StepStats {
            step: n,
            time: n as f64 * 1e-3,
            iterations,
            converged,
            ..Default::default()
        };
        let mut stats = StatsFile {
            steps: vec![step(1, 2, true), step(2, 7, true), step(3, 2, true)],
        };
        let charts = run_charts(&manifest, &stats);
        let picard = charts
            .iter()
            .find(|c| c.stem == "picard_iterations")
            .unwrap();
        assert_eq!(picard.series.len(), 1);
        let ys: Vec<f64> = picard.series[0].points.iter().map(|p| p.1).collect();
        assert_eq!(ys, [2.0, 7.0, 2.0]);

        stats.steps[1].converged = false;
        stats.steps.push(step(4, 50, false));
        let charts = run_charts(&manifest, &stats);
        let picard = charts
            .iter()
            .find(|c| c.stem == "picard_iterations")
            .unwrap();
        let total: Vec<f64> = picard.series[1].points.iter().map(|p| p.1).collect();
        assert_eq!(total, [0.0, 1.0, 1.0, 2.0]);
        assert!(render_chart(picard, (300, 200)).is_ok());
    }
}
