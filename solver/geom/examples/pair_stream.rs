//! ns/pair of the kernels on a pair stream recorded from a real traversal: our exact kernel
//! alone, the batched hybrid kernel alone and both behind the separation pre-screen, and
//! parry3d's GJK distance between two triangles — interleaved, thread-CPU medians. Also:
//! how many pairs each screening axis alone would reject (evidence for the screen's choice
//! of axes, see `kernel/screen.rs`), why the iterative kernel leaves pairs to the exact one
//! (the hybrid fallbacks, by the exact distance's class), and a check of every hybrid
//! answer against the exact kernel (same in/out decision; contact distance within the
//! certificate's `C·ε`).
//!
//! Input: a file of records of 77 bytes, one per pushed pair, in push order: 18 `f32`
//! little-endian (t1's then t2's vertices), the margin (`f32`), then 1 byte (`fine`). The
//! figures in the geometry engineer's report came from the `vs_parry` bench's setup run
//! (two noisy 1,280-triangle spheres; records 0..1535 the gap-0.01 pose, 1535..3621 the
//! overlap-0.02 pose), recorded with a temporary hook at the top of `PairBatch::run`
//! that appended `self.pair(i)` and the fine flag for every `i`.
//!
//! The stream of `docs/performance.md` ("Per pair"): the 3,014 pairs of the 12 touching
//! sphere poses of `msdem-tree`'s `vs_parry` bench (`kernels::stream`, the pairs that pass
//! the traversal's culling), recorded with the same temporary hook in `PairBatch::run` of
//! `per_pair_ns`'s batch.
//!
//! Run: `cargo run --release -p msdem-geom --example pair_stream -- FILE SKIP TAKE [REPS]`
//! (REPS: timing repetitions, default 21).

use msdem_geom::kernel::{
    screened_separated, triangle_triangle_exact, IterativeParams, KernelKind, KernelResult,
    PairBatch, PairOutcome,
};
use msdem_geom::math::Tri;

type Pair = (Tri, Tri, f32, bool);

fn read(path: &str, skip: usize, take: usize) -> std::io::Result<Vec<Pair>> {
    let bytes = std::fs::read(path)?;
    let mut pairs = Vec::new();
    for r in bytes.chunks_exact(77).skip(skip).take(take) {
        let f = |i: usize| f32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]]);
        let t = |o: usize| Tri {
            v: [0, 1, 2].map(|k| [f(o + 3 * k), f(o + 3 * k + 1), f(o + 3 * k + 2)]),
        };
        pairs.push((t(0), t(9), f(18), r[76] != 0));
    }
    Ok(pairs)
}

/// `min w·b − max w·a` (both orientations) over `|w|`, in `f64`.
fn axis_sep(a: &Tri, b: &Tri, w: [f64; 3]) -> f64 {
    let l = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let pr = |v: &[f32; 3]| (0..3).map(|x| v[x] as f64 * w[x]).sum::<f64>() / l;
    let (pa, pb): (Vec<f64>, Vec<f64>) =
        (a.v.iter().map(pr).collect(), b.v.iter().map(pr).collect());
    let (amin, amax) = (
        pa.iter().cloned().fold(f64::MAX, f64::min),
        pa.iter().cloned().fold(f64::MIN, f64::max),
    );
    let (bmin, bmax) = (
        pb.iter().cloned().fold(f64::MAX, f64::min),
        pb.iter().cloned().fold(f64::MIN, f64::max),
    );
    (bmin - amax).max(amin - bmax)
}

