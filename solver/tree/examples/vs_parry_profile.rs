//! Loops one method of the `vs_parry` bench on one pose, for a profiler:
//! `cargo run --release -p msdem-tree --example vs_parry_profile -- POSE METHOD SECONDS`
//! (`POSE`: a substring of `shapes pose`, e.g. `"noisy spheres 1,280 ax1 gap 3ε"`;
//! `METHOD`: one or several, comma-separated (interleaved, three rounds, medians):
//! `hybrid`, `exact`, `boxed` (hybrid with node boxes), `pairs` (the pair-set
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
    o.reps = 0;
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
    let (mut s, mut out) = (Scratch::new(), Vec::new());
    let mut q = vs_parry::parry_side::Query::default();
    let (ba, bb) = (NodeBoxes::of(&c.a.tree), NodeBoxes::of(&c.b.tree));
    let mut pairs = Vec::new();
    let mut gs = GridScratch::new();
    // Runs one call; returns the number of pairs or contacts found.
    let mut f = |method: &str, st: &mut LevelStats| -> usize {
        pairs.clear();
        out.clear();
        match method {
            "grid" => {
                pairs.clear();
                find_pairs_grid(
                    (&c.a.tree, &ba, &c.a.grid),
                    eps,
                    (&c.b.tree, &bb),
                    eps,
                    &r.iso,
                    &mut gs,
                    &mut pairs,
                    st,
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
                    st,
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
                    st,
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
                    st,
                );
            }
        };
        out.len().max(pairs.len())
    };
    // Methods interleaved: three rounds of each, `SECONDS / 3` per method and round.
    let methods: Vec<&str> = args[1].split(',').collect();
    let mut per_call = vec![Vec::new(); methods.len()];
    for round in 0..3 {
        for (i, m) in methods.iter().enumerate() {
            let mut st = LevelStats::default();
            let t = vs_parry::timing::thread_cpu_ns();
            let found = f(m, &mut st);
            // Calls in blocks between clock reads (a read costs ≈ 0.5 µs: far poses).
            let block = if vs_parry::timing::thread_cpu_ns() - t < 10_000 {
                64
            } else {
                1
            };
            let t0 = vs_parry::timing::thread_cpu_ns();
            let mut n = 0u64;
            while (vs_parry::timing::thread_cpu_ns() - t0) as f64 * 1e-9 < secs / 3.0 {
                for _ in 0..block {
                    f(m, &mut st);
                }
                n += block;
            }
            let per = (vs_parry::timing::thread_cpu_ns() - t0) as f64 / n as f64;
            per_call[i].push(per);
            println!("round {round} {m}: {n} calls, {:.3} µs per call", per / 1e3);
            if *m != "parry" && round == 0 {
                let k = |x: u64| x / (n + 1);
                println!(
                    "  per call: checks per level {:?}, fine {}, fallbacks {}, contacts {}",
                    st.checks.map(k),
                    k(st.fine),
                    k(st.fallbacks),
                    found
                );
            }
        }
    }
    for (m, v) in methods.iter().zip(&mut per_call) {
        v.sort_by(f64::total_cmp);
        println!("{m}: median {:.3} µs per call", v[1] / 1e3);
    }
}
