//! Distributed runs against threads (issue 18), on a scenario whose trees are built:
//!
//! ```text
//! cargo build --release --bins --features msdem-solver/mpi
//! cargo run --release --example mpi_scaling --features mpi -- SCENARIO.yaml [REPS]
//! ```
//!
//! 1. `mpirun -np 2 solver --threads 1` against `solver --threads 2` (one process),
//!    interleaved, `REPS` times each (default 5): medians of the wall time and of the CPU
//!    time of the child processes (`getrusage(RUSAGE_CHILDREN)`), and every output file
//!    of each run compared with the first one-process run (byte for byte);
//! 2. `mpirun -np N solver --threads 1 --traffic` for N = 2, 4, 8 (oversubscribed on a
//!    small machine): bytes sent per rank per step (of them the gather to rank 0), ghosts
//!    per step, migrations, rebalances and the load imbalance at the last step.
//!
//! 3. a **weak-scaling model** to 1,000 ranks from these measurements (see
//!    [`weak_scaling`]): per rank the particles of the 2-rank run, the compute time per
//!    particle and step of the one-process run, the bytes per step of the 8-rank run split
//!    into the boundary exchanges (∝ surface) and the report to rank 0 (∝ particles), rank
//!    0's cost per reported particle (decoding, ordering and summing the terms, timed
//!    here), and a network of latency α and bandwidth β.
//!
//! With `MSDEM_BASELINE_SOLVER=PATH` (another build of the solver), step 1 also runs
//! `mpirun -np 2 PATH --threads 1`, interleaved, and compares the two.
//!
//! Needs `mpirun` on the `PATH` (as root: `OMPI_ALLOW_RUN_AS_ROOT=1
//! OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn children_cpu_s() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn solver() -> PathBuf {
    let exe = std::env::current_exe().expect("example path");
    exe.parent()
        .and_then(Path::parent)
        .map(|d| d.join("solver"))
        .expect("target/release/solver")
}

/// Runs `cmd`; returns (wall s, child CPU s, stderr).
fn timed(cmd: &mut Command) -> (f64, f64, String) {
    let cpu0 = children_cpu_s();
    let t0 = Instant::now();
    let out = cmd.output().expect("start");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu_s() - cpu0;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed:\n{stderr}");
    (wall, cpu, stderr)
}

fn mpirun(ranks: u32, scenario: &Path, run: &Path, threads: u32) -> Command {
    mpirun_with(&solver(), ranks, scenario, run, threads)
}

fn mpirun_with(solver: &Path, ranks: u32, scenario: &Path, run: &Path, threads: u32) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", &ranks.to_string()])
        .arg(solver)
        .arg(scenario)
        .arg("-o")
        .arg(run)
        .args(["--quiet", "--traffic", "--threads", &threads.to_string()]);
    c
}

