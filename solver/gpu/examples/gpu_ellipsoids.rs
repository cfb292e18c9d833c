//! CPU (rayon, all threads) against GPU ellipsoid detection on the same seeded sets:
//! seed 002 Table 2's spheres (as equal-axis ellipsoids) and random tri-axial ellipsoids
//! with a halo, N = 10⁴ … 2²⁰ by default.
//!
//! `cargo run --release -p msdem-gpu --example gpu_ellipsoids -- [N ...] [--reps R]`
//!
//! Each repetition runs the CPU path then the GPU path (interleaved, after one warm-up of
//! each, the GPU's buffers persistent); medians of R (default 11) are printed. CPU: wall
//! time with all rayon threads, and the process CPU time. GPU: the kernels (CUDA events,
//! from the end of the upload to the start of the download) and the whole call on the host
//! clock (validation, packing, both transfers, kernels). Every GPU result is checked
//! against the CPU result of the same repetition (`msdem_gpu::compare`); the example stops
//! on a disagreement. Without a CUDA device only the CPU columns are filled.
//!
//! `-- --tune N` instead times `opm_pairs` register caps (`DetectorOptions::opm_min_blocks`
//! 1, 2, 3) on N random ellipsoids, interleaved, and checks the results are identical.

use msdem_gpu::compare::{compare, Agreement, Tolerances};
use msdem_gpu::cpu::detect_cpu;
use msdem_gpu::workload::{random_ellipsoids, table2_spheres};
use msdem_gpu::{DetectorOptions, EllipsoidBody, GpuEllipsoidDetector, GpuError};
use std::time::Instant;

fn process_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Row {
    cpu_wall_ms: Vec<f64>,
    cpu_proc_s: Vec<f64>,
    gpu_kernels_ms: Vec<f64>,
    gpu_wall_ms: Vec<f64>,
    gpu_parts_ms: Vec<[f64; 6]>,
    worst: Agreement,
}

fn run(
    bodies: &[EllipsoidBody],
    reps: usize,
    gpu: &mut Option<GpuEllipsoidDetector>,
) -> anyhow::Result<(Row, msdem_gpu::DetectionStats)> {
    let mut row = Row {
        cpu_wall_ms: Vec::new(),
        cpu_proc_s: Vec::new(),
        gpu_kernels_ms: Vec::new(),
        gpu_wall_ms: Vec::new(),
        gpu_parts_ms: Vec::new(),
        worst: Agreement::default(),
    };
    let warm = detect_cpu(bodies)?;
    let mut got = msdem_gpu::Detection::default();
    if let Some(g) = gpu.as_mut() {
        g.detect_into(bodies, &mut got)?;
    }
    for _ in 0..reps {
        let (t, p) = (Instant::now(), process_cpu_s());
        let want = detect_cpu(bodies)?;
        row.cpu_proc_s.push(process_cpu_s() - p);
        row.cpu_wall_ms.push(t.elapsed().as_secs_f64() * 1e3);
        anyhow::ensure!(want == warm, "the CPU result changed between repetitions");
        if let Some(g) = gpu.as_mut() {
            g.detect_into(bodies, &mut got)?;
            let timings = g.last_timings();
            row.gpu_kernels_ms.push(timings.kernels_ms);
            row.gpu_wall_ms.push(timings.wall_ms);
            let st = timings.stages;
            row.gpu_parts_ms.push([
                timings.upload_ms,
                st.binning_ms,
                st.pairs_chm_ms,
                st.opm_ms,
                st.ordering_ms,
                timings.download_ms,
            ]);
            let a = compare(bodies, &want, &got, &Tolerances::default())
                .map_err(|e| anyhow::anyhow!("GPU disagrees with the CPU: {e}"))?;
            row.worst.knife_edge = row.worst.knife_edge.max(a.knife_edge);
            row.worst.max_distance_rel = row.worst.max_distance_rel.max(a.max_distance_rel);
            row.worst.max_normal = row.worst.max_normal.max(a.max_normal);
            row.worst.max_point_rel = row.worst.max_point_rel.max(a.max_point_rel);
        }
    }
    Ok((row, warm.stats))
}

