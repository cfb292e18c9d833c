//! Mesh–mesh detection against parry3d 0.31, measured fairly (issue 15): a family of poses
//! (far apart, gap 3ε, 2ε, ε, overlap 2ε, deep) over three approach axes and rotations, for
//! noisy spheres, icospheres and a scanned mesh; answers checked against an exact `f64`
//! oracle; thread-CPU medians of interleaved repetitions. See `vs_parry/mod.rs`.
//!
//! `cargo bench -p msdem-tree --bench vs_parry -- [--reps N] [--quick] [--mesh PATH] [--no-mesh]`
//! (default: 21 repetitions, `meshes/bunny.ply`). The last line is `min_ratio_vs_parry = X`.

#[path = "vs_parry/mod.rs"]
mod vs_parry;

fn main() {
    let run = || -> Result<(), String> {
        let o = vs_parry::Options::parse(std::env::args().skip(1))?;
        let mut log = |s: String| eprintln!("{s}");
        let (cases, mut runs) = vs_parry::prepare(&o, &mut log)?;
        vs_parry::time(&cases, &mut runs, o.reps);
        for l in vs_parry::kernel_report(&cases, &runs, o.reps) {
            println!("{l}");
        }
        for l in vs_parry::report(&cases, &runs) {
            println!("{l}");
        }
        // After the report, so that a run still shows its figures: any pair we missed or
        // reported beyond the margin fails the run.
        if let Some(r) = runs.iter().find(|r| r.ours_wrong != [(0, 0); 6]) {
            return Err(format!(
                "{} {}: our pair sets differ from the oracle (misses, extras per variant) {:?}",
                cases[r.case].name, r.label, r.ours_wrong
            ));
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("vs_parry: {e}");
        std::process::exit(1);
    }
}
