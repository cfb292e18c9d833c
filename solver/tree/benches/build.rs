//! Build time of surrogate trees over noisy spheres (80 … 20,480 triangles), one thread,
//! and over the shipped Stanford bunny (`meshes/bunny.ply`, 69,674 triangles) with one and
//! two threads, plus `find_contacts` between two touching 1,280-triangle noisy spheres: hierarchy with
//! the exact kernel, hierarchy with the batched hybrid kernel (§5.4), flat with either.
//! The setup prints each case's contacts and checks (the hybrid contacts are compared with
//! the exact ones) so that the ratios can be read from one run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use msdem_geom::kernel::KernelKind;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{build_tree, find_contacts, BuildParams, LevelStats, Mode, Scratch};

fn sphere(k: u32, seed: u32) -> msdem_mesh::TriMesh {
    noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: k,
        eta: 1.2,
        seed,
        ..Default::default()
    })
    .unwrap()
}

fn build(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    for k in 1..=5u32 {
        let m = sphere(k, 1);
        let p = BuildParams::default();
        g.bench_with_input(
            BenchmarkId::new("noisy_sphere_1thread", m.triangles.len()),
            &m,
            |b, m| b.iter(|| pool.install(|| build_tree(m, [0; 32], &p).unwrap())),
        );
    }
    // The scanned mesh of issue 15, one and two threads.
    let bunny_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../meshes/bunny.ply");
    let (bunny, _) = msdem_mesh::read_mesh(bunny_path).unwrap();
    let pool2 = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let p = BuildParams::default();
    for (name, pool) in [("bunny_1thread", &pool), ("bunny_2threads", &pool2)] {
        g.bench_with_input(
            BenchmarkId::new(name, bunny.triangles.len()),
            &bunny,
            |b, m| b.iter(|| pool.install(|| build_tree(m, [0; 32], &p).unwrap())),
        );
    }
    // The cost of the halo refinement: 5,120 triangles with the eq. (6) fit only.
    let m = sphere(4, 1);
    let plain = BuildParams {
        refine_iterations: 0,
        ..BuildParams::default()
    };
    g.bench_with_input(
        BenchmarkId::new("noisy_sphere_1thread_unrefined", m.triangles.len()),
        &m,
        |b, m| b.iter(|| pool.install(|| build_tree(m, [0; 32], &plain).unwrap())),
    );
    g.finish();
}

fn traverse(c: &mut Criterion) {
    let p = BuildParams::default();
    let (a, b) = (
        build_tree(&sphere(3, 1), [0; 32], &p).unwrap(),
        build_tree(&sphere(3, 2), [0; 32], &p).unwrap(),
    );
    // The same meshes without the halo refinement (eq. (6) surrogates only).
    let plain = BuildParams {
        refine_iterations: 0,
        ..BuildParams::default()
    };
    let (pa, pb) = (
        build_tree(&sphere(3, 1), [0; 32], &plain).unwrap(),
        build_tree(&sphere(3, 2), [0; 32], &plain).unwrap(),
    );
    // Touching pose: centres 1.05 apart along a skew axis (radii in [0.5, 0.6]).
    let iso = Iso3::new(
        Vec3::new(0.6, 0.6, 0.6).normalize() * 1.05,
        Vec3::new(0.4, -0.3, 0.2),
    );
    let mut g = c.benchmark_group("traverse");
    g.sample_size(10);
    let cases = [
        (
            "hierarchy_exact",
            Mode::Hierarchy,
            KernelKind::Exact,
            &a,
            &b,
        ),
        (
            "hierarchy_hybrid",
            Mode::Hierarchy,
            KernelKind::Hybrid,
            &a,
            &b,
        ),
        (
            "hierarchy_exact_unrefined",
            Mode::Hierarchy,
            KernelKind::Exact,
            &pa,
            &pb,
        ),
        (
            "hierarchy_hybrid_unrefined",
            Mode::Hierarchy,
            KernelKind::Hybrid,
            &pa,
            &pb,
        ),
        ("flat_exact", Mode::Flat, KernelKind::Exact, &a, &b),
        ("flat_hybrid", Mode::Flat, KernelKind::Hybrid, &a, &b),
    ];
    let mut reference: Option<Vec<(u32, u32)>> = None;
    for (name, mode, kernel, a, b) in cases {
        let mut scratch = Scratch::new();
        let mut out = Vec::new();
        let mut st = LevelStats::default();
        find_contacts(
            a,
            0.01,
            b,
            0.01,
            &iso,
            mode,
            kernel,
            &mut scratch,
            &mut out,
            &mut st,
        );
        let mut keys: Vec<(u32, u32)> = out
            .iter()
            .map(|c| (a.source[c.tri_a as usize], b.source[c.tri_b as usize]))
            .collect();
        keys.sort_unstable();
        let same = reference.get_or_insert_with(|| keys.clone()) == &keys;
        eprintln!(
            "traverse::{name}: {} contacts (same pairs as hierarchy_exact: {same}), {} checks ({} fine, {} fallbacks)",
            out.len(),
            st.total(),
            st.fine,
            st.fallbacks
        );
        g.bench_function(name, |bch| {
            bch.iter(|| {
                out.clear();
                find_contacts(
                    a,
                    0.01,
                    b,
                    0.01,
                    &iso,
                    mode,
                    kernel,
                    &mut scratch,
                    &mut out,
                    &mut st,
                );
                out.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, build, traverse);
criterion_main!(benches);
