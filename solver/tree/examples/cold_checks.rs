//! Checks per pose of the `vs_parry` bench's cold queries, and a hash of their sorted
//! answers (development aid for issue 15: a new node bound must cut checks without
//! changing a result): `cargo run --release -p msdem-tree --example cold_checks [-- --mesh]`.
//! For every sphere pose (all approach axes; `--mesh` adds the scanned mesh), prints the
//! checks of `find_contacts_boxed` (hybrid) — total, real–real and per level — and of
//! `find_pairs_boxed`, then one FNV-1a hash of the sorted contacts (triangles and distance
//! bits) and one of the sorted pairs over all poses.

#[allow(dead_code)]
#[path = "../benches/vs_parry/mod.rs"]
mod vs_parry;

use msdem_geom::kernel::KernelKind;
use msdem_tree::{find_contacts_boxed, find_pairs_boxed, LevelStats, Scratch};

fn fnv(h: &mut u64, x: u64) {
    for b in x.to_le_bytes() {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn main() {
    let mesh = std::env::args().any(|a| a == "--mesh");
    let args = if mesh {
        vec![]
    } else {
        vec!["--no-mesh".to_string()]
    };
    let o = vs_parry::Options::parse(args.into_iter()).expect("options");
    let (cases, runs) = vs_parry::prepare(&o, &mut |_| {}).expect("cases");
    let eps = vs_parry::cases::EPS as f32;
    let mut s = Scratch::new();
    let (mut hc, mut hp) = (0xcbf2_9ce4_8422_2325u64, 0xcbf2_9ce4_8422_2325u64);
    let (mut sum_c, mut sum_p) = (0u64, 0u64);
    println!("| shapes | pose | contacts | checks (real–real) | per level | pair-set checks |");
    println!("|---|---|---|---|---|---|");
    for r in &runs {
        let c = &cases[r.case];
        let (a, b) = ((&c.a.tree, &c.a.boxes), (&c.b.tree, &c.b.boxes));
        let (mut out, mut st) = (Vec::new(), LevelStats::default());
        find_contacts_boxed(
            a,
            eps,
            b,
            eps,
            &r.iso,
            KernelKind::Hybrid,
            &mut s,
            &mut out,
            &mut st,
        );
        let mut v: Vec<_> = out
            .iter()
            .map(|x| (x.tri_a, x.tri_b, x.dist.to_bits()))
            .collect();
        v.sort_unstable();
        for x in &v {
            [x.0, x.1, x.2]
                .iter()
                .for_each(|&y| fnv(&mut hc, u64::from(y)));
        }
        let (mut pairs, mut sp) = (Vec::new(), LevelStats::default());
        find_pairs_boxed(a, eps, b, eps, &r.iso, &mut s, &mut pairs, &mut sp);
        pairs.sort_unstable();
        for p in &pairs {
            fnv(&mut hp, u64::from(p.tri_a));
            fnv(&mut hp, u64::from(p.tri_b));
        }
        sum_c += st.total();
        sum_p += sp.total();
        let depth = c.a.tree.depth().max(c.b.tree.depth()) as usize;
        let levels: Vec<String> = st
            .checks
            .iter()
            .take(depth)
            .map(|x| x.to_string())
            .collect();
        println!(
            "| {} | {} | {} | {} ({}) | {} | {} |",
            c.name,
            r.label,
            out.len(),
            st.total(),
            st.fine,
            levels.join(" "),
            sp.total()
        );
    }
    println!("checks over all poses: contacts {sum_c}, pair set {sum_p}");
    if let Some(reps) = std::env::args()
        .skip_while(|a| a != "--time")
        .nth(1)
        .and_then(|x| x.parse::<usize>().ok())
    {
        time_variants(&cases, &runs, reps);
    }
    println!("sorted contacts hash {hc:016x}, sorted pairs hash {hp:016x}");
}

/// Thread-CPU medians of `find_contacts_boxed` (hybrid) with the full node boxes and with
/// the axis-aligned ones only, interleaved per pose and repetition.
fn time_variants(cases: &[vs_parry::cases::Case], runs: &[vs_parry::PoseRun], reps: usize) {
    use vs_parry::timing::{calls_for, median, per_call_ns};
    let eps = vs_parry::cases::EPS as f32;
    let plain: Vec<_> = cases
        .iter()
        .map(|c| {
            (
                c.a.boxes.clone().axis_aligned_only(),
                c.b.boxes.clone().axis_aligned_only(),
            )
        })
        .collect();
    let mut s = Scratch::new();
    let mut out = Vec::new();
    println!("| shapes | pose | full boxes µs | axis-aligned only µs | ratio |");
    println!("|---|---|---|---|---|");
    for r in runs {
        let c = &cases[r.case];
        let mut t = [Vec::new(), Vec::new()];
        let mut calls = [1u32; 2];
        for rep in 0..=reps {
            for v in 0..2 {
                let v = (v + rep) % 2;
                let (ba, bb) = if v == 0 {
                    (&c.a.boxes, &c.b.boxes)
                } else {
                    (&plain[r.case].0, &plain[r.case].1)
                };
                let mut f = || {
                    let mut st = LevelStats::default();
                    out.clear();
                    find_contacts_boxed(
                        (&c.a.tree, ba),
                        eps,
                        (&c.b.tree, bb),
                        eps,
                        &r.iso,
                        KernelKind::Hybrid,
                        &mut s,
                        &mut out,
                        &mut st,
                    );
                };
                f();
                let x = per_call_ns(calls[v], &mut f);
                if rep == 0 {
                    calls[v] = calls_for(x, 100_000.0);
                } else {
                    t[v].push(x);
                }
            }
        }
        let (a, b) = (median(&t[0]) / 1e3, median(&t[1]) / 1e3);
        println!(
            "| {} | {} | {a:.1} | {b:.1} | {:.2} |",
            c.name,
            r.label,
            b / a
        );
    }
}