fn outputs(run: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run.join("frames"))
        .expect("frames")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files.push(run.join("stats.msdem"));
    files.push(run.join("run.msdem"));
    files
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scenario = PathBuf::from(
        args.get(1)
            .expect("usage: mpi_scaling SCENARIO.yaml [REPS]"),
    );
    let reps: usize = args.get(2).map_or(5, |r| r.parse().expect("REPS"));
    let scratch = tempfile::tempdir().expect("scratch folder");
    let reference = scratch.path().join("reference");
    let (mut wall_t, mut cpu_t, mut wall_r, mut cpu_r) = (vec![], vec![], vec![], vec![]);
    let baseline = std::env::var_os("MSDEM_BASELINE_SOLVER").map(PathBuf::from);
    let (mut wall_b, mut cpu_b) = (vec![], vec![]);
    let mut first = None;
    for rep in 0..reps {
        let threads_run = scratch.path().join(format!("threads{rep}"));
        let (w, c, _) = timed(
            Command::new(solver())
                .arg(&scenario)
                .arg("-o")
                .arg(&threads_run)
                .args(["--quiet", "--threads", "2"]),
        );
        wall_t.push(w);
        cpu_t.push(c);
        let got = outputs(&threads_run);
        let first = first.get_or_insert_with(|| {
            std::fs::rename(&threads_run, &reference).expect("keep reference");
            got.clone()
        });
        assert!(
            *first == got,
            "one process, 2 threads: outputs differ between runs"
        );
        let ranks_run = scratch.path().join(format!("ranks{rep}"));
        let (w, c, _) = timed(&mut mpirun(2, &scenario, &ranks_run, 1));
        wall_r.push(w);
        cpu_r.push(c);
        assert!(
            *first == outputs(&ranks_run),
            "2 ranks: outputs differ from one process"
        );
        let _ = std::fs::remove_dir_all(&ranks_run);
        if let Some(base) = &baseline {
            let (w, c, _) = timed(&mut mpirun_with(base, 2, &scenario, &ranks_run, 1));
            wall_b.push(w);
            cpu_b.push(c);
            assert!(
                *first == outputs(&ranks_run),
                "2 ranks (baseline): outputs differ from one process"
            );
            let _ = std::fs::remove_dir_all(&ranks_run);
        }
    }
    let (wt, ct, wr, cr) = (
        median(&mut wall_t),
        median(&mut cpu_t),
        median(&mut wall_r),
        median(&mut cpu_r),
    );
    println!(
        "{} ({} repetitions each, interleaved; outputs identical)",
        scenario.display(),
        reps
    );
    println!("  1 rank × 2 threads: wall {wt:.3} s, CPU {ct:.3} s (median)");
    println!("  2 ranks × 1 thread: wall {wr:.3} s, CPU {cr:.3} s (median)");
    println!(
        "  speed of 2 ranks relative to 2 threads: {:.2}× (wall)",
        wt / wr
    );
    if !wall_b.is_empty() {
        let (wb, cb) = (median(&mut wall_b), median(&mut cpu_b));
        println!("  2 ranks × 1 thread, baseline solver: wall {wb:.3} s, CPU {cb:.3} s (median)");
        println!(
            "  speed of this solver relative to the baseline: {:.2}× (wall), {:.2}× (CPU)",
            wb / wr,
            cb / cr
        );
    }
    let manifest: msdem_solver::frames::RunManifest = msdem_solver::frames::read_record(
        &msdem_solver::frames::manifest_path(&reference),
        &msdem_solver::frames::MANIFEST_MAGIC,
    )
    .expect("manifest");
    let steps =
        msdem_solver::frames::StatsFile::read(&msdem_solver::frames::stats_path(&reference))
            .expect("stats")
            .steps
            .len();
    let particles = manifest.particles.len();
    let mut per_rank_8 = None;
    for ranks in [2, 4, 8] {
        let run = scratch.path().join(format!("np{ranks}"));
        let (w, _, stderr) = timed(&mut mpirun(ranks, &scenario, &run, 1));
        assert!(
            first.as_ref() == Some(&outputs(&run)),
            "{ranks} ranks: outputs differ"
        );
        println!("  {ranks} ranks (wall {w:.2} s, outputs identical):");
        let mut lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("traffic:"))
            .collect();
        lines.sort();
        for l in &lines {
            println!("    {l}");
        }
        if ranks == 8 {
            per_rank_8 = traffic_of_a_follower(&lines);
        }
    }
    let Some((sent, gathered)) = per_rank_8 else {
        return;
    };
    let measured = Measured {
        // Compute per particle and step: the one-process run on 2 threads (its wall time
        // includes the set-up and the output, so this errs towards cheap steps, which
        // makes communication look worse).
        compute_s: wt / (steps as f64 * particles as f64),
        particles_8: particles as f64 / 8.0,
        halo_bytes_8: sent - gathered,
        report_bytes_per_particle: gathered / (particles as f64 / 8.0),
        root_s_per_particle: rank0_cost_per_particle(1 << 20),
    };
    println!("  weak-scaling model ({measured:?}):");
    for n in [particles as f64 / 2.0, 24_576.0] {
        for (alpha, beta) in [(1.0e-6, 25.0e9), (2.0e-6, 10.0e9)] {
            print!(
                "    {n:.0} particles per rank, α = {:.0} µs, β = {:.0} GB/s: efficiency",
                alpha * 1e6,
                beta * 1e-9
            );
            for p in [8.0, 64.0, 512.0, 1000.0] {
                let m = weak_scaling(&measured, n, p, alpha, beta);
                print!(" P={p:.0}: {:.2}", m.efficiency());
            }
            let m = weak_scaling(&measured, n, 1000.0, alpha, beta);
            println!(" (P=1000: {m:?})");
        }
    }
}

