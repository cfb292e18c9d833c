//! Plots of the per-step statistics (`stats.msdem`) as PNG: kinetic energy, contacts,
//! triangle-pair checks per tree level over time (stacked areas, as seed 000 §6 Fig. 4),
//! wall time per step per phase (stacked) and, for implicit runs, Picard iterations per
//! step (seed 000 §6.5 Table 5) with the charts of [`crate::implicit_charts`]; plus a
//! dashboard with every chart on one picture ([`dashboard`]).
//!
//! Runs have tens of thousands of steps and a plot a few hundred pixel columns, so the
//! steps are binned ([`crate::bins`]): one bin per output interval of the run, or more
//! steps per bin when that would give more bins than the image has columns. A quantity
//! drawn as a line shows the mean of every bin, over a shaded band from the bin's minimum
//! to its maximum (a single-step spike stays visible); stacked quantities show their bin
//! means stacked, with the band of their per-step total behind. Data are drawn only
//! inside the axes box ([`crate::canvas`] clips), non-negative quantities (counts, times)
//! on an axis that starts at 0.

use std::ops::Range;

use msdem_frames::{RunManifest, StatsFile, StepStats};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

use crate::bins::{bin_points, bin_size, Bin};
use crate::canvas::{Canvas, Rect, Span};
use crate::fonts::{text_available, FAMILY};
use crate::raster::Image;

/// Size of every plot \[px\].
pub const PLOT_SIZE: (u32, u32) = (900, 560);

/// One named quantity: `(x, y)` per step.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order (one per step).
    pub points: Vec<(f64, f64)>,
}

/// A chart to draw: quantities drawn as lines (bin mean over a min–max band) and/or
/// stacked areas (bin means, bottom layer first).
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
    /// Quantities drawn as the mean line of every bin over its min–max band.
    pub lines: Vec<Series>,
    /// Quantities stacked as areas (bottom first; all with the same steps), with the
    /// min–max band of their per-step sum.
    pub stacked: Vec<Series>,
    /// Logarithmic y axis (values ≤ 0 lie below it: bands reach its bottom edge, mean
    /// lines break).
    pub log_y: bool,
    /// The quantities are never negative: a linear y axis starts at 0.
    pub zero_based: bool,
    /// Steps per bin at least (the run's output interval).
    pub bin_steps: usize,
}

impl Chart {
    /// An empty chart over simulated time ([`TIME_LABEL`]) of non-negative quantities on a
    /// linear axis, at least `bin_steps` steps per plotted bin: callers add `lines` and/or
    /// `stacked` series and may switch `log_y`/`zero_based`.
    pub fn over_time(stem: &'static str, title: &str, y_label: &str, bin_steps: usize) -> Chart {
        Chart {
            stem,
            title: title.into(),
            x_label: TIME_LABEL.into(),
            y_label: y_label.into(),
            lines: Vec::new(),
            stacked: Vec::new(),
            log_y: false,
            zero_based: true,
            bin_steps,
        }
    }
}

/// The series `name` of one value `f(step)` per step, at the step's simulated time.
pub fn step_series(steps: &[StepStats], name: &str, f: impl Fn(&StepStats) -> f64) -> Series {
    Series {
        name: name.to_string(),
        points: steps.iter().map(|s| (s.time, f(s))).collect(),
    }
}

/// The x-axis description of every chart over simulated time.
pub const TIME_LABEL: &str = "simulated time [s]";

