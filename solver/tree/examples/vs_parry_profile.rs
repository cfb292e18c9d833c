//! Loops one method of the `vs_parry` bench on one pose, for a profiler:
//! `cargo run --release -p msdem-tree --example vs_parry_profile -- POSE METHOD SECONDS`
//! (`POSE`: a substring of `shapes pose`, e.g. `"noisy spheres 1,280 ax1 gap 3ε"`;
//! `METHOD`: `hybrid`, `exact`, `boxed` (hybrid with node boxes), `pairs` (the pair-set
//! query), `grid` (the pair-set query on A's cell grid), `parry`), then prints the
//! thread-CPU time per call. Spheres only, first approach axis (the bench's quick set),
//! unless `VS_PARRY_FULL=1` (every axis, and the shipped bunny for a `bunny` pose: slower
//! to prepare).

#[allow(dead_code)]
#[path = "../benches/vs_parry/mod.rs"]
mod vs_parry;

use msdem_geom::kernel::KernelKind;
use msdem_tree::{
    find_contacts, find_contacts_boxed, find_pairs_boxed, find_pairs_grid, GridScratch, LevelStats,
    Mode, NodeBoxes, Scratch,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 3 {
        eprintln!("usage: vs_parry_profile POSE METHOD SECONDS");
        std::process::exit(2);
    }
    let secs: f64 = args[2].parse().unwrap_or(5.0);
    let full = std::env::var("VS_PARRY_FULL").is_ok_and(|v| v == "1");
    let flags = if full {
        vec![]
    } else {
        vec!["--quick".to_string()]
    };
    let mut o = vs_parry::Options::parse(flags.into_iter()).expect("options");
    if !args[0].contains("bunny") {
        o.mesh = None;
    }
    let (cases, mut runs) = vs_parry::prepare(&o, &mut |_| {}).expect("cases");
    let Some(r) = runs
        .iter_mut()
        .find(|r| format!("{} {}", cases[r.case].name, r.label).contains(&args[0]))
    else {
        eprintln!("no pose matches {}", args[0]);
        std::process::exit(2);
    };
    let c = &cases[r.case];
    println!(
        "{} {}: oracle misses / extras per variant {:?}; grid {:?} cells of {:.4} m, {} entries, {} KiB",
        c.name,
        r.label,
        r.ours_wrong,
        c.a.grid.cells(),
        c.a.grid.cell_m(),
        c.a.grid.entries(),
        c.a.grid.heap_bytes() / 1024
    );
    let eps = vs_parry::cases::EPS as f32;
    let (mut s, mut out, mut st) = (Scratch::new(), Vec::new(), LevelStats::default());
    let mut q = vs_parry::parry_side::Query::default();
    let (ba, bb) = (NodeBoxes::of(&c.a.tree), NodeBoxes::of(&c.b.tree));
    let mut pairs = Vec::new();
    let mut gs = GridScratch::new();
    let mut f = || match args[1].as_str() {
        "grid" => {
            pairs.clear();
            find_pairs_grid(
                (&c.a.tree, &c.a.grid),
                eps,
                (&c.b.tree, &bb),
                eps,
                &r.iso,
                &mut gs,
                &mut pairs,
                &mut st,
            );
        }
        "parry" => q.run(&r.pos12, &c.a.parry, &c.b.parry, 2.0 * eps, false),
        "pairs" => {
            pairs.clear();
            find_pairs_boxed(
                (&c.a.tree, &ba),
                eps,
                (&c.b.tree, &bb),
                eps,
                &r.iso,
                &mut s,
                &mut pairs,
                &mut st,
            );
        }
        "boxed" => {
            out.clear();
            find_contacts_boxed(
                (&c.a.tree, &ba),
                eps,
                (&c.b.tree, &bb),
                eps,
                &r.iso,
                KernelKind::Hybrid,
                &mut s,
                &mut out,
                &mut st,
            );
        }
        m => {
            let k = if m == "exact" {
                KernelKind::Exact
            } else {
                KernelKind::Hybrid
            };
            out.clear();
            find_contacts(
                &c.a.tree,
                eps,
                &c.b.tree,
                eps,
                &r.iso,
                Mode::Hierarchy,
                k,
                &mut s,
                &mut out,
                &mut st,
            );
        }
    };
    let t0 = vs_parry::timing::thread_cpu_ns();
    let mut n = 0u64;
    // Calls in blocks of 64 between clock reads (a read costs ≈ 0.5 µs: far poses).
    while (vs_parry::timing::thread_cpu_ns() - t0) as f64 * 1e-9 < secs {
        for _ in 0..64 {
            f();
        }
        n += 64;
    }
    let per = (vs_parry::timing::thread_cpu_ns() - t0) as f64 / n as f64;
    println!("{} calls, {:.3} µs per call", n, per / 1e3);
    if args[1] != "parry" {
        let k = |x: u64| x / n;
        println!(
            "per call: checks per level {:?}, fine {}, fallbacks {}, contacts {}",
            st.checks.map(k),
            k(st.fine),
            k(st.fallbacks),
            out.len().max(pairs.len())
        );
    }
}
