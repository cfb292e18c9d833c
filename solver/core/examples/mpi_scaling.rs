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
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", &ranks.to_string()])
        .arg(solver())
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
        for l in lines {
            println!("    {l}");
        }
    }
}
