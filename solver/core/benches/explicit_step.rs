//! One explicit step of two 1,280-triangle noisy spheres in contact (seed 000 §6.1,
//! Table 4: 1.5e6 flat vs 8.2e3 hierarchy checks per step): triangle-pair checks and time
//! per step, flat vs hierarchy in the same run.

#[path = "../tests/common/mod.rs"]
mod common;

use common::world::*;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use msdem_geom::math::Vec3;
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_solver::detect::{Detector, Search};
use msdem_solver::params::DetectionMode;
use msdem_solver::world::World;

/// Two unit noisy spheres (η_r = 1.1) whose halos overlap, approaching at 0.2 m/s.
fn pair_in_contact() -> World {
    let mut world = empty_world(1e-4, [0.0, 0.0, 0.0]);
    for seed in [1, 2] {
        let mesh = noise_sphere(&NoiseSphere {
            radius: 1.0,
            subdivisions: 3,
            eta: 1.1,
            seed,
            ..NoiseSphere::default()
        })
        .expect("sphere");
        let s = add_shape(&mut world, &mesh);
        let m = add_material(&mut world, 1.0, 0.01, 1000.0, 0.0, 1.0);
        add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    }
    // Close the gap along x until the pair has contacts.
    let mut det = Detector::new(&world.params);
    let mut gap = world.state.bodies[0].radius + world.state.bodies[1].radius;
    loop {
        world.state.bodies[1].position = Vec3::new(gap, 0.0, 0.0);
        let (contacts, _) = detect(&world, &mut det);
        if contacts.len() >= 2 {
            break;
        }
        gap -= 1e-3;
    }
    world.state.bodies[0].velocity = Vec3::new(0.1, 0.0, 0.0);
    world.state.bodies[1].velocity = Vec3::new(-0.1, 0.0, 0.0);
    world
}

fn bench(c: &mut Criterion) {
    let base = pair_in_contact();
    let mut group = c.benchmark_group("explicit_step");
    group.sample_size(10);
    let mut totals = Vec::new();
    for (name, mode) in [
        ("hierarchy", DetectionMode::Hierarchy),
        ("flat", DetectionMode::Flat),
    ] {
        let mut world = base.clone();
        world.params.detection = mode;
        let (mut ex, mut det) = explicit(&world);
        // Alg. 5 from the roots in every step (seed Table 4); the kept active sets would
        // find every pair certified at the repeated pose of this bench.
        ex.set_search(Search::Roots(mode));
        let mut first = world.clone();
        let out = ex
            .advance(&first.model, &mut first.state, &mut det, false)
            .expect("step");
        let checks: u64 = out.stats.checks_per_level[..out.stats.checks_per_level.len() - 1]
            .iter()
            .sum();
        let fine = *out.stats.checks_per_level.last().unwrap_or(&0);
        eprintln!(
            "explicit_step::{name}: {checks} triangle-pair checks per step ({fine} fine-fine), \
             {} merged contacts, per level {:?}",
            out.stats.contacts, out.stats.checks_per_level
        );
        totals.push(checks);
        group.bench_function(name, |b| {
            b.iter_batched(
                || world.clone(),
                |mut w| {
                    ex.advance(&w.model, &mut w.state, &mut det, false)
                        .expect("step")
                },
                BatchSize::SmallInput,
            )
        });
    }
    let ratio = totals[1] as f64 / totals[0] as f64;
    eprintln!("explicit_step: flat / hierarchy checks = {ratio:.0}");
    assert!(
        ratio >= 100.0,
        "the hierarchy must check ≥ 100× fewer pairs"
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
