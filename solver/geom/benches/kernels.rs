//! ns per triangle pair of the exact, iterative and hybrid kernels (seed 000 §6.3, Tables
//! 2–3), single thread, on pair sets that mimic a sphere–sphere and a sphere–plane contact,
//! plus the mixed hard-case set of the tests. Default cases run the run-time-dispatched
//! AVX2 copy of the lanes where the CPU has it (the default since issue 15's closed-form
//! start); `*_sse2` cases the x86-64 baseline (SSE2) lanes. All cases run the separation
//! pre-screen ([`IterativeParams::prescreen`]) except `*_unscreened`, which time the
//! kernels alone.
//!
//! Timing: the cases of a set interleaved in one process, thread-CPU time of one whole
//! batch run per sample, medians of `REPS` samples (the machine is shared: wall-clock
//! timers such as criterion's count other processes' time). Per set the hybrid's fallback
//! rate and its answers are checked against the exact kernel's first (same decisions).
//!
//! Run: `cargo bench -p msdem-geom --bench kernels [-- --quick]` (`--quick`: 5 samples).

#[path = "../tests/common/pairs.rs"]
mod pairs;

use msdem_geom::kernel::{IterativeParams, KernelKind, KernelResult, PairBatch, PairOutcome};
use msdem_geom::math::{Iso3, Tri, Vec3, P32};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Unit icosphere as a triangle soup (`levels` subdivisions: 20·4^levels triangles).
fn icosphere(levels: u32, radius: f32) -> Vec<Tri> {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let v: [P32; 12] = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let f: [[usize; 3]; 20] = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    let norm = |p: P32| {
        let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        p.map(|x| x / l)
    };
    let mid = |a: P32, b: P32| {
        norm([
            (a[0] + b[0]) / 2.0,
            (a[1] + b[1]) / 2.0,
            (a[2] + b[2]) / 2.0,
        ])
    };
    let mut tris: Vec<[P32; 3]> = f.iter().map(|t| t.map(|i| norm(v[i]))).collect();
    for _ in 0..levels {
        tris = tris
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
                [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
            })
            .collect();
    }
    tris.into_iter()
        .map(|t| Tri {
            v: t.map(|p| p.map(|x| x * radius)),
        })
        .collect()
}

fn centroid(t: &Tri) -> P32 {
    [0, 1, 2].map(|a| (t.v[0][a] + t.v[1][a] + t.v[2][a]) / 3.0)
}

fn dist(a: P32, b: P32) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Two 1,280-triangle unit spheres (B randomly rotated) at gap `ε/2` (halos overlap):
/// every pair of triangles whose centroids lie within 0.5 of the contact point.
fn sphere_sphere(eps: f32) -> Vec<(Tri, Tri)> {
    let a = icosphere(3, 1.0);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let axis = Vec3::new(rng.gen(), rng.gen(), rng.gen()).normalize();
    let iso = Iso3::new(
        Vec3::new(2.0 + 0.5 * eps as f64, 0.0, 0.0),
        axis * rng.gen::<f64>(),
    );
    let b: Vec<Tri> = a.iter().map(|t| t.transformed(&iso)).collect();
    let c = [1.0 + 0.25 * eps, 0.0, 0.0];
    let near = |s: &[Tri]| -> Vec<Tri> {
        s.iter()
            .filter(|t| dist(centroid(t), c) < 0.5)
            .copied()
            .collect()
    };
    let (na, nb) = (near(&a), near(&b));
    na.iter()
        .flat_map(|x| nb.iter().map(move |y| (*x, *y)))
        .collect()
}

/// A 1,280-triangle unit sphere resting at gap `ε/2` on a plane of two 20 × 20 triangles:
/// every sphere triangle against both plane triangles (seed 000 Table 3 setup).
fn sphere_plane(eps: f32) -> Vec<(Tri, Tri)> {
    let s = icosphere(3, 1.0);
    let z = -1.0 - 0.5 * eps;
    let plane = [
        Tri::new([-10.0, -10.0, z], [10.0, -10.0, z], [10.0, 10.0, z]),
        Tri::new([-10.0, -10.0, z], [10.0, 10.0, z], [-10.0, 10.0, z]),
    ];
    s.iter()
        .flat_map(|t| plane.iter().map(move |p| (*t, *p)))
        .collect()
}