/// The charts of a run: `energy`, `contacts`, `checks_per_level`, `wall_time`, plus
/// `picard_iterations` when any step took more than one iteration (implicit runs) and the
/// charts of [`crate::implicit_charts::implicit_charts`].
pub fn run_charts(manifest: &RunManifest, stats: &StatsFile) -> Vec<Chart> {
    let steps = &stats.steps;
    let bin_steps = manifest.output_every.max(1) as usize;
    let chart = |stem: &'static str, title: &str, y_label: &str| {
        Chart::over_time(stem, title, y_label, bin_steps)
    };
    let mut energy = chart("energy", "Energy", "energy [J]");
    energy.lines = vec![step_series(steps, "kinetic", |s| s.kinetic_energy)];
    if steps.iter().any(|s| s.potential_energy != 0.0) {
        energy.lines.extend([
            step_series(steps, "potential", |s| s.potential_energy),
            step_series(steps, "kinetic + potential", |s| {
                s.kinetic_energy + s.potential_energy
            }),
        ]);
        // The potential energy's zero is arbitrary (height of the origin).
        energy.zero_based = false;
    }
    let mut contacts = chart("contacts", "Contacts per step", "count");
    contacts.lines = vec![
        step_series(steps, "merged contact points", |s| f64::from(s.contacts)),
        step_series(steps, "broad-phase candidate pairs", |s| {
            f64::from(s.candidate_pairs)
        }),
    ];
    let levels = steps
        .iter()
        .map(|s| s.checks_per_level.len())
        .max()
        .unwrap_or(0)
        .max(manifest.levels as usize);
    let mut checks = chart(
        "checks_per_level",
        "Triangle-pair checks per tree level, stacked",
        "checks per step",
    );
    checks.stacked = (0..levels)
        .map(|l| {
            // The last entry counts the fine–fine (real triangle) checks (`StepStats`).
            let name = if l + 1 == levels {
                "fine–fine".to_string()
            } else {
                format!("level {l}")
            };
            step_series(steps, &name, |s| {
                s.checks_per_level.get(l).copied().unwrap_or(0) as f64
            })
        })
        .collect();
    if steps.iter().any(|s| s.fallbacks > 0) {
        checks.lines = vec![step_series(steps, "exact fallbacks (not stacked)", |s| {
            s.fallbacks as f64
        })];
    }
    let mut wall = chart("wall_time", "Wall time per step", "wall time [ms]");
    let ms = |f: fn(&msdem_frames::PhaseTimes) -> f64| move |s: &StepStats| 1e3 * f(&s.wall);
    wall.lines = vec![
        step_series(steps, "broad phase", ms(|w| w.broad)),
        step_series(steps, "narrow phase", ms(|w| w.narrow)),
        step_series(steps, "forces", ms(|w| w.forces)),
        step_series(steps, "integration", ms(|w| w.integrate)),
        // Last: drawn over the phases (it is close to the narrow phase's line).
        step_series(
            steps,
            "total",
            ms(|w| w.broad + w.narrow + w.forces + w.integrate),
        ),
    ];
    // Wall-clock times spread over decades (a preempted step takes 100× the typical one):
    // a log axis keeps both visible. Without recorded timings (all 0), a linear one.
    wall.log_y = steps.iter().any(|s| s.wall.broad + s.wall.narrow > 0.0);
    let picard = steps.iter().any(|s| s.iterations > 1).then(|| {
        let mut c = chart(
            "picard_iterations",
            "Picard iterations per step",
            "iterations",
        );
        c.lines = vec![step_series(steps, "Picard iterations", |s| {
            f64::from(s.iterations)
        })];
        if steps.iter().any(|s| !s.converged) {
            let mut count = 0u32;
            c.lines.push(Series {
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
        c
    });
    let mut charts = vec![energy, contacts, checks, wall];
    charts.extend(picard);
    charts.extend(crate::implicit_charts::implicit_charts(steps, bin_steps));
    charts
}

/// Colours of the quantities (well separated on white, colour-blind friendly order).
const COLORS: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// Opacity of a line's min–max band.
const BAND_ALPHA: u8 = 64;
/// Opacity of a stacked layer.
const LAYER_ALPHA: u8 = 175;
/// Colour and opacity of the min–max band of a stack's total.
const ENVELOPE: ([u8; 3], u8) = ([40, 40, 40], 70);
/// Colour of the box around the axes.
const FRAME: [u8; 3] = [0, 0, 0];
/// Legend font size \[px\] and row height \[px\].
const LEGEND_FONT: u32 = 14;
const LEGEND_ROW: i32 = 19;
const LEGEND_PAD: i32 = 7;
const SWATCH: i32 = 24;

fn color(i: usize) -> [u8; 3] {
    COLORS[i % COLORS.len()]
}

/// Where the data of a rendered chart lie: the axes box and the ranges it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotFrame {
    /// The axes box; data are drawn only inside it. Its bottom row is the lower end of the
    /// y range (0 for non-negative quantities).
    pub rect: Rect,
    /// x range shown (left edge of the box to its right edge).
    pub x: Range<f64>,
    /// y range shown (bottom row to top row).
    pub y: Range<f64>,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Steps per bin.
    pub bin_steps: usize,
}

impl PlotFrame {
    /// Column coordinate of `x` \[px\] (the centre of the box's first column at `x.start`).
    pub fn px_x(&self, x: f64) -> f64 {
        let r = self.rect;
        let t = (x - self.x.start) / (self.x.end - self.x.start);
        f64::from(r.x0) + 0.5 + t * f64::from((r.width() - 1).max(0))
    }

    /// Row coordinate of `y` \[px\] (the centre of the box's bottom row at `y.start`); on a
    /// log axis, values ≤ 0 lie below the box.
    pub fn px_y(&self, y: f64) -> f64 {
        let r = self.rect;
        let t = if self.log_y {
            if y <= 0.0 {
                return f64::from(r.y1) + 1.0;
            }
            let (lo, hi) = (self.y.start.log10(), self.y.end.log10());
            (y.log10() - lo) / (hi - lo)
        } else {
            (y - self.y.start) / (self.y.end - self.y.start)
        };
        f64::from(r.y1) - 0.5 - t * f64::from((r.height() - 1).max(0))
    }
}

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
    if lo.is_finite() && hi.is_finite() && hi > lo {
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
    let r = if hi > lo {
        let pad = 0.04 * (hi - lo);
        (lo - pad)..(hi + pad)
    } else {
        let pad = if lo == 0.0 { 1.0 } else { 0.5 * lo.abs() };
        (lo - pad)..(hi + pad)
    };
    if r.start.is_finite() && r.end.is_finite() && r.end > r.start {
        r
    } else {
        0.0..1.0
    }
}

/// A stacked layer of one bin: its lower and upper edge.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layer {
    x_lo: f64,
    x_hi: f64,
    lower: f64,
    upper: f64,
}

