//! The pattern generators of local time stepping's scenarios (seed 004 §8): `pairs`,
//! `stack` and `ring` set up worlds without initial overlaps, in the arrangement they
//! promise.

use crate::common::fixture::{scenario_text, Fixture, CUBE_SIZE, GRAIN_RADIUS};
use msdem_geom::math::Vec3;
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

const TIME: &str = "{ dt: 1.0e-4, end: 0.01, output_every: 10 }";

fn world(f: &Fixture, body: &str) -> World {
    let s = f.scenario("s.yaml", &scenario_text(TIME, body));
    build_world(&load_scenario(&s).unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

/// Brute force: two axis-aligned cubes of side `s` overlap iff their centres are closer
/// than `s` along every axis.
fn cubes_overlap(a: &Vec3, b: &Vec3, s: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < s)
}

#[test]
fn stacks_stand_layer_on_layer_without_overlap_with_growing_slant() {
    let f = Fixture::new();
    let layer = CUBE_SIZE + 0.002;
    let w = world(
        &f,
        &format!(
            "generators:
  - stack: {{ shape: cube, material: rock, count: 6, stacks: [3, 2], origin: [0, 0, 0.06],
             pitch_m: [0.4, 0.5], layer_m: {layer}, slant_m: [0.0, 0.02] }}
"
        ),
    );
    let b = &w.state.bodies;
    assert_eq!(b.len(), 36);
    for (i, p) in b.iter().enumerate() {
        for q in &b[i + 1..] {
            assert!(
                !cubes_overlap(&p.position, &q.position, CUBE_SIZE),
                "{} {}",
                p.position,
                q.position
            );
        }
        assert!(p.velocity == Vec3::zeros() && p.orientation.angle() == 0.0);
    }
    for (s, stack) in b.chunks(6).enumerate() {
        let (ix, iy) = (s % 3, s / 3);
        let slant = 0.01 * ix as f64;
        assert!(
            (stack[0].position - Vec3::new(0.4 * ix as f64, 0.5 * iy as f64, 0.06)).norm() < 1e-12
        );
        for w in stack.windows(2) {
            let d = w[1].position - w[0].position;
            assert!(
                (d - Vec3::new(slant, 0.0, layer)).norm() < 1e-12,
                "stack {s}: {d}"
            );
        }
    }
}

#[test]
fn rings_face_outwards_in_staggered_courses_without_overlap() {
    let f = Fixture::new();
    let (count, radius) = (16_u32, 0.35);
    let w = world(
        &f,
        &format!(
            "generators:
  - ring: {{ shape: cube, material: rock, count: {count}, layers: 3, center: [0, 0, 0.06],
            radius_m: {radius}, layer_m: 0.102 }}
"
        ),
    );
    let b = &w.state.bodies;
    assert_eq!(b.len(), 48);
    let step = std::f64::consts::TAU / f64::from(count);
    for (i, p) in b.iter().enumerate() {
        let layer = i / count as usize;
        let angle =
            (i % count as usize) as f64 * step + if layer % 2 == 1 { 0.5 * step } else { 0.0 };
        let radial = Vec3::new(angle.cos(), angle.sin(), 0.0);
        let want = radial * radius + Vec3::new(0.0, 0.0, 0.06 + 0.102 * layer as f64);
        assert!((p.position - want).norm() < 1e-12, "{i}: {}", p.position);
        // The cube's +x face looks outwards.
        assert!((p.orientation * Vec3::x() - radial).norm() < 1e-12);
    }
    // build_world refuses interpenetrating meshes; the courses are also a layer apart.
    assert!(b.iter().all(|p| p.position.z >= 0.06 - 1e-12));
}

#[test]
fn pairs_move_head_on_towards_their_partners() {
    let f = Fixture::new();
    let w = world(
        &f,
        "generators:
  - pairs: { shape: grain, material: rock, count: 5, origin: [0, 0, 1], pitch_m: 0.2,
             separation_m: 0.6, speed_m_s: [0.5, 1.5] }
",
    );
    let b = &w.state.bodies;
    assert_eq!(b.len(), 10);
    for (i, pair) in b.chunks(2).enumerate() {
        let z = 1.0 + 0.2 * i as f64;
        assert!((pair[0].position - Vec3::new(-0.3, 0.0, z)).norm() < 1e-12);
        assert!((pair[1].position - Vec3::new(0.3, 0.0, z)).norm() < 1e-12);
        assert!(pair[0].velocity.x >= 0.5 && pair[0].velocity.x <= 1.5);
        assert!(pair[1].velocity.x <= -0.5 && pair[1].velocity.x >= -1.5);
        assert!(pair
            .iter()
            .all(|p| p.velocity.y == 0.0 && p.velocity.z == 0.0));
    }
    assert!(
        0.2 > 2.0 * (GRAIN_RADIUS + b[0].epsilon),
        "pairs a pitch apart never touch"
    );
}
