//! Contact dynamics: momentum conservation of a head-on pair, a particle coming to rest
//! on a plane, and energy decay with damping.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{cuboid, noise_sphere, plane, NoiseSphere};
use msdem_solver::detect::Detector;
use msdem_solver::model::ContactPoints;
use msdem_solver::world::World;

fn noisy(radius: f64, subdivisions: u32, seed: u32) -> msdem_mesh::TriMesh {
    noise_sphere(&NoiseSphere {
        radius,
        subdivisions,
        eta: 1.1,
        seed,
        ..NoiseSphere::default()
    })
    .unwrap()
}

#[test]
fn head_on_pair_conserves_linear_momentum() {
    let mut world = empty_world(1e-4, [0.0, 0.0, 0.0]);
    let sa = add_shape(&mut world, &noisy(0.5, 2, 1));
    let sb = add_shape(&mut world, &noisy(0.5, 2, 2));
    let ma = add_material(&mut world, 1.0, 0.01, 1000.0, 0.0, 1.0);
    let mb = add_material(&mut world, 1.5, 0.01, 1000.0, 0.0, 1.0);
    let ra = world.model.shapes[sa as usize].radius;
    let rb = world.model.shapes[sb as usize].radius;
    let a = add_particle(&mut world, sa, ma, [-ra - 0.01, 0.0, 0.0]) as usize;
    let b = add_particle(&mut world, sb, mb, [rb + 0.01, 0.05, 0.02]) as usize;
    world.state.bodies[a].velocity = Vec3::new(1.0, 0.0, 0.0);
    world.state.bodies[b].velocity = Vec3::new(-0.3, 0.0, 0.0);
    let momentum = |w: &World| {
        w.state
            .bodies
            .iter()
            .map(|b| b.mass * b.velocity)
            .sum::<Vec3>()
    };
    let p0 = momentum(&world);
    let (mut ex, mut det) = explicit(&world);
    let (mut contact_steps, mut max_contacts) = (0, 0);
    for _ in 0..2000 {
        let out = ex
            .advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        let p = Vec3::from(out.stats.linear_momentum);
        assert!((p - p0).norm() <= 1e-6 * p0.norm(), "{p} vs {p0}");
        if out.stats.contacts > 0 {
            contact_steps += 1;
            max_contacts = max_contacts.max(out.stats.contacts);
        } else if contact_steps > 0 && out.stats.candidate_pairs == 0 {
            break;
        }
    }
    assert!(
        contact_steps > 20,
        "the pair must collide: {contact_steps} contact steps"
    );
    // Elastic contact (e = 1): the spheres separate and swap momentum along x.
    let (va, vb) = (
        world.state.bodies[a].velocity,
        world.state.bodies[b].velocity,
    );
    assert!(vb.x - va.x > 0.5, "must separate: {va} {vb}");
    assert!(
        world.state.bodies[a].angular_velocity.norm() > 0.0,
        "off-centre impact spins"
    );
}

/// A box (0.2 × 0.15 × 0.1 m, tilted 10° about x and 5° about y) dropped 1 cm onto a
/// plane with damping and friction.
fn dropped_box(restitution: f64, friction: f64) -> (World, msdem_mesh::TriMesh) {
    dropped_box_with(restitution, friction, ContactPoints::Seed)
}

/// [`dropped_box`] with the given contact points.
fn dropped_box_with(
    restitution: f64,
    friction: f64,
    points: ContactPoints,
) -> (World, msdem_mesh::TriMesh) {
    let mut world = empty_world(1e-4, [0.0, 0.0, -9.81]);
    world.model.contact_points = points;
    let mesh = cuboid([0.2, 0.15, 0.1], 1).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, friction, restitution);
    let ground = plane([1.0, 1.0], 2, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(
        &mut world,
        &ground,
        Iso3::identity(),
        0.002,
        friction,
        restitution,
    );
    let id = add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    world.state.bodies[id as usize].orientation =
        msdem_geom::math::Quat::from_euler_angles(10f64.to_radians(), 5f64.to_radians(), 0.0);
    let lift = world.state.bodies[id as usize].epsilon + 0.002 + 0.01 - lowest_z(&world, &mesh, id);
    world.state.bodies[id as usize].position.z += lift;
    (world, mesh)
}

/// With seed points and with surface patches: the box lands on a corner, then an edge,
/// then a face; with patches the corner and the edge are held by the seed-point floor
/// (`contact::patch`), without which the box sank 8.5 mm into the 2.7 mm halo.
#[test]
fn dropped_particle_comes_to_rest_without_sinking() {
    for points in [ContactPoints::Seed, ContactPoints::Patches] {
        dropped_box_comes_to_rest(points);
    }
}