/// A chart's series binned.
struct Binned {
    size: usize,
    lines: Vec<Vec<Option<Bin>>>,
    layers: Vec<Vec<Option<Layer>>>,
    total: Vec<Option<Bin>>,
}

fn bin_chart(chart: &Chart, max_bins: usize) -> Binned {
    let n = chart
        .lines
        .iter()
        .chain(&chart.stacked)
        .map(|s| s.points.len())
        .max()
        .unwrap_or(0);
    let size = bin_size(n, chart.bin_steps, max_bins);
    let lines = chart
        .lines
        .iter()
        .map(|s| bin_points(&s.points, size))
        .collect();
    let layer_bins: Vec<Vec<Option<Bin>>> = chart
        .stacked
        .iter()
        .map(|s| bin_points(&s.points, size))
        .collect();
    let nb = layer_bins.iter().map(Vec::len).max().unwrap_or(0);
    let mut layers = vec![vec![None; nb]; layer_bins.len()];
    for k in 0..nb {
        let Some(ext) = layer_bins.iter().find_map(|b| b.get(k).copied().flatten()) else {
            continue;
        };
        let mut acc = 0.0;
        for (layer, bins) in layers.iter_mut().zip(&layer_bins) {
            let m = bins.get(k).copied().flatten().map_or(0.0, |b| b.mean);
            layer[k] = Some(Layer {
                x_lo: ext.x_lo,
                x_hi: ext.x_hi,
                lower: acc,
                upper: acc + m,
            });
            acc += m;
        }
    }
    let total_points: Vec<(f64, f64)> = (0..if chart.stacked.is_empty() { 0 } else { n })
        .map(|i| {
            let mut x = f64::NAN;
            let mut y = 0.0;
            for s in &chart.stacked {
                if let Some(&(px, py)) = s.points.get(i) {
                    if x.is_nan() && px.is_finite() {
                        x = px;
                    }
                    if py.is_finite() {
                        y += py;
                    }
                }
            }
            (x, y)
        })
        .collect();
    Binned {
        size,
        lines,
        layers,
        total: bin_points(&total_points, size),
    }
}

/// Consecutive present items.
fn runs<T: Copy>(items: &[Option<T>]) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = Vec::new();
    let mut cur = Vec::new();
    for item in items {
        match item {
            Some(v) => cur.push(*v),
            None if !cur.is_empty() => out.push(std::mem::take(&mut cur)),
            None => {}
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Band vertices through a run of bins given as `(x_lo, x_hi, upper, lower)` values: one
/// at each bin centre, the first and last bins extended flat to their outer edges.
fn spans(frame: &PlotFrame, run: &[(f64, f64, f64, f64)]) -> Vec<Span> {
    let span = |x: f64, upper: f64, lower: f64| Span {
        x: frame.px_x(x),
        top: frame.px_y(upper),
        bottom: frame.px_y(lower),
    };
    let mut out = Vec::with_capacity(run.len() + 2);
    if let Some(&(lo, _, u, l)) = run.first() {
        out.push(span(lo, u, l));
    }
    for &(lo, hi, u, l) in run {
        out.push(span(0.5 * (lo + hi), u, l));
    }
    if let Some(&(_, hi, u, l)) = run.last() {
        out.push(span(hi, u, l));
    }
    out
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Swatch {
    /// Mean line over its band.
    Line,
    /// Stacked layer.
    Area,
    /// Min–max band of a stack's total.
    Envelope,
}

fn legend_entries(chart: &Chart) -> Vec<(String, [u8; 3], Swatch)> {
    let mut out = Vec::new();
    let off = chart.stacked.len();
    for (i, s) in chart.lines.iter().enumerate() {
        out.push((s.name.clone(), color(off + i), Swatch::Line));
    }
    for (l, s) in chart.stacked.iter().enumerate().rev() {
        out.push((s.name.clone(), color(l), Swatch::Area));
    }
    if !chart.stacked.is_empty() {
        out.push(("total: min–max".to_string(), ENVELOPE.0, Swatch::Envelope));
    }
    out
}

fn legend_columns(entries: usize) -> usize {
    if entries > 4 {
        2
    } else {
        1
    }
}

/// The y range of the binned data with room for the legend on top.
fn y_range(chart: &Chart, b: &Binned, headroom: f64) -> Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut see = |v: f64| {
        if v.is_finite() && (!chart.log_y || v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    };
    for bin in b.lines.iter().chain([&b.total]).flatten().flatten() {
        see(bin.min);
        see(bin.max);
        see(bin.mean);
    }
    for layer in b.layers.iter().flatten().flatten() {
        see(layer.upper);
        if !chart.log_y {
            see(layer.lower);
        }
    }
    let grow = headroom / (1.0 - headroom);
    if chart.log_y {
        if !(lo.is_finite() && hi.is_finite()) {
            return 1.0..10.0;
        }
        let (lo, hi) = (lo / 2.0, hi * 2.0);
        let top = hi * (hi / lo).powf(grow);
        if top.is_finite() && lo > 0.0 {
            lo..top
        } else {
            1.0..10.0
        }
    } else {
        let r = if chart.zero_based {
            if hi.is_finite() && hi > 0.0 {
                0.0..hi
            } else {
                0.0..1.0
            }
        } else {
            widen(lo, hi)
        };
        let top = r.end + (r.end - r.start) * grow;
        if top.is_finite() {
            r.start..top
        } else {
            r
        }
    }
}

type Failure = Box<dyn std::error::Error>;

/// Caption, axes, grid and tick labels (plotters); returns the axes box.
fn draw_axes<'a, X, Y>(
    root: &DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>,
    chart: &Chart,
    x_desc: &str,
    x: X,
    y: Y,
    text: bool,
) -> Result<Rect, Failure>
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
            .x_desc(x_desc)
            .y_desc(chart.y_label.as_str())
            .label_style((FAMILY, 14))
            .draw()?;
    }
    let (xr, yr) = ctx.plotting_area().get_pixel_range();
    Ok(Rect {
        x0: xr.start,
        y0: yr.start,
        x1: xr.end,
        y1: yr.end,
    })
}

