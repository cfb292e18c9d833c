//! HGrid vs linked cells across size ratios (seed 001 §5, Figs. 3 and 7): prints a table
//! and writes a PNG of broad-phase time per sphere against ω.
//!
//! `cargo run --release -p msdem-broadphase --example hgrid_vs_linked -- [N] [out.png]`
//! (defaults: N = 100000, `target/hgrid_vs_linked.png`). Axis labels and a legend are drawn
//! when `/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf` exists; otherwise the plot has no
//! text and the printed table is the reference. HGrid: circles and solid lines; linked
//! cells: crosses; α = 0 blue, −2 green, −3 red; ν = 0.3.

use msdem_broadphase::compare::{sweep, SweepRow};
use plotters::prelude::*;

const EXPONENTS: [f64; 3] = [0.0, -2.0, -3.0];
const RATIOS: [f64; 6] = [1.0, 2.0, 5.0, 10.0, 50.0, 100.0];
const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let count: usize = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let out = args
        .next()
        .unwrap_or_else(|| "target/hgrid_vs_linked.png".to_string());
    let rows = sweep(count, &EXPONENTS, &RATIOS, &[0.1, 0.3], 5, 42)?;
    println!(
        "N = {count}, {} rayon threads; times are the best of 5 queries",
        rayon::current_num_threads()
    );
    println!(
        "{:>5} {:>4} {:>5} {:>3} | {:>10} {:>8} {:>8} | {:>10} {:>8} | {:>7}",
        "nu", "a", "w", "L", "HG ns/sph", "HG test", "HG cell", "LC ns/sph", "LC test", "LC/HG"
    );
    for r in &rows {
        println!(
            "{:>5} {:>4} {:>5} {:>3} | {:>10.1} {:>8.2} {:>8.2} | {:>10.1} {:>8.1} | {:>7.2}",
            r.packing_fraction,
            r.exponent,
            r.size_ratio,
            r.levels,
            r.hgrid.seconds_per_sphere * 1e9,
            r.hgrid.tests_per_sphere,
            r.hgrid.cells_per_sphere,
            r.linked.seconds_per_sphere * 1e9,
            r.linked.tests_per_sphere,
            r.linked.seconds_per_sphere / r.hgrid.seconds_per_sphere,
        );
    }
    plot(&rows, &out)?;
    println!("plot written to {out}");
    Ok(())
}

fn plot(rows: &[SweepRow], path: &str) -> anyhow::Result<()> {
    let labels = match std::fs::read(FONT) {
        Ok(bytes) => {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        }
        Err(_) => false,
    };
    let rows: Vec<&SweepRow> = rows.iter().filter(|r| r.packing_fraction == 0.3).collect();
    let ns = |s: f64| s * 1e9;
    let ymax = rows
        .iter()
        .map(|r| ns(r.linked.seconds_per_sphere.max(r.hgrid.seconds_per_sphere)))
        .fold(1.0, f64::max);
    let ymin = rows
        .iter()
        .map(|r| ns(r.hgrid.seconds_per_sphere.min(r.linked.seconds_per_sphere)))
        .fold(f64::INFINITY, f64::min);

    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if labels {
        builder
            .caption(
                "broad phase time per sphere vs size ratio (nu = 0.3)",
                ("sans-serif", 22),
            )
            .x_label_area_size(45)
            .y_label_area_size(70);
    }
    let mut chart = builder.build_cartesian_2d(
        (0.9f64..120.0).log_scale(),
        (ymin * 0.5..ymax * 2.0).log_scale(),
    )?;
    if labels {
        chart
            .configure_mesh()
            .x_desc("size ratio w = r_max / r_min")
            .y_desc("ns per sphere")
            .draw()?;
    } else {
        chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    }
    let colours = [BLUE, GREEN, RED];
    for (k, &a) in EXPONENTS.iter().enumerate() {
        let colour = colours[k];
        let series: Vec<&&SweepRow> = rows.iter().filter(|r| r.exponent == a).collect();
        let hg: Vec<(f64, f64)> = series
            .iter()
            .map(|r| (r.size_ratio, ns(r.hgrid.seconds_per_sphere)))
            .collect();
        let lc: Vec<(f64, f64)> = series
            .iter()
            .map(|r| (r.size_ratio, ns(r.linked.seconds_per_sphere)))
            .collect();
        let line = chart.draw_series(LineSeries::new(hg.clone(), colour.stroke_width(3)))?;
        if labels {
            line.label(format!("HGrid a = {a}")).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
            });
        }
        chart.draw_series(hg.iter().map(|&p| Circle::new(p, 5, colour.filled())))?;
        let line = chart.draw_series(LineSeries::new(lc.clone(), colour.stroke_width(1)))?;
        if labels {
            line.label(format!("linked cells a = {a}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(1))
                });
        }
        chart.draw_series(lc.iter().map(|&p| Cross::new(p, 6, colour.stroke_width(2))))?;
    }
    if labels {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
