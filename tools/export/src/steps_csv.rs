//! Per-step statistics as CSV (`plots/steps.csv`), for spreadsheets, pandas or gnuplot:
//! one header line, one row per time step, comma-separated, `.`-decimal, no quoting
//! needed (every field is a number or `true`/`false`).
//!
//! Columns: `step, time [s], iterations, converged, candidate_pairs, contacts,
//! checks_total, fallbacks, unfolds, narrows, skipped, kinetic_energy [J],
//! potential_energy [J], wall_broad [s], wall_narrow [s], wall_forces [s],
//! wall_integrate [s]`, then one `checks_level_L` column
//! per tree level and `checks_fine` (fine–fine triangle pairs, the last entry of
//! [`StepStats::checks_per_level`]; seed 000 §6, Fig. 4). Floating-point values are
//! written in Rust's shortest round-trip form, so they read back bit for bit. The wall
//! times come from `timings.msdem` (0 when the run did not record it) and are the only
//! columns that differ between two runs of the same scenario.
//!
//! Local time stepping runs (`lts.msdem`, seed 004) get further columns after those,
//! [`LTS_COLUMNS`] (counts per synchronisation interval, the smallest active step
//! `lts_min_step_s` and the wall time per phase of seed 004 §8.1 `lts_wall_*_s`), then the
//! histograms of seed 004 §8 (Figs. 6/16) one bin per column: active clusters by size
//! `lts_cluster_size_LO_HI`, by time step size `lts_step_ratio_1e-A_1e-B` (`Δt/dt` in
//! `(1e-A, 1e-B]`; the last bin also holds smaller ratios) and colliding clusters by their
//! contact points `lts_cluster_contacts_LO_HI`. Runs of other integrators have none of
//! them: their file is what it was before these columns existed.

use msdem_frames::StepStats;
use std::fmt::Write;

use crate::lts_run::{count_label, step_decade, LtsRun};

/// The fixed local time stepping columns of `steps.csv`, in order.
pub const LTS_COLUMNS: [&str; 19] = [
    "lts_sweeps",
    "lts_clusters",
    "lts_active_clusters",
    "lts_colliding_clusters",
    "lts_rollbacks",
    "lts_narrowing_iterations",
    "lts_narrowing_checks",
    "lts_contact_points",
    "lts_impulse_iterations",
    "lts_impulse_unconverged",
    "lts_impulse_relaxed",
    "lts_impulse_complementarity_m_s",
    "lts_min_step_s",
    "lts_wall_broad_s",
    "lts_wall_clustering_s",
    "lts_wall_step_size_s",
    "lts_wall_narrow_s",
    "lts_wall_collision_s",
    "lts_wall_roll_over_s",
];

/// The local time stepping part of the header (each column preceded by a comma): the
/// [`LTS_COLUMNS`], then `sizes` cluster-size, `ratios` step-ratio and `contacts`
/// contact-point histogram bins.
pub fn lts_header(sizes: usize, ratios: usize, contacts: usize) -> String {
    let mut out = String::new();
    for c in LTS_COLUMNS {
        let _ = write!(out, ",{c}");
    }
    for k in 0..sizes {
        let _ = write!(out, ",lts_cluster_size_{}", count_label(k, "_"));
    }
    for k in 0..ratios {
        let (a, b) = step_decade(k);
        let _ = write!(out, ",lts_step_ratio_1e{a}_1e{b}");
    }
    for k in 0..contacts {
        let _ = write!(out, ",lts_cluster_contacts_{}", count_label(k, "_"));
    }
    out
}

/// The CSV text of `steps`; `levels` is the number of `checks_per_level` entries to write
/// (shorter vectors are padded with zeros), the last of which is the fine–fine count.
pub fn steps_csv(steps: &[StepStats], levels: usize) -> String {
    steps_csv_lts(steps, levels, None)
}