/// The data: stacked layers with their total's band, then line bands, then mean lines.
fn draw_data(canvas: &mut Canvas, frame: &PlotFrame, b: &Binned) {
    for run in runs(&b.total) {
        let run: Vec<_> = run.iter().map(|t| (t.x_lo, t.x_hi, t.max, t.min)).collect();
        canvas.band(&spans(frame, &run), ENVELOPE.0, ENVELOPE.1, 0.0);
    }
    for (l, layer) in b.layers.iter().enumerate() {
        for run in runs(layer) {
            let run: Vec<_> = run
                .iter()
                .map(|t| (t.x_lo, t.x_hi, t.upper, t.lower))
                .collect();
            canvas.band(&spans(frame, &run), color(l), LAYER_ALPHA, 0.0);
        }
    }
    for (l, layer) in b.layers.iter().enumerate() {
        for run in runs(layer) {
            let run: Vec<_> = run
                .iter()
                .map(|t| (t.x_lo, t.x_hi, t.upper, t.upper))
                .collect();
            let pts: Vec<(f64, f64)> = spans(frame, &run).iter().map(|s| (s.x, s.top)).collect();
            canvas.polyline(&pts, color(l), 0.5);
        }
    }
    let off = b.layers.len();
    for (i, bins) in b.lines.iter().enumerate() {
        for run in runs(bins) {
            let run: Vec<_> = run.iter().map(|t| (t.x_lo, t.x_hi, t.max, t.min)).collect();
            canvas.band(&spans(frame, &run), color(off + i), BAND_ALPHA, 0.0);
        }
    }
    for (i, bins) in b.lines.iter().enumerate() {
        // On a log axis a mean ≤ 0 cannot be shown: the line breaks there.
        let shown: Vec<Option<Bin>> = bins
            .iter()
            .map(|bin| bin.filter(|t| !frame.log_y || t.mean > 0.0))
            .collect();
        for run in runs(&shown) {
            let run: Vec<_> = run
                .iter()
                .map(|t| (t.x_lo, t.x_hi, t.mean, t.mean))
                .collect();
            let pts: Vec<(f64, f64)> = spans(frame, &run).iter().map(|s| (s.x, s.top)).collect();
            canvas.polyline(&pts, color(off + i), 0.75);
        }
    }
}

/// The box around the axes, one pixel outside the data area.
fn draw_frame(rgb: &mut [u8], size: (u32, u32), r: Rect) {
    let full = Rect {
        x0: 0,
        y0: 0,
        x1: size.0 as i32,
        y1: size.1 as i32,
    };
    let mut c = Canvas::new(rgb, size.0, size.1, full);
    let line = |x0, y0, x1, y1| Rect { x0, y0, x1, y1 };
    for l in [
        line(r.x0 - 1, r.y0 - 1, r.x1 + 1, r.y0),
        line(r.x0 - 1, r.y1, r.x1 + 1, r.y1 + 1),
        line(r.x0 - 1, r.y0 - 1, r.x0, r.y1 + 1),
        line(r.x1, r.y0 - 1, r.x1 + 1, r.y1 + 1),
    ] {
        c.fill_rect(l, FRAME, 255);
    }
}

