//! The incremental HGrid: cost of one insert / remove / update, and one step of a moving
//! packing (update every sphere + find pairs) against a full HGrid rebuild + query on the
//! same positions. N = 10⁵, α = −3, ω = 50, ν = 0.1 and 0.3; moves of 0.2 % of the box
//! edge per step (most spheres stay in their cell).
//!
//! `cargo bench -p msdem-broadphase --bench incremental -- --quick`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use msdem_broadphase::workload::{jiggle, random_packing, PackingSpec};
use msdem_broadphase::{BroadPhase, HGrid, HGridConfig, IncrementalHGrid, Sphere};
use std::time::Duration;

const N: usize = 100_000;

fn packing(nu: f64) -> Vec<Sphere> {
    random_packing(&PackingSpec {
        count: N,
        exponent: -3.0,
        size_ratio: 50.0,
        packing_fraction: nu,
        seed: 42,
        ..PackingSpec::default()
    })
}

/// Per-operation costs (one op per iteration, cycling through the ids).
fn ops(c: &mut Criterion) {
    let spheres = packing(0.1);
    let mut group = c.benchmark_group("incremental_ops_nu0.1");
    group.throughput(Throughput::Elements(1));
    let mut grid = IncrementalHGrid::with_spheres(HGridConfig::default(), &spheres).unwrap();
    let mut k = 0usize;
    group.bench_function("remove_then_insert", |b| {
        b.iter(|| {
            let id = (k % N) as u32;
            k += 7919;
            let s = grid.remove(id).unwrap();
            grid.insert(id, s).unwrap();
        })
    });
    // A move of 1e-6 m: same cell for (almost) every sphere.
    group.bench_function("update_same_cell", |b| {
        b.iter(|| {
            let id = (k % N) as u32;
            k += 7919;
            let mut s = spheres[id as usize];
            s.center[0] += if k % 2 == 0 { 1e-6 } else { 0.0 };
            grid.update(id, s).unwrap();
        })
    });
    // Alternating between the sphere's place and 1 m away: always a new cell.
    group.bench_function("update_new_cell", |b| {
        b.iter(|| {
            let id = (k % N) as u32;
            k += 7919;
            let mut s = grid.get(id).unwrap();
            let home = spheres[id as usize].center[0];
            s.center[0] = if s.center[0] == home {
                home + 1.0
            } else {
                home
            };
            grid.update(id, s).unwrap();
        })
    });
    group.finish();
}

/// One time step of a moving packing: incremental (update all + query) vs rebuild.
fn steps(c: &mut Criterion) {
    for nu in [0.1, 0.3] {
        let start = packing(nu);
        let edge = msdem_broadphase::workload::box_edge(start.iter().map(|s| s.radius), nu);
        // Two alternating position sets, so each step really moves every sphere.
        let mut moved = start.clone();
        jiggle(&mut moved, 0.002 * edge, 1);
        let frames = [start, moved];
        let mut group = c.benchmark_group(format!("moving_step_nu{nu}"));
        group.throughput(Throughput::Elements(N as u64));
        let mut out = Vec::new();
        let mut grid = IncrementalHGrid::with_spheres(HGridConfig::default(), &frames[0]).unwrap();
        let mut t = 0usize;
        group.bench_function("incremental_update_all_then_query", |b| {
            b.iter(|| {
                t += 1;
                for (id, s) in frames[t % 2].iter().enumerate() {
                    grid.update(id as u32, *s).unwrap();
                }
                grid.find_pairs(&mut out);
            })
        });
        group.bench_function("incremental_query_only", |b| {
            b.iter(|| grid.find_pairs(&mut out))
        });
        let mut hg = HGrid::new(HGridConfig::default()).unwrap();
        hg.find_pairs(&frames[0], &mut out).unwrap();
        group.bench_function("hgrid_rebuild_and_query", |b| {
            b.iter_batched_ref(
                || (),
                |_| {
                    t += 1;
                    hg.find_pairs(&frames[t % 2], &mut out).unwrap();
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = ops, steps
}
criterion_main!(benches);
