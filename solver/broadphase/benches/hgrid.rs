//! HGrid vs linked cells on power-law polydisperse random packings (seed 001 §5):
//! exponents α ∈ {0, −2, −3}, size ratios ω ∈ {1, 2, 5, 10, 50, 100}, packing fractions
//! ν ∈ {0.1, 0.3}, N = 10⁵; a separate `large` group with N = 10⁶.
//!
//! Criterion reports time per sphere (throughput = N elements). Sphere tests and cell
//! visits per sphere (the paper's T^cd and T^ca) are printed once per case on stderr.
//! Linked cells are skipped for α = −3, ω ≥ 50, where they need 2000–16000 tests per
//! sphere (seconds per sample; the `hgrid_vs_linked` example times them once instead).
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
fn warm(name: &str, bp: &mut dyn BroadPhase, s: &[Sphere], out: &mut Vec<(u32, u32)>) {
    bp.find_pairs(s, out).expect("valid packing");
    let st = bp.stats();
    let n = s.len() as f64;
    eprintln!(
        "{name}: {:.2} sphere tests/sphere, {:.2} cells/sphere, {} pairs",
        st.sphere_tests as f64 / n,
        st.cell_visits as f64 / n,
        out.len()
    );
}

/// A built case: spheres, warmed-up broad phase, output buffer.
type Case<B> = (Vec<Sphere>, B, Vec<(u32, u32)>);

/// Registers one benchmark whose sphere set and broad phase are built (and warmed up) only
/// when criterion actually runs it, so a filtered run costs nothing for the other cases.
fn case<B: BroadPhase>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: String,
    id: &str,
    make: impl Fn() -> (Vec<Sphere>, B),
) {
    let mut state: Option<Case<B>> = None;
    group.bench_function(BenchmarkId::from_parameter(id), |b| {
        let (s, bp, out) = state.get_or_insert_with(|| {
            let (s, mut bp) = make();
            let mut out = Vec::new();
            warm(&format!("{name}/{id}"), &mut bp, &s, &mut out);
            (s, bp, out)
        });
        b.iter(|| bp.find_pairs(s, out).expect("valid"))
    });
}

fn polydisperse(c: &mut Criterion) {
    let n = 100_000;
    for nu in [0.1, 0.3] {
        for alpha in [0.0, -2.0, -3.0] {
            let name = format!("polydisperse_nu{nu}_a{alpha}");
            let mut group = c.benchmark_group(&name);
            group.throughput(Throughput::Elements(n as u64));
            for omega in [1.0, 2.0, 5.0, 10.0, 50.0, 100.0] {
                case(&mut group, name.clone(), &format!("hgrid/w{omega}"), || {
                    let hg = HGrid::new(HGridConfig::default()).expect("config");
                    (spheres(n, alpha, omega, nu), hg)
                });
                // Linked cells need 2000–16000 tests per sphere for α = −3, ω ≥ 50.
                if !(alpha <= -3.0 && omega >= 50.0) {
                    case(
                        &mut group,
                        name.clone(),
                        &format!("linked/w{omega}"),
                        || {
                            let lc = LinkedCells::new(None, 0.0).expect("config");
                            (spheres(n, alpha, omega, nu), lc)
                        },
                    );
                }
            }
            group.finish();
        }
    }
}

fn large(c: &mut Criterion) {
    let n = 1_000_000;
    let name = "large_n1e6_nu0.3_a-3".to_string();
    let mut group = c.benchmark_group(&name);
    group.throughput(Throughput::Elements(n as u64));
    for omega in [1.0, 10.0, 100.0] {
        case(&mut group, name.clone(), &format!("hgrid/w{omega}"), || {
            let hg = HGrid::new(HGridConfig::default()).expect("config");
            (spheres(n, -3.0, omega, 0.3), hg)
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