/// Legend in the upper right corner of the axes box (left out when it does not fit).
fn draw_legend(
    rgb: &mut [u8],
    size: (u32, u32),
    frame: &PlotFrame,
    entries: &[(String, [u8; 3], Swatch)],
    widths: &[i32],
) -> Result<(), Failure> {
    if entries.is_empty() {
        return Ok(());
    }
    let cols = legend_columns(entries.len());
    let rows = entries.len().div_ceil(cols) as i32;
    let col_w = widths.iter().copied().max().unwrap_or(0) + SWATCH + 8 + 14;
    let (w, h) = (
        cols as i32 * col_w + 2 * LEGEND_PAD - 14,
        rows * LEGEND_ROW + 2 * LEGEND_PAD,
    );
    let r = frame.rect;
    let (x, y) = (r.x1 - 8 - w, r.y0 + 8);
    if x < r.x0 + 4 || y + h > r.y1 - 4 {
        return Ok(());
    }
    let mut text_at = Vec::new();
    {
        let mut c = Canvas::new(rgb, size.0, size.1, r);
        let bx = Rect {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        };
        c.fill_rect(bx, [255, 255, 255], 255);
        for edge in [
            Rect { y1: y + 1, ..bx },
            Rect {
                y0: y + h - 1,
                ..bx
            },
            Rect { x1: x + 1, ..bx },
            Rect {
                x0: x + w - 1,
                ..bx
            },
        ] {
            c.fill_rect(edge, [110, 110, 110], 255);
        }
        for (k, (name, col, swatch)) in entries.iter().enumerate() {
            let (cx, cy) = (
                x + LEGEND_PAD + (k / rows as usize) as i32 * col_w,
                y + LEGEND_PAD + (k as i32 % rows) * LEGEND_ROW,
            );
            let mid = cy + LEGEND_ROW / 2;
            let sw = |y0: i32, y1: i32| Rect {
                x0: cx,
                y0,
                x1: cx + SWATCH,
                y1,
            };
            match swatch {
                Swatch::Line => {
                    c.fill_rect(sw(mid - 6, mid + 6), *col, BAND_ALPHA);
                    c.fill_rect(sw(mid - 1, mid + 1), *col, 255);
                }
                Swatch::Area => {
                    c.fill_rect(sw(mid - 6, mid + 6), *col, LAYER_ALPHA);
                    c.fill_rect(sw(mid - 6, mid - 5), *col, 255);
                }
                Swatch::Envelope => c.fill_rect(sw(mid - 6, mid + 6), *col, ENVELOPE.1),
            }
            text_at.push((name.as_str(), cx + SWATCH + 8, mid));
        }
    }
    let root = BitMapBackend::with_buffer(rgb, size).into_drawing_area();
    let style = TextStyle::from((FAMILY, LEGEND_FONT).into_font())
        .color(&BLACK)
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
    for (name, tx, ty) in text_at {
        root.draw_text(name, &style, (tx, ty))?;
    }
    root.present()?;
    Ok(())
}

/// Draws a chart into an RGB image of `size` (text only if the embedded font registered).
pub fn render_chart(chart: &Chart, size: (u32, u32)) -> Result<Image, String> {
    render_chart_framed(chart, size).map(|(img, _)| img)
}

/// As [`render_chart`], also returning where the data lie (for tests and overlays).
pub fn render_chart_framed(chart: &Chart, size: (u32, u32)) -> Result<(Image, PlotFrame), String> {
    let text = text_available();
    let (w, h) = size;
    let max_bins = (w as usize).saturating_sub(120).max(1);
    let binned = bin_chart(chart, max_bins);
    let entries = if text {
        legend_entries(chart)
    } else {
        Vec::new()
    };
    let headroom = if entries.is_empty() {
        0.05
    } else {
        let rows = entries.len().div_ceil(legend_columns(entries.len())) as f64;
        let legend = rows * f64::from(LEGEND_ROW) + f64::from(2 * LEGEND_PAD) + 16.0;
        (legend / (f64::from(h) - 130.0).max(1.0)).clamp(0.1, 0.6)
    };
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(x, _) in chart
        .lines
        .iter()
        .chain(&chart.stacked)
        .flat_map(|s| &s.points)
    {
        if x.is_finite() {
            (x0, x1) = (x0.min(x), x1.max(x));
        }
    }
    let xr = x_range(x0, x1);
    let yr = y_range(chart, &binned, headroom);
    let x_desc = if binned.size > 1 {
        format!(
            "{}   (bins of {} steps: mean, band = min–max)",
            chart.x_label, binned.size
        )
    } else {
        chart.x_label.clone()
    };
    let mut rgb = vec![255u8; 3 * w as usize * h as usize];
    let (rect, widths) = {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let rect = if chart.log_y {
            draw_axes(
                &root,
                chart,
                &x_desc,
                xr.clone(),
                yr.clone().log_scale(),
                text,
            )
        } else {
            draw_axes(&root, chart, &x_desc, xr.clone(), yr.clone(), text)
        }
        .map_err(|e| e.to_string())?;
        let font = TextStyle::from((FAMILY, LEGEND_FONT).into_font());
        let widths = entries
            .iter()
            .map(|e| root.estimate_text_size(&e.0, &font).map(|s| s.0 as i32))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
        (rect, widths)
    };
    let frame = PlotFrame {
        rect,
        x: xr,
        y: yr,
        log_y: chart.log_y,
        bin_steps: binned.size,
    };
    draw_data(&mut Canvas::new(&mut rgb, w, h, rect), &frame, &binned);
    draw_frame(&mut rgb, size, rect);
    draw_legend(&mut rgb, size, &frame, &entries, &widths).map_err(|e| e.to_string())?;
    Ok((
        Image {
            width: w,
            height: h,
            rgb,
        },
        frame,
    ))
}