/// As [`steps_csv`], plus the local time stepping columns when `lts` is given (a step
/// that `lts.msdem` lacks gets zeros there).
pub fn steps_csv_lts(steps: &[StepStats], levels: usize, lts: Option<&LtsRun>) -> String {
    let levels = steps
        .iter()
        .map(|s| s.checks_per_level.len())
        .max()
        .unwrap_or(0)
        .max(levels);
    let mut out = String::from(
        "step,time,iterations,converged,candidate_pairs,contacts,checks_total,fallbacks,\
         unfolds,narrows,skipped,kinetic_energy,potential_energy,wall_broad,wall_narrow,wall_forces,wall_integrate",
    );
    for l in 0..levels {
        if l + 1 == levels {
            out.push_str(",checks_fine");
        } else {
            let _ = write!(out, ",checks_level_{l}");
        }
    }
    let widths = lts.map(|l| {
        (
            l.bins(|s| &s.cluster_sizes),
            l.bins(|s| &s.step_sizes),
            l.bins(|s| &s.contacts_per_cluster),
        )
    });
    if let Some((sizes, ratios, contacts)) = widths {
        out.push_str(&lts_header(sizes, ratios, contacts));
    }
    out.push('\n');
    let rows = lts.map(|l| l.aligned(steps)).unwrap_or_default();
    for (i, s) in steps.iter().enumerate() {
        let total: u64 = s.checks_per_level.iter().sum();
        let _ = write!(
            out,
            "{},{:?},{},{},{},{},{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?}",
            s.step,
            s.time,
            s.iterations,
            s.converged,
            s.candidate_pairs,
            s.contacts,
            total,
            s.fallbacks,
            s.unfolds,
            s.narrows,
            s.skipped,
            s.kinetic_energy,
            s.potential_energy,
            s.wall.broad,
            s.wall.narrow,
            s.wall.forces,
            s.wall.integrate,
        );
        for l in 0..levels {
            let _ = write!(out, ",{}", s.checks_per_level.get(l).copied().unwrap_or(0));
        }
        if let Some((sizes, ratios, contacts)) = widths {
            let default = msdem_frames::lts::LtsStepStats::default();
            let (lt, wall) = match rows.get(i).copied().flatten() {
                Some(r) => (r.stats, r.wall),
                None => (&default, Default::default()),
            };
            let _ = write!(
                out,
                ",{},{},{},{},{},{},{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
                lt.sweeps,
                lt.clusters,
                lt.active_clusters,
                lt.collisions,
                lt.rollbacks,
                lt.narrowing_iterations,
                lt.narrowing_checks,
                lt.contacts,
                lt.impulse_iterations,
                lt.impulse_unconverged,
                lt.impulse_relaxed,
                lt.impulse_complementarity_m_s,
                lt.min_step,
                wall.broad,
                wall.clustering,
                wall.step_size,
                wall.narrow,
                wall.collision,
                wall.roll_over,
            );
            for (hist, width) in [
                (&lt.cluster_sizes, sizes),
                (&lt.step_sizes, ratios),
                (&lt.contacts_per_cluster, contacts),
            ] {
                for k in 0..width {
                    let _ = write!(out, ",{}", hist.get(k).copied().unwrap_or(0));
                }
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(k: u64, checks: Vec<u64>) -> StepStats {
        StepStats {
            step: k,
            time: 1e-4 * k as f64 + 1e-19,
            checks_per_level: checks,
            iterations: 3,
            converged: k != 2,
            kinetic_energy: 0.1 + k as f64 / 3.0,
            unfolds: 7 * k as u32,
            narrows: 2,
            skipped: 1 << 40,
            ..StepStats::default()
        }
    }

    #[test]
    fn rows_read_back_bit_for_bit() {
        let steps = vec![step(1, vec![1, 2, 30]), step(2, vec![4])];
        let text = steps_csv(&steps, 2);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(header.len(), 17 + 3);
        assert_eq!(
            &header[17..],
            ["checks_level_0", "checks_level_1", "checks_fine"]
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 2);
        for (row, s) in rows.iter().zip(&steps) {
            assert_eq!(row.len(), header.len());
            let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
            assert_eq!(col("step").parse::<u64>().unwrap(), s.step);
            assert_eq!(
                col("time").parse::<f64>().unwrap().to_bits(),
                s.time.to_bits()
            );
            assert_eq!(
                col("kinetic_energy").parse::<f64>().unwrap().to_bits(),
                s.kinetic_energy.to_bits()
            );
            assert_eq!(col("converged").parse::<bool>().unwrap(), s.converged);
            assert_eq!(col("unfolds").parse::<u32>().unwrap(), s.unfolds);
            assert_eq!(col("narrows").parse::<u32>().unwrap(), s.narrows);
            assert_eq!(col("skipped").parse::<u64>().unwrap(), s.skipped);
            let total: u64 = s.checks_per_level.iter().sum();
            assert_eq!(col("checks_total").parse::<u64>().unwrap(), total);
        }
        // Padding: the second step has one level only.
        assert_eq!(&rows[1][17..], ["4", "0", "0"]);
        assert_eq!(&rows[0][17..], ["1", "2", "30"]);
    }

    #[test]
    fn empty_run_has_only_the_header() {
        assert_eq!(steps_csv(&[], 0).lines().count(), 1);
    }
}