/// Bytes sent per step by rank 1 and, of them, its report to rank 0, from the
/// `--traffic` lines.
fn traffic_of_a_follower(lines: &[&str]) -> Option<(f64, f64)> {
    let line = lines.iter().find(|l| l.starts_with("traffic: rank 1 of"))?;
    let (_, rest) = line.split_once(": rank 1 of ")?;
    let mut words = rest.split_whitespace();
    words.next()?; // N:
    let sent: f64 = words.next()?.parse().ok()?;
    let (_, after) = rest.split_once("per step (")?;
    let gathered: f64 = after.split_whitespace().next()?.parse().ok()?;
    Some((sent, gathered))
}

/// What the model is fed, all measured on this machine.
#[derive(Debug)]
struct Measured {
    /// Wall time per particle and step of one process on 2 threads \[s\].
    compute_s: f64,
    /// Particles per rank of the 8-rank run.
    particles_8: f64,
    /// Bytes a rank of the 8-rank run sends per step besides its report to rank 0.
    halo_bytes_8: f64,
    /// Bytes of the report to rank 0 per owned particle and step.
    report_bytes_per_particle: f64,
    /// Rank 0's time per reported particle: decode, order by id, sum \[s\].
    root_s_per_particle: f64,
}

/// One step of a rank in the model \[s\].
#[derive(Debug)]
struct Step {
    compute: f64,
    halo: f64,
    latency: f64,
    root: f64,
}

impl Step {
    fn efficiency(&self) -> f64 {
        self.compute / (self.compute + self.halo + self.latency + self.root)
    }
}

/// Exchanges per step (ghosts with the verdict, Coulomb limits, their sums back, wrench
/// contributions, report with migration), each two collectives.
const EXCHANGES_PER_STEP: f64 = 5.0;

/// The weak-scaling model: `n` particles per rank on `p` ranks, latency `alpha` \[s\],
/// bandwidth `beta` [B/s]. Assumptions: cubic domains, so the boundary traffic scales as
/// `n^(2/3)` from the 8-rank measurement; every collective (an `MPI_Alltoall` of the
/// sizes and an `MPI_Alltoallv`) costs `(p − 1)·α` (pairwise exchange, the worst case;
/// Bruck's algorithm would cost `log₂ p · α` for the sizes); the report to rank 0 grows
/// with all `p·n` particles, received over one link and summed by rank 0 in id order
/// (the price of statistics byte-identical to one process), so it bounds the scaling;
/// compute per particle as measured (the load is balanced).
fn weak_scaling(m: &Measured, n: f64, p: f64, alpha: f64, beta: f64) -> Step {
    let halo_bytes = m.halo_bytes_8 * (n / m.particles_8).powf(2.0 / 3.0);
    Step {
        compute: n * m.compute_s,
        halo: halo_bytes / beta,
        latency: EXCHANGES_PER_STEP * 2.0 * (p - 1.0) * alpha,
        root: p * n * (m.report_bytes_per_particle / beta + m.root_s_per_particle),
    }
}

/// Rank 0's cost per reported particle \[s\]: decoding `n` postcard-encoded `(id,
/// terms)` pairs delivered in an order other than the ids', sorting them by id and adding
/// them (the median of 5 repetitions).
fn rank0_cost_per_particle(n: usize) -> f64 {
    use msdem_solver::motion::energy::{Observables, ParticleTerms};
    let mut terms: Vec<(u32, ParticleTerms)> = (0..n as u32)
        .map(|i| {
            let x = f64::from(i);
            (
                i.wrapping_mul(2_654_435_761) % n as u32,
                ParticleTerms {
                    kinetic: x,
                    weight_height: -x,
                    momentum: [x, 1.0, 2.0],
                    angular_momentum: [3.0, x, 4.0],
                },
            )
        })
        .collect();
    terms.truncate(n);
    let bytes = postcard::to_allocvec(&terms).expect("encode");
    let mut times = Vec::new();
    let mut check = 0.0;
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut got: Vec<(u32, ParticleTerms)> = postcard::from_bytes(&bytes).expect("decode");
        got.sort_unstable_by_key(|&(id, _)| id);
        let mut o = Observables::default();
        for (_, t) in &got {
            o.add(t);
        }
        times.push(t0.elapsed().as_secs_f64() / n as f64);
        check = o.kinetic;
    }
    assert!(check > 0.0);
    median(&mut times)
}