/// The mixed hard cases of the correctness test (near contact by construction).
fn hard_cases(eps: f32) -> Vec<(Tri, Tri)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    (0..9000)
        .map(|i| pairs::pair(&mut rng, i % pairs::CATEGORIES.len(), eps))
        .collect()
}

/// Thread-CPU time of one call of `f` \[ns\].
fn cpu_ns(f: &mut dyn FnMut()) -> f64 {
    let now = || msdem_benchkit::thread_cpu_ns().expect("thread CPU clock");
    let t = now();
    f();
    (now() - t) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// Whether two outcomes make the same contact decision.
fn same_decision(a: &PairOutcome<u32>, b: &PairOutcome<u32>) -> bool {
    matches!(a.result, KernelResult::Contact(_)) == matches!(b.result, KernelResult::Contact(_))
}

fn main() {
    let reps = if std::env::args().any(|a| a == "--quick") {
        5
    } else {
        21
    };
    let eps = 0.02; // 1e-2 × diameter of the unit spheres
    let params = IterativeParams::default();
    let sets = [
        ("sphere_sphere", sphere_sphere(eps), 2.0 * eps),
        ("sphere_plane", sphere_plane(eps), 2.0 * eps),
        ("hard_cases", hard_cases(0.05), 0.1),
    ];
    let sse2 = IterativeParams {
        use_avx2: false,
        ..params
    };
    let bare = IterativeParams {
        prescreen: false,
        ..params
    };
    let cases = [
        ("Exact", KernelKind::Exact, params),
        ("Iterative", KernelKind::Iterative, params),
        ("Hybrid", KernelKind::Hybrid, params),
        ("Iterative_sse2", KernelKind::Iterative, sse2),
        ("Hybrid_sse2", KernelKind::Hybrid, sse2),
        ("Exact_unscreened", KernelKind::Exact, bare),
        ("Hybrid_unscreened", KernelKind::Hybrid, bare),
    ];
    println!("| set | {} |", cases.map(|c| c.0).join(" | "));
    println!("|---|{}", "---|".repeat(cases.len()));
    for (name, pairs, margin) in &sets {
        let mut batch = PairBatch::<u32>::new();
        for (i, (t1, t2)) in pairs.iter().enumerate() {
            batch.push(t1, t2, *margin, i as u32, true);
        }
        let (mut exact, mut out) = (Vec::new(), Vec::new());
        batch.run(KernelKind::Exact, &params, &mut exact);
        let st = batch.run(KernelKind::Hybrid, &params, &mut out);
        let differ = exact
            .iter()
            .zip(&out)
            .filter(|(e, h)| !same_decision(e, h))
            .count();
        let contacts = out
            .iter()
            .filter(|o| o.result.contact_pair().is_some())
            .count();
        eprintln!(
            "{name}: {} pairs, {contacts} contacts, fallback rate {:.3}%, {differ} decisions \
             differing from the exact kernel's",
            st.pairs,
            100.0 * st.fallbacks as f64 / st.pairs as f64
        );
        let mut samples = vec![Vec::new(); cases.len()];
        for rep in 0..=reps {
            for c in 0..cases.len() {
                let c = (c + rep) % cases.len();
                let (_, kind, prm) = cases[c];
                let t = cpu_ns(&mut || {
                    batch.run(kind, &prm, &mut out);
                });
                if rep > 0 {
                    samples[c].push(t / pairs.len().max(1) as f64);
                }
            }
        }
        let ns: Vec<String> = samples
            .into_iter()
            .map(|s| format!("{:.1}", median(s)))
            .collect();
        println!("| {name} | {} |", ns.join(" | "));
    }
    println!("(ns per pair, thread-CPU medians of {reps} interleaved samples)");
}
