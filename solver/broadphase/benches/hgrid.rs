//! HGrid vs linked cells on power-law polydisperse random packings (seed 001 §5):
//! exponents α ∈ {0, −2, −3}, size ratios ω ∈ {1, 2, 5, 10, 50, 100}, packing fractions
//! ν ∈ {0.1, 0.3}, N = 10⁵; a separate `large` group with N = 10⁶.
//!
//! Criterion reports time per sphere (throughput = N elements). Sphere tests and cell
//! visits per sphere (the paper's T^cd and T^ca) are printed once per case on stderr.
//! Linked cells are skipped where they would need more than 2000 tests per sphere (tens of
//! seconds per sample; the `hgrid_vs_linked` example times them once instead).
//!
//! `cargo bench -p msdem-broadphase --bench hgrid -- --quick` for a fast pass.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use msdem_broadphase::workload::{random_packing, PackingSpec};
use msdem_broadphase::{BroadPhase, HGrid, HGridConfig, LinkedCells, Sphere};
use std::time::Duration;

fn spheres(count: usize, exponent: f64, size_ratio: f64, packing_fraction: f64) -> Vec<Sphere> {
    random_packing(&PackingSpec {
        count,
        exponent,
        size_ratio,
        packing_fraction,
        seed: 42,
        ..PackingSpec::default()
    })
}

/// Runs one query (warm-up, plans levels) and prints the work counters.
fn warm(name: &str, bp: &mut dyn BroadPhase, s: &[Sphere], out: &mut Vec<(u32, u32)>) -> u64 {
    bp.find_pairs(s, out).expect("valid packing");
    let st = bp.stats();
    let n = s.len() as f64;
    eprintln!(
        "{name}: {:.2} sphere tests/sphere, {:.2} cells/sphere, {} pairs",
        st.sphere_tests as f64 / n,
        st.cell_visits as f64 / n,
        out.len()
    );
    st.sphere_tests
}

fn polydisperse(c: &mut Criterion) {
    let n = 100_000;
    for nu in [0.1, 0.3] {
        for alpha in [0.0, -2.0, -3.0] {
            let mut group = c.benchmark_group(format!("polydisperse_nu{nu}_a{alpha}"));
            group.throughput(Throughput::Elements(n as u64));
            for omega in [1.0, 2.0, 5.0, 10.0, 50.0, 100.0] {
                let s = spheres(n, alpha, omega, nu);
                let mut out = Vec::new();
                let mut hg = HGrid::new(HGridConfig::default()).expect("config");
                let id = format!("hgrid/w{omega}");
                warm(
                    &format!("{}/{id}", group_name(nu, alpha)),
                    &mut hg,
                    &s,
                    &mut out,
                );
                group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                    b.iter(|| hg.find_pairs(&s, &mut out).expect("valid"))
                });
                let mut lc = LinkedCells::new(None, 0.0).expect("config");
                let id = format!("linked/w{omega}");
                let tests = warm(
                    &format!("{}/{id}", group_name(nu, alpha)),
                    &mut lc,
                    &s,
                    &mut out,
                );
                if tests <= 2000 * n as u64 {
                    group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                        b.iter(|| lc.find_pairs(&s, &mut out).expect("valid"))
                    });
                }
            }
            group.finish();
        }
    }
}

fn group_name(nu: f64, alpha: f64) -> String {
    format!("polydisperse_nu{nu}_a{alpha}")
}

fn large(c: &mut Criterion) {
    let n = 1_000_000;
    let mut group = c.benchmark_group("large_n1e6_nu0.3_a-3");
    group.throughput(Throughput::Elements(n as u64));
    for omega in [1.0, 10.0, 100.0] {
        let s = spheres(n, -3.0, omega, 0.3);
        let mut out = Vec::new();
        let mut hg = HGrid::new(HGridConfig::default()).expect("config");
        let id = format!("hgrid/w{omega}");
        warm(&format!("large/{id}"), &mut hg, &s, &mut out);
        group.bench_function(BenchmarkId::from_parameter(&id), |b| {
            b.iter(|| hg.find_pairs(&s, &mut out).expect("valid"))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = polydisperse, large
}
criterion_main!(benches);