fn normal(t: &Tri) -> [f64; 3] {
    let e = |k: usize| [0, 1, 2].map(|x| (t.v[k][x] - t.v[0][x]) as f64);
    let (u, v) = (e(1), e(2));
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// Thread-CPU time of one call of `f` \[ns\].
fn cpu_ns(f: &mut dyn FnMut()) -> f64 {
    let now = || msdem_benchkit::thread_cpu_ns().expect("thread CPU clock");
    let t = now();
    f();
    (now() - t) as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// Hybrid answers that disagree with the exact kernel: a different in/out decision, or a
/// contact distance more than `C·ε` (`ε = margin / 2`) above the exact one.
fn disagreements(pairs: &[Pair], out: &[PairOutcome<u32>]) -> usize {
    let c = IterativeParams::default().c as f64;
    let mut bad = 0;
    for ((a, b, m, _), o) in pairs.iter().zip(out) {
        let d = (triangle_triangle_exact(a, b).dist_sq as f64).sqrt();
        let m = *m as f64;
        bad += match o.result {
            KernelResult::Contact(cp) => d > m || (cp.dist_sq as f64).sqrt() > d + c * 0.5 * m,
            KernelResult::Separated => d <= m,
            KernelResult::NotConverged => true,
        } as usize;
    }
    bad
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 && args.len() != 5 {
        eprintln!("usage: pair_stream FILE SKIP TAKE [REPS]");
        std::process::exit(2);
    }
    let num = |s: &str| s.parse::<usize>().unwrap_or(0);
    let pairs = read(&args[1], num(&args[2]), num(&args[3]))?;
    let reps = args.get(4).map_or(21, |s| num(s));
    let n = pairs.len();
    let (mut sep, mut fine, mut boxes, mut cen, mut planes, mut screen) = (0, 0, 0, 0, 0, 0);
    for (a, b, m, fi) in &pairs {
        let m = *m as f64;
        fine += *fi as usize;
        sep += (triangle_triangle_exact(a, b).dist() as f64 > m) as usize;
        let bx = (0..3).map(|k| {
            let mut w = [0.0; 3];
            w[k] = 1.0;
            axis_sep(a, b, w)
        });
        boxes += (bx.fold(f64::MIN, f64::max) > m) as usize;
        let c = |t: &Tri| [0, 1, 2].map(|x| t.v.iter().map(|v| v[x] as f64).sum::<f64>());
        let (ca, cb) = (c(a), c(b));
        cen += (axis_sep(a, b, [0, 1, 2].map(|x| cb[x] - ca[x])) > m) as usize;
        planes += (axis_sep(a, b, normal(a)).max(axis_sep(a, b, normal(b))) > m) as usize;
        screen += screened_separated(a, b, m as f32) as usize;
    }
    println!(
        "{n} pairs ({fine} fine), {sep} separated (exact); rejected by boxes {boxes}, \
         centroid axis {cen}, face normals {planes}, the screen (all six) {screen}"
    );
    let mut batch = PairBatch::<u32>::new();
    for (i, (a, b, m, fi)) in pairs.iter().enumerate() {
        batch.push(a, b, *m, i as u32, *fi);
    }
    let alone = IterativeParams {
        prescreen: false,
        ..Default::default()
    };
    let screened = IterativeParams::default();
    let sse2 = IterativeParams {
        use_avx2: false,
        ..alone
    };
    let mut out = Vec::new();

    // Why the iterative kernel leaves pairs undecided, by the exact distance d.
    batch.run(KernelKind::Iterative, &alone, &mut out);
    let c = alone.c as f64;
    let mut why = [0usize; 5];
    for ((a, b, m, _), o) in pairs.iter().zip(&out) {
        if o.result != KernelResult::NotConverged {
            continue;
        }
        let d = (triangle_triangle_exact(a, b).dist_sq as f64).sqrt();
        let m = *m as f64;
        let k = if d == 0.0 {
            0
        } else if (d - m).abs() <= c * 0.5 * m {
            1
        } else if d < m {
            2
        } else if o.lower as f64 > 0.0 {
            3
        } else {
            4
        };
        why[k] += 1;
    }
    println!(
        "iterative kernel undecided: {} — intersecting {}, within C·ε of the margin {}, \
         inside the margin {}, beyond it with a positive lower bound {}, beyond it without {}",
        why.iter().sum::<usize>(),
        why[0],
        why[1],
        why[2],
        why[3],
        why[4]
    );
    for (name, p) in [("alone", &alone), ("behind the pre-screen", &screened)] {
        let st = batch.run(KernelKind::Hybrid, p, &mut out);
        println!(
            "hybrid {name}: {} fallbacks, {} answers differing from the exact kernel",
            st.fallbacks,
            disagreements(&pairs, &out)
        );
    }

    // Timing: six methods interleaved, thread-CPU medians.
    let ptri = |t: &Tri| {
        let p = |k: usize| parry3d::math::Vec3::new(t.v[k][0], t.v[k][1], t.v[k][2]);
        parry3d::shape::Triangle::new(p(0), p(1), p(2))
    };
    let pp: Vec<_> = pairs
        .iter()
        .map(|(a, b, _, _)| (ptri(a), ptri(b)))
        .collect();
    let id = parry3d::math::Pose::IDENTITY;
    let mut sink = 0.0f32;
    let mut samples: [Vec<f64>; 6] = Default::default();
    for rep in 0..=reps {
        for m in 0..6 {
            let m = (m + rep) % 6;
            let t = cpu_ns(&mut || match m {
                0 => pairs
                    .iter()
                    .for_each(|(a, b, _, _)| sink += triangle_triangle_exact(a, b).dist_sq),
                1 => {
                    batch.run(KernelKind::Hybrid, &alone, &mut out);
                }
                2 => {
                    batch.run(KernelKind::Exact, &screened, &mut out);
                }
                3 => {
                    batch.run(KernelKind::Hybrid, &screened, &mut out);
                }
                4 => {
                    batch.run(KernelKind::Hybrid, &sse2, &mut out);
                }
                _ => pp.iter().for_each(|(a, b)| {
                    sink += parry3d::query::details::distance_support_map_support_map(&id, a, b)
                }),
            });
            if rep > 0 {
                samples[m].push(t / n.max(1) as f64);
            }
        }
    }
    std::hint::black_box(sink);
    let [ex, hy, exs, hys, sse, pa] = samples.map(|mut s| median(&mut s));
    println!("| kernel | ns/pair alone | ns/pair behind the pre-screen |");
    println!("|---|---|---|");
    println!("| ours exact | {ex:.1} | {exs:.1} |");
    println!("| ours hybrid | {hy:.1} | {hys:.1} |");
    println!("| ours hybrid, SSE2 lanes (`use_avx2: false`) | {sse:.1} | |");
    println!("| parry3d GJK distance (Triangle–Triangle) | {pa:.1} | |");
    println!(
        "hybrid speed-up over exact: {:.2}× alone, {:.2}× behind the pre-screen; \
         parry distance / our exact: {:.2}× ({reps} repetitions, thread-CPU medians)",
        ex / hy,
        exs / hys,
        pa / ex
    );
    Ok(())
}