fn dropped_box_comes_to_rest(points: ContactPoints) {
    let (mut world, mesh) = dropped_box_with(0.5, 0.5, points);
    let eps = world.state.bodies[0].epsilon;
    let (mut ex, mut det) = explicit(&world);
    let mut kinetic = Vec::new();
    let mut lowest = f64::INFINITY;
    for _ in 0..8000 {
        let out = ex
            .advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        kinetic.push(out.stats.kinetic_energy);
        lowest = lowest.min(lowest_z(&world, &mesh, 0));
    }
    // Halo overlap (ε_particle + ε_plane − gap) never exceeds the particle's ε.
    let overlap = eps + 0.002 - lowest;
    assert!(
        overlap <= eps,
        "{points:?}: sank {overlap} m into the halos (ε = {eps})"
    );
    let peak = kinetic.iter().cloned().fold(0.0, f64::max);
    let last = &kinetic[kinetic.len() - 1000..];
    let before = &kinetic[kinetic.len() - 2000..kinetic.len() - 1000];
    let max_last = last.iter().cloned().fold(0.0, f64::max);
    let max_before = before.iter().cloned().fold(0.0, f64::max);
    assert!(
        max_last < 1e-6 * peak,
        "{points:?}: not at rest: {max_last} J (peak {peak} J)"
    );
    assert!(
        max_last <= max_before.max(1e-12 * peak),
        "jitter grows: {max_before} → {max_last}"
    );
    assert!(world.state.bodies[0].velocity.norm() < 1e-3);
}

#[test]
fn damped_energy_never_increases() {
    let (mut world, _) = dropped_box(0.5, 0.3);
    let (mut ex, mut det) = explicit(&world);
    let mut probe = Detector::new(&world.params);
    let e0 = total_energy(&world, &mut probe);
    let mut prev = e0;
    let mut worst: f64 = 0.0;
    for i in 0..4000 {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        if i % 10 == 9 {
            let e = total_energy(&world, &mut probe);
            worst = worst.max(e - prev);
            prev = e;
        }
    }
    let drop = e0 - prev;
    // The 1 cm fall's energy is (mostly) dissipated by the dashpot and friction.
    let fall = world.state.bodies[0].mass * 9.81 * 0.01;
    assert!(drop > 0.5 * fall, "energy must decay: {e0} → {prev} J");
    // Tolerance: Euler–Cromer conserves a shadow energy; the true energy oscillates by
    // O(ω·Δt) of the spring energy around it.
    assert!(
        worst <= 1e-3 * drop,
        "energy rose by {worst} J between samples (drop {drop} J)"
    );
}

#[test]
fn particle_sunk_past_its_halo_is_pushed_out_not_in() {
    let (mut world, mesh) = dropped_box(0.5, 0.0);
    world.params.gravity = Vec3::zeros();
    world.state.bodies[0].orientation = msdem_geom::math::Quat::identity();
    // Bottom face 3 mm below the plane's surface: p − q of the face pairs points down.
    let sink = 0.003 + lowest_z(&world, &mesh, 0);
    world.state.bodies[0].position.z -= sink;
    let (mut ex, mut det) = explicit(&world);
    let out = ex
        .advance(&world.model, &mut world.state, &mut det, true)
        .unwrap();
    assert!(!out.contacts.is_empty());
    for c in &out.contacts {
        assert!(
            c.normal[2] > 0.99,
            "normal {:?} points into the plane",
            c.normal
        );
        assert!(c.force[2] > 0.0);
    }
    assert!(world.state.bodies[0].velocity.z > 0.0);
}

/// A material or obstacle restitution below the capped dashpot's reach gets a warning
/// naming it; reachable values get none.
#[test]
fn unreachable_restitution_is_warned_about() {
    let mut w = empty_world(1e-4, [0.0; 3]);
    add_material(&mut w, 1000.0, 0.01, 1000.0, 0.3, 0.5);
    assert!(msdem_solver::run::restitution_warnings(&w).is_empty());
    add_material(&mut w, 1000.0, 0.01, 1000.0, 0.3, 0.05);
    let warnings = msdem_solver::run::restitution_warnings(&w);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let name = &w.model.materials[1].name;
    assert!(
        warnings[0].contains(&format!("material `{name}`")),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains("0.05"), "{}", warnings[0]);
}
