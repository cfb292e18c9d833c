//! Cost of deciding whether a stage is up to date: hashing a stage binary and a stage's
//! inputs (`stamp::file_digest`, `stamp::stage_digest`) and verifying its recorded
//! outputs (`outputs::verify`, here the staircase's 201 frames of ≈ 12 KiB), i.e. the
//! overhead a fully up-to-date pipeline run pays per stage.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use msdem_pipeline::outputs;
use msdem_pipeline::plan::{Stage, StageKind};
use msdem_pipeline::stamp::{file_digest, stage_digest};

/// Deterministic filler bytes.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    // A stage binary of the size of the release `export` (≈ 16 MiB).
    let binary = dir.path().join("export");
    let binary_len = 16 << 20;
    std::fs::write(&binary, bytes(binary_len, 1)).unwrap();
    // A tree stage reading a 1,280-triangle mesh (≈ 32 KiB).
    std::fs::create_dir(dir.path().join("meshes")).unwrap();
    std::fs::write(dir.path().join("meshes/rock.ply"), bytes(32 << 10, 2)).unwrap();
    let stage = Stage {
        kind: StageKind::Tree,
        name: "rock".into(),
        args: vec![
            "meshes/rock.ply".into(),
            "-o".into(),
            "trees/rock.tree".into(),
        ],
        inputs: vec!["meshes/rock.ply".into()],
        input_dir: None,
        outputs: vec!["trees/rock.tree".into()],
        products: vec!["trees/rock.tree".into()],
        product_skip: Vec::new(),
        staging: None,
        clear: Vec::new(),
        hint: None,
        restart: None,
    };
    let program = file_digest(&binary).unwrap();
    let frames = dir.path().join("run/frames");
    std::fs::create_dir_all(&frames).unwrap();
    for i in 0..201u64 {
        let name = format!("frame_{i:06}.msdem");
        std::fs::write(frames.join(name), bytes(12 << 10, 10 + i)).unwrap();
    }
    let products = [std::path::PathBuf::from("run")];
    let recorded = outputs::record(dir.path(), &products, &[]).unwrap();

    let mut group = c.benchmark_group("stamp");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(binary_len as u64));
    group.bench_function("binary_16MiB", |b| b.iter(|| file_digest(&binary).unwrap()));
    group.throughput(Throughput::Bytes(32 << 10));
    group.bench_function("tree_stage_32KiB_mesh", |b| {
        b.iter(|| stage_digest(&stage, &program, dir.path()).unwrap())
    });
    group.throughput(Throughput::Bytes(201 * (12 << 10)));
    group.bench_function("verify_201_frames_12KiB", |b| {
        b.iter(|| {
            let found = outputs::verify(dir.path(), &products, &[], &recorded).unwrap();
            assert!(found.is_none());
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