/// Columns of the dashboard grid.
pub const DASHBOARD_COLUMNS: usize = 2;

/// One picture of `charts` (rendered images) in a grid of [`DASHBOARD_COLUMNS`] columns,
/// row by row in the given order, each cell the size of the largest image, on white.
pub fn dashboard(charts: &[Image]) -> Image {
    let cw = charts.iter().map(|i| i.width).max().unwrap_or(1).max(1);
    let ch = charts.iter().map(|i| i.height).max().unwrap_or(1).max(1);
    let cols = charts.len().clamp(1, DASHBOARD_COLUMNS);
    let rows = charts.len().div_ceil(cols).max(1);
    let (w, h) = (cw * cols as u32, ch * rows as u32);
    let mut rgb = vec![255u8; 3 * w as usize * h as usize];
    for (k, img) in charts.iter().enumerate() {
        let (ox, oy) = ((k % cols) as u32 * cw, (k / cols) as u32 * ch);
        let row = 3 * img.width as usize;
        for y in 0..img.height {
            let src = &img.rgb[y as usize * row..(y as usize + 1) * row];
            let at = 3 * ((oy + y) as usize * w as usize + ox as usize);
            rgb[at..at + row].copy_from_slice(src);
        }
    }
    Image {
        width: w,
        height: h,
        rgb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(levels: u32, output_every: u32) -> RunManifest {
        RunManifest {
            name: String::new(),
            dt: 1e-3,
            output_every,
            shapes: vec![],
            obstacles: vec![],
            particles: vec![],
            levels,
        }
    }

    #[test]
    fn checks_chart_stacks_one_layer_per_level() {
        let stats = StatsFile {
            steps: vec![StepStats {
                checks_per_level: vec![1, 2],
                ..Default::default()
            }],
        };
        let charts = run_charts(&manifest(4, 1), &stats);
        let checks = charts
            .iter()
            .find(|c| c.stem == "checks_per_level")
            .unwrap();
        assert!(!checks.log_y && checks.zero_based);
        let names: Vec<&str> = checks.stacked.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["level 0", "level 1", "level 2", "fine–fine"]);
        assert!(checks.lines.is_empty(), "no fallbacks, no fallback line");
        assert_eq!(checks.stacked[1].points, vec![(0.0, 2.0)]);
        assert_eq!(checks.stacked[3].points, vec![(0.0, 0.0)]);
        // One iteration per step (explicit): no Picard chart.
        assert!(charts.iter().all(|c| c.stem != "picard_iterations"));
    }

    #[test]
    fn picard_chart_appears_for_implicit_runs_and_counts_unconverged_steps() {
        let step = |n: u64, iterations: u32, converged: bool| StepStats {
            step: n,
            time: n as f64 * 1e-3,
            iterations,
            converged,
            ..Default::default()
        };
        let mut stats = StatsFile {
            steps: vec![step(1, 2, true), step(2, 7, true), step(3, 2, true)],
        };
        let charts = run_charts(&manifest(2, 1), &stats);
        let picard = charts
            .iter()
            .find(|c| c.stem == "picard_iterations")
            .unwrap();
        assert_eq!(picard.lines.len(), 1);
        let ys: Vec<f64> = picard.lines[0].points.iter().map(|p| p.1).collect();
        assert_eq!(ys, [2.0, 7.0, 2.0]);

        stats.steps[1].converged = false;
        stats.steps.push(step(4, 50, false));
        let charts = run_charts(&manifest(2, 1), &stats);
        let picard = charts
            .iter()
            .find(|c| c.stem == "picard_iterations")
            .unwrap();
        let total: Vec<f64> = picard.lines[1].points.iter().map(|p| p.1).collect();
        assert_eq!(total, [0.0, 1.0, 1.0, 2.0]);
        assert!(render_chart(picard, (300, 200)).is_ok());
    }

    /// 80,000 steps of noise with single-step spikes up and down, as a long run has.
    fn spiky_run() -> (RunManifest, StatsFile, [usize; 2]) {
        let (up, down) = (12_345, 54_321);
        let steps = (0..80_000usize)
            .map(|i| {
                let noise = (i * 7919 % 13) as u32;
                let mut s = StepStats {
                    step: i as u64 + 1,
                    time: (i + 1) as f64 * 5e-5,
                    contacts: noise,
                    candidate_pairs: 40 + noise,
                    checks_per_level: vec![u64::from(noise), 3 * u64::from(noise), 50],
                    kinetic_energy: 1.0 + f64::from(noise) * 0.01,
                    potential_energy: -5.0 + (i as f64) * 1e-5,
                    skipped: u64::from(noise) * 1000,
                    unfolds: noise % 3,
                    wall: msdem_frames::PhaseTimes {
                        broad: 1e-5,
                        narrow: 2e-5 * f64::from(noise),
                        forces: 1e-6,
                        integrate: 1e-6,
                    },
                    ..Default::default()
                };
                if i == up {
                    s.contacts = 500;
                    s.checks_per_level[2] = 90_000;
                    s.wall.narrow = 0.5;
                }
                if i == down {
                    s.candidate_pairs = 0;
                    s.potential_energy = -40.0;
                }
                s
            })
            .collect();
        (manifest(3, 400), StatsFile { steps }, [up, down])
    }

    /// Encodes and decodes again with the `png` decoder: the pixels a viewer shows.
    fn through_png(img: &Image) -> Vec<u8> {
        let bytes = crate::png_out::png_bytes(img).unwrap();
        let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (img.width, img.height));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        buf
    }

    fn px(rgb: &[u8], w: u32, x: i32, y: i32) -> [u8; 3] {
        let i = 3 * (y as usize * w as usize + x as usize);
        [rgb[i], rgb[i + 1], rgb[i + 2]]
    }

    /// Whether `p` shows `c` blended over white or a grey grid line: not grey, and its
    /// channels ordered as `c`'s where those differ clearly.
    fn tinted_by(p: [u8; 3], c: [u8; 3]) -> bool {
        let grey = p[0] == p[1] && p[1] == p[2];
        let pairs = [(0, 1), (1, 2), (0, 2)];
        !grey
            && pairs.iter().all(|&(i, j)| {
                let (ci, cj) = (i32::from(c[i]), i32::from(c[j]));
                (ci - cj).abs() < 40 || (ci > cj) == (p[i] > p[j])
            })
    }

    #[test]
    fn long_spiky_series_stay_inside_the_axes_and_bands_cover_their_extremes() {
        let (m, stats, [up, down]) = spiky_run();
        let charts = run_charts(&m, &stats);
        let stems: Vec<&str> = charts.iter().map(|c| c.stem).collect();
        assert_eq!(
            stems,
            [
                "energy",
                "contacts",
                "checks_per_level",
                "wall_time",
                "active_sets"
            ]
        );
        let (w, h) = PLOT_SIZE;
        for chart in &charts {
            let (img, frame) = render_chart_framed(chart, PLOT_SIZE).unwrap();
            let rgb = through_png(&img);
            assert_eq!(
                frame.bin_steps, 400,
                "{}: one bin per output interval",
                chart.stem
            );
            let r = frame.rect;
            assert!(r.width() > 600 && r.height() > 300, "{}: {r:?}", chart.stem);
            // Outside the axes box only text, ticks and the box itself: grey levels, no
            // colour of any quantity.
            let mut coloured_inside = 0;
            for y in 0..h as i32 {
                for x in 0..w as i32 {
                    let p = px(&rgb, w, x, y);
                    let neutral = p[0] == p[1] && p[1] == p[2];
                    if r.contains(x, y) {
                        coloured_inside += usize::from(!neutral);
                    } else {
                        assert!(neutral, "{}: {p:?} at ({x}, {y}) outside {r:?}", chart.stem);
                    }
                }
            }
            assert!(coloured_inside > 2_000, "{}: data drawn", chart.stem);
            if let Ok(dir) = std::env::var("MSDEM_PLOTS_KEEP") {
                let path = std::path::Path::new(&dir).join(format!("{}.png", chart.stem));
                std::fs::write(path, crate::png_out::png_bytes(&img).unwrap()).unwrap();
            }
            if chart.zero_based && !chart.log_y {
                assert_eq!(frame.y.start, 0.0, "{}", chart.stem);
                assert_eq!(
                    frame.px_y(0.0).floor() as i32,
                    r.y1 - 1,
                    "zero on the bottom row"
                );
            }
        }
        // The contacts spike (500 in one step of 400) reaches 500; the candidate-pair dip
        // to 0 reaches the zero line.
        let contacts = &charts[1];
        let (img, frame) = render_chart_framed(contacts, PLOT_SIZE).unwrap();
        let rgb = through_png(&img);
        let column = |step: usize| {
            let bin = step / 400 * 400;
            let x = 0.5 * (stats.steps[bin].time + stats.steps[bin + 399].time);
            frame.px_x(x).floor() as i32
        };
        let (xu, xd) = (column(up), column(down));
        let top = frame.px_y(500.0).floor() as i32;
        assert!(
            (top..top + 2).any(|y| tinted_by(px(&rgb, w, xu, y), COLORS[0])),
            "spike: {:?}",
            (top - 2..top + 3)
                .map(|y| px(&rgb, w, xu, y))
                .collect::<Vec<_>>()
        );
        assert!(
            !tinted_by(px(&rgb, w, xu, top - 3), COLORS[0]),
            "band ends at the maximum"
        );
        let zero = frame.px_y(0.0).floor() as i32;
        assert_eq!(zero, frame.rect.y1 - 1);
        // The zero row there is the contacts' band (their minimum is 0 too) with the
        // candidate pairs' band over it; away from the dip the candidate pairs (≥ 40) stay
        // far above the zero line.
        let (at_dip, away) = (px(&rgb, w, xd, zero), px(&rgb, w, xd - 30, zero));
        assert!(tinted_by(away, COLORS[0]), "{away:?}");
        assert_ne!(at_dip, away, "dip reaches 0");
        assert!(at_dip[0] > away[0] + 10, "orange over blue: {at_dip:?}");
        // The energy chart is not zero-based: its band reaches the potential-energy dip.
        let energy = &charts[0];
        let (img, frame) = render_chart_framed(energy, PLOT_SIZE).unwrap();
        assert!(
            frame.y.start < -40.0 && frame.y.start > -45.0,
            "{:?}",
            frame.y
        );
        let rgb = through_png(&img);
        let bin = down / 400 * 400;
        let x = frame.px_x(0.5 * (stats.steps[bin].time + stats.steps[bin + 399].time));
        let y = frame.px_y(-40.0).floor() as i32;
        assert!((y - 1..=y).any(|y| tinted_by(px(&rgb, w, x.floor() as i32, y), COLORS[1])));
    }

    #[test]
    fn stacked_layers_sum_to_the_mean_total_and_its_band_reaches_the_spike() {
        let (m, stats, [up, _]) = spiky_run();
        let charts = run_charts(&m, &stats);
        let checks = &charts[2];
        let binned = bin_chart(checks, 780);
        let top = binned.layers.last().unwrap();
        for (k, t) in binned.total.iter().enumerate() {
            let (t, l) = (t.unwrap(), top[k].unwrap());
            assert!((t.mean - l.upper).abs() < 1e-9 * t.mean, "bin {k}");
        }
        let spike = binned.total[up / 400].unwrap();
        assert!(spike.max >= 90_000.0);
        let (img, frame) = render_chart_framed(checks, PLOT_SIZE).unwrap();
        let rgb = through_png(&img);
        let x = frame.px_x(0.5 * (spike.x_lo + spike.x_hi)).floor() as i32;
        let y = frame.px_y(spike.max).floor() as i32;
        assert!(frame.rect.contains(x, y));
        let p = px(&rgb, PLOT_SIZE.0, x, y);
        assert!(
            p != [255; 3] && p[0] == p[1] && p[1] == p[2],
            "grey total band: {p:?}"
        );
    }

    #[test]
    fn empty_and_single_step_runs_draw_without_failing() {
        for steps in [
            vec![],
            vec![StepStats::default()],
            vec![StepStats {
                time: f64::NAN,
                kinetic_energy: f64::INFINITY,
                potential_energy: -1.0,
                unfolds: 1,
                ..Default::default()
            }],
        ] {
            let charts = run_charts(&manifest(0, 0), &StatsFile { steps });
            assert!(charts.len() >= 4);
            let images: Vec<Image> = charts
                .iter()
                .map(|c| render_chart(c, PLOT_SIZE).unwrap())
                .collect();
            for img in &images {
                assert_eq!(img.rgb.len(), 3 * 900 * 560);
            }
            let d = dashboard(&images);
            assert_eq!(d.width, 1800);
            assert_eq!(d.height, 560 * images.len().div_ceil(2) as u32);
            // Tiny images: no legend room, still no failure.
            assert!(render_chart(&charts[0], (40, 30)).is_ok());
            assert!(render_chart(&charts[0], (1, 1)).is_ok());
        }
    }

    #[test]
    fn dashboard_places_charts_row_by_row() {
        let img = |v: u8| Image {
            width: 4,
            height: 3,
            rgb: vec![v; 36],
        };
        let d = dashboard(&[img(1), img(2), img(3)]);
        assert_eq!((d.width, d.height), (8, 6));
        assert_eq!(d.pixel(0, 0), [1; 3]);
        assert_eq!(d.pixel(7, 2), [2; 3]);
        assert_eq!(d.pixel(3, 5), [3; 3]);
        assert_eq!(d.pixel(4, 3), [255; 3], "empty cell");
        assert_eq!(dashboard(&[]).rgb, vec![255; 3]);
    }

    #[test]
    fn ticks_print_compactly() {
        assert_eq!(tick(0.25, 1.0), "0.25");
        assert_eq!(tick(1e-12, 1.0), "0");
        assert_eq!(tick(2e6, 1e7), "2e6");
    }
}
