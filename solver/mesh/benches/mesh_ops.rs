//! Throughput of the stage-1 operations on a 20,480-triangle noisy sphere (k = 5):
//! reading each format, topology check, mass properties, generation.
//!
//! `cargo bench -p msdem-mesh --bench mesh_ops -- --quick`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use msdem_mesh::check::{check_mesh, Role};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_mesh::mass::mass_properties;
use msdem_mesh::{read_mesh, write_mesh};
use std::hint::black_box;

fn params() -> NoiseSphere {
    NoiseSphere {
        radius: 0.05,
        subdivisions: 5,
        eta: 1.3,
        seed: 1,
        octaves: 4,
        stretch: 1.0,
    }
}

fn bench(c: &mut Criterion) {
    let mesh = noise_sphere(&params()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("mesh");
    g.throughput(Throughput::Elements(mesh.triangles.len() as u64));
    g.sample_size(20);
    for ext in ["ply", "obj", "stl"] {
        let path = dir.path().join(format!("s.{ext}"));
        write_mesh(&path, &mesh).unwrap();
        g.bench_function(format!("read::{ext}"), |b| {
            b.iter(|| read_mesh(black_box(&path)).unwrap())
        });
    }
    g.bench_function("write::ply", |b| {
        b.iter(|| write_mesh(dir.path().join("w.ply"), black_box(&mesh)).unwrap())
    });
    g.bench_function("check::particle", |b| {
        b.iter(|| check_mesh(black_box(&mesh), Role::Particle))
    });
    g.bench_function("mass::properties", |b| {
        b.iter(|| mass_properties(black_box(&mesh), 2500.0).unwrap())
    });
    g.bench_function("generate::noise_sphere", |b| {
        b.iter(|| noise_sphere(black_box(&params())).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