/// Interleaved timings of the register caps of `opm_pairs` (see the module doc).
fn tune(n: usize, reps: usize) -> anyhow::Result<()> {
    let bodies = random_ellipsoids(n, 42);
    let caps = [1, 2, 3];
    let mut detectors = caps
        .iter()
        .map(|&b| GpuEllipsoidDetector::with_options(&DetectorOptions { opm_min_blocks: b }))
        .collect::<Result<Vec<_>, _>>()?;
    let reference = detectors[0].detect(&bodies)?;
    let mut times = vec![(Vec::new(), Vec::new()); caps.len()];
    for _ in 0..reps {
        for (d, t) in detectors.iter_mut().zip(times.iter_mut()) {
            let got = d.detect(&bodies)?;
            anyhow::ensure!(got == reference, "results differ between register caps");
            t.0.push(d.last_timings().stages.opm_ms);
            t.1.push(d.last_timings().kernels_ms);
        }
    }
    println!("| opm_min_blocks | opm_pairs registers, local bytes | OpM ms | kernels ms |");
    println!("|---|---|---|---|");
    for ((cap, d), (opm, all)) in caps.iter().zip(&detectors).zip(times) {
        let res = d.device().kernel_resources()?;
        let (_, regs, local) = res
            .iter()
            .find(|r| r.0 == "opm_pairs")
            .copied()
            .unwrap_or(("", 0, 0));
        println!(
            "| {cap} | {regs}, {local} | {:.2} | {:.2} |",
            median(opm),
            median(all)
        );
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut counts = Vec::new();
    let mut reps = 11;
    let mut tune_n = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--reps" {
            reps = args.next().unwrap_or_default().parse()?;
        } else if a == "--tune" {
            tune_n = Some(args.next().unwrap_or_default().parse()?);
        } else {
            counts.push(a.parse::<usize>()?);
        }
    }
    anyhow::ensure!(reps >= 1, "--reps must be at least 1");
    if let Some(n) = tune_n {
        return tune(n, reps);
    }
    if counts.is_empty() {
        counts = vec![10_000, 100_000, 262_144, 1_048_576];
    }
    let mut gpu = match GpuEllipsoidDetector::new() {
        Ok(g) => Some(g),
        Err(GpuError::Unavailable(why)) => {
            println!("no GPU ({why}): CPU columns only");
            None
        }
        Err(e) => return Err(e.into()),
    };
    let threads = rayon::current_num_threads();
    if let Some(g) = &gpu {
        println!("device: {} ({})", g.device().name(), g.device().arch());
        for (name, regs, local) in g.device().kernel_resources()? {
            println!("  kernel {name}: {regs} registers, {local} local bytes per thread");
        }
    }
    println!("CPU: rayon on {threads} threads; medians of {reps} repetitions\n");
    println!("| set | N | bounding pairs | ChM survivors | contacts | CPU wall ms ({threads} thr) | CPU process s | GPU kernels ms | GPU with transfers ms | speed-up (wall) | speed-up (kernels) | worst Δd/ℓ, Δn |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut stage_lines = Vec::new();
    for &n in &counts {
        for (name, bodies) in [
            ("Table 2 spheres", table2_spheres(n, 42)),
            ("ellipsoids", random_ellipsoids(n, 42)),
        ] {
            let (row, stats) = run(&bodies, reps, &mut gpu)?;
            let cpu = median(row.cpu_wall_ms.clone());
            let proc_s = median(row.cpu_proc_s.clone());
            if !row.gpu_parts_ms.is_empty() {
                let part = |k: usize| median(row.gpu_parts_ms.iter().map(|p| p[k]).collect());
                let parts: Vec<f64> = (0..6).map(part).collect();
                let host = median(row.gpu_wall_ms.clone()) - parts.iter().sum::<f64>();
                stage_lines.push(format!(
                    "| {name} | {n} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {host:.2} |",
                    parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]
                ));
            }
            let (gk, gw, su_w, su_k, diffs) = if row.gpu_wall_ms.is_empty() {
                ("–".into(), "–".into(), "–".into(), "–".into(), "–".into())
            } else {
                let (k, w) = (median(row.gpu_kernels_ms), median(row.gpu_wall_ms));
                (
                    format!("{k:.2}"),
                    format!("{w:.2}"),
                    format!("{:.0}×", cpu / w),
                    format!("{:.0}×", cpu / k),
                    format!(
                        "{:.1e}, {:.1e}",
                        row.worst.max_distance_rel, row.worst.max_normal
                    ),
                )
            };
            println!(
                "| {name} | {n} | {} | {} | {} | {cpu:.1} | {proc_s:.2} | {gk} | {gw} | {su_w} | {su_k} | {diffs} |",
                stats.bounding_pairs, stats.chm_survivors, stats.contacts
            );
        }
    }
    if !stage_lines.is_empty() {
        println!("\nGPU time by stage, medians [ms] (host: the rest of the call's wall time — validation, packing, unpacking, launch overhead):\n");
        println!("| set | N | upload | binning (§4 st. 1–6) | pairs + ChM (st. 8) | OpM | ordering (st. 9–10) | download | host |");
        println!("|---|---|---|---|---|---|---|---|---|");
        for line in stage_lines {
            println!("{line}");
        }
    }
    Ok(())
}
