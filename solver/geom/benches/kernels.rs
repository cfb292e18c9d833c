//! ns per triangle pair of the exact, iterative and hybrid kernels (seed 000 §6.3, Tables
//! 2–3), single thread, on pair sets that mimic a sphere–sphere and a sphere–plane contact,
//! plus the mixed hard-case set of the tests. The fallback rate of each set is printed once.
//! Default cases run the run-time-dispatched AVX2 copy of the lanes where the CPU has it
//! (the default since issue 15's closed-form start); `*_sse2` cases the x86-64 baseline
//! (SSE2) lanes. All cases run the separation pre-screen
//! ([`IterativeParams::prescreen`]) except `*_unscreened`, which time the kernels alone.
//!
//! Run: `cargo bench -p msdem-geom --bench kernels` (add `-- --quick` while developing).

#[path = "../tests/common/pairs.rs"]
mod pairs;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msdem_geom::kernel::{IterativeParams, KernelKind, PairBatch, PairOutcome};
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

fn bench(c: &mut Criterion) {
    let eps = 0.02; // 1e-2 × diameter of the unit spheres
    let params = IterativeParams::default();
    let sets = [
        ("sphere_sphere", sphere_sphere(eps)),
        ("sphere_plane", sphere_plane(eps)),
        ("hard_cases", hard_cases(0.05)),
    ];
    let mut g = c.benchmark_group("kernels");
    for (name, pairs) in &sets {
        let margin = if *name == "hard_cases" {
            0.1
        } else {
            2.0 * eps
        };
        let mut batch = PairBatch::<u32>::new();
        for (i, (t1, t2)) in pairs.iter().enumerate() {
            batch.push(t1, t2, margin, i as u32, true);
        }
        let mut out: Vec<PairOutcome<u32>> = Vec::new();
        let st = batch.run(KernelKind::Hybrid, &params, &mut out);
        let contacts = out
            .iter()
            .filter(|o| o.result.contact_pair().is_some())
            .count();
        eprintln!(
            "{name}: {} pairs, {contacts} contacts, fallback rate {:.3}%",
            st.pairs,
            100.0 * st.fallbacks as f64 / st.pairs as f64
        );
        g.throughput(Throughput::Elements(pairs.len() as u64));
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
        for (case, kind, prm) in cases {
            g.bench_with_input(BenchmarkId::new(case, name), &batch, |b, batch| {
                b.iter(|| batch.run(kind, &prm, &mut out))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
