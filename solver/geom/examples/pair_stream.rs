//! ns/pair of the batched kernels, with and without the separation pre-screen, on a pair
//! stream recorded from a real traversal, plus how many pairs each screening axis alone
//! would reject (evidence for the screen's choice of axes, see `kernel/screen.rs`).
//!
//! Input: a file of records of 77 bytes, one per pushed pair, in push order: 18 `f32`
//! little-endian (t1's then t2's vertices), the margin (`f32`), then 1 byte (`fine`). The
//! figures in the geometry engineer's report came from the `vs_parry` bench's setup run
//! (two noisy 1,280-triangle spheres; records 0..1535 the gap-0.01 pose, 1535..3621 the
//! overlap-0.02 pose), recorded with a temporary hook at the top of `PairBatch::run`
//! that appended `self.pair(i)` and the fine flag for every `i`.
//!
//! Run: `cargo run --release -p msdem-geom --example pair_stream -- FILE SKIP TAKE`.

use msdem_geom::kernel::{
    screened_separated, triangle_triangle_exact, IterativeParams, KernelKind, KernelResult,
    PairBatch,
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

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: pair_stream FILE SKIP TAKE");
        std::process::exit(2);
    }
    let num = |s: &str| s.parse::<usize>().unwrap_or(0);
    let pairs = read(&args[1], num(&args[2]), num(&args[3]))?;
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
    let mut out = Vec::new();
    for prescreen in [false, true] {
        for kind in [KernelKind::Exact, KernelKind::Hybrid] {
            let p = IterativeParams {
                prescreen,
                ..Default::default()
            };
            let st = batch.run(kind, &p, &mut out);
            let mut ns = f64::INFINITY;
            for _ in 0..7 {
                let t = std::time::Instant::now();
                for _ in 0..200 {
                    batch.run(kind, &p, &mut out);
                }
                ns = ns.min(t.elapsed().as_nanos() as f64 / (200 * n.max(1)) as f64);
            }
            let s = out
                .iter()
                .filter(|o| o.result == KernelResult::Separated)
                .count();
            println!("{kind:?} prescreen {prescreen}: {ns:.1} ns/pair, {s} separated, {st:?}");
        }
    }
    Ok(())
}
