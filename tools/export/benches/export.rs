//! Export throughput on a synthetic frame: 100 icosphere particles (320 triangles each) on
//! a plane. Cases: posing, `.vtp` encoding (compressed, base64), PLY encoding, preview
//! rendering, PNG encoding.

use criterion::{criterion_group, criterion_main, Criterion};
use msdem_export::ply::ply_bytes;
use msdem_export::png_out::png_bytes;
use msdem_export::preview::render_preview;
use msdem_export::scene::{pose_obstacles, pose_particles};
use msdem_export::vtk_series::particles_polydata;
use msdem_export::vtp::VtkFormat;
use msdem_export::RunFolder;
use msdem_frames::*;

fn scene() -> (RunFolder, Frame) {
    let sphere = msdem_mesh::generate::icosphere(0.05, 2).unwrap();
    let floor = msdem_mesh::generate::plane([2.0, 2.0], 4, [0.0; 3]).unwrap();
    let manifest = RunManifest {
        name: "bench".into(),
        dt: 1e-4,
        output_every: 100,
        shapes: vec![ShapeRecord {
            name: "sphere".into(),
            mesh: String::new(),
            mesh_hash: [0; 32],
            com: [0.0; 3],
            triangles: sphere.triangles.len() as u32,
            ellipsoid: None,
        }],
        obstacles: vec![ObstacleRecord {
            name: "floor".into(),
            mesh: String::new(),
            mesh_hash: [0; 32],
            translation: [0.0; 3],
            rotation: [1.0, 0.0, 0.0, 0.0],
        }],
        particles: (0..100)
            .map(|_| ParticleRecord {
                shape: 0,
                mass: 1.0,
                radius: 0.05,
                epsilon: 1e-3,
                material: 0,
                inertia: [[1e-3, 0.0, 0.0], [0.0, 1e-3, 0.0], [0.0, 0.0, 1e-3]],
            })
            .collect(),
        levels: 3,
    };
    let bodies = (0..100)
        .map(|i| {
            let (x, y) = ((i % 10) as f64 * 0.15 - 0.7, (i / 10) as f64 * 0.15 - 0.7);
            let a = 0.1 * i as f64;
            BodyState {
                position: [x, y, 0.06 + 0.01 * (i % 3) as f64],
                orientation: [a.cos(), 0.0, a.sin(), 0.0],
                velocity: [0.0, 0.0, -1.0],
                angular_velocity: [1.0, 0.0, 0.0],
            }
        })
        .collect();
    let run = RunFolder {
        root: ".".into(),
        manifest,
        shape_meshes: vec![sphere],
        obstacle_meshes: vec![floor],
        frames: vec![0],
    };
    let frame = Frame {
        step: 0,
        time: 0.0,
        bodies,
        contacts: Vec::new(),
        loads: vec![BodyLoad::default(); 100],
    };
    (run, frame)
}

fn bench(c: &mut Criterion) {
    let (run, frame) = scene();
    let posed = pose_particles(&run, &frame);
    let obstacles = pose_obstacles(&run);
    let mut g = c.benchmark_group("export");
    g.sample_size(20);
    g.bench_function("pose::100x320", |b| b.iter(|| pose_particles(&run, &frame)));
    for (name, format) in [
        ("vtp_compressed::100x320", VtkFormat::Compressed),
        ("vtp_base64::100x320", VtkFormat::Base64),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| particles_polydata(&posed).to_vtp(format).unwrap())
        });
    }
    g.bench_function("ply::100x320", |b| {
        b.iter(|| ply_bytes(&posed.soup, "particle_id", "").unwrap())
    });
    g.bench_function("preview::100x320_1024x768", |b| {
        b.iter(|| render_preview(&posed.soup, &obstacles, 1024, 768))
    });
    let (img, _) = render_preview(&posed.soup, &obstacles, 1024, 768);
    g.bench_function("png::1024x768", |b| b.iter(|| png_bytes(&img).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
