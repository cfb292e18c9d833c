//! Setup from a scenario: instanced geometry, mass properties, generators, halos, touching
//! versus interpenetrating bodies, the time-step warning.

use std::sync::Arc;

use crate::common::fixture::{scenario_text, Fixture, CUBE_SIZE, GRAIN_RADIUS};
use msdem_geom::math::Vec3;
use msdem_solver::run::time_step_warning;
use msdem_solver::scenario::load_scenario;
use msdem_solver::setup::build_world;
use msdem_solver::world::World;

const TIME: &str = "{ dt: 1.0e-4, end: 0.01, output_every: 10 }";

fn world(f: &Fixture, body: &str) -> World {
    let s = f.scenario("s.yaml", &scenario_text(TIME, body));
    build_world(&load_scenario(&s).unwrap()).unwrap()
}

fn shape_index(w: &World, name: &str) -> u32 {
    w.model.shapes.iter().position(|s| s.name == name).unwrap() as u32
}

#[test]
fn geometry_is_instanced_and_cube_mass_properties_are_exact() {
    let f = Fixture::new();
    let w = world(
        &f,
        "particles:
  - { shape: cube, material: rock, position: [0, 0, 1], orientation: [2, 0, 0, 0] }
generators:
  - lattice: { shape: grain, material: rock, origin: [1, 0, 0], spacing: [0.2, 0.2, 0.2],
               count: [3, 2, 2], velocity: [0, 0, -1] }
",
    );
    assert_eq!(w.state.bodies.len(), 13);
    assert_eq!(w.model.shapes.len(), 3);
    let grain = shape_index(&w, "grain");
    assert!(w.state.bodies[1..].iter().all(|b| b.shape == grain));
    // One tree per shape, held only by the shape: particles carry no geometry.
    for s in &w.model.shapes {
        let tree = s.geometry.tree().expect("mesh shape");
        assert_eq!(Arc::strong_count(tree), 1);
    }
    let cube = &w.state.bodies[0];
    assert_eq!(cube.shape, shape_index(&w, "cube"));
    let m = 2500.0 * CUBE_SIZE.powi(3);
    assert!((cube.mass - m).abs() < 1e-12 * m, "{}", cube.mass);
    let i = m * 2.0 * CUBE_SIZE * CUBE_SIZE / 12.0;
    for r in 0..3 {
        for c in 0..3 {
            let want = if r == c { i } else { 0.0 };
            assert!((cube.inertia[(r, c)] - want).abs() < 1e-12 * i);
            let inv = if r == c { 1.0 / i } else { 0.0 };
            assert!((cube.inv_inertia[(r, c)] - inv).abs() < 1e-9 / i);
        }
    }
    let radius = 3f64.sqrt() * CUBE_SIZE / 2.0;
    assert!((cube.radius - radius).abs() < 1e-12);
    assert!((cube.epsilon - 0.01 * 2.0 * radius).abs() < 1e-15);
    assert_eq!(cube.orientation.quaternion().w, 1.0, "normalised");
    // Icosphere: every vertex on the sphere, so the bounding radius is the sphere's.
    assert!((w.state.bodies[1].radius - GRAIN_RADIUS).abs() < 1e-12);
    // Lattice: x fastest, then y, then z; initial velocity.
    let pos: Vec<Vec3> = w.state.bodies[1..].iter().map(|b| b.position).collect();
    assert_eq!(pos[0], Vec3::new(1.0, 0.0, 0.0));
    assert!((pos[1] - Vec3::new(1.2, 0.0, 0.0)).norm() < 1e-12);
    assert!((pos[3] - Vec3::new(1.0, 0.2, 0.0)).norm() < 1e-12);
    assert!((pos[6] - Vec3::new(1.0, 0.0, 0.2)).norm() < 1e-12);
    assert!(w.state.bodies[1..]
        .iter()
        .all(|b| b.velocity == Vec3::new(0.0, 0.0, -1.0)));
    assert_eq!((w.params.dt, w.params.output_every), (1.0e-4, 10));
}

const DROP: &str = "obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.002 },
      translation: [0, 0, 0.1] }
generators:
  - drop: { shape: grain, material: rock, count: 25, min: [-0.5, -0.5, 0], max: [0.5, 0.5, 0.4],
            velocity: [0, 0, -2], random_orientation: true }
  - random_box: { shape: pebble, material: rock, count: 10, min: [-0.5, -0.5, 0], max: [0.5, 0.5, 0.4] }
";

/// `halo: { relative: X }` gives X × the bounding diameter (the product the solver always
/// formed, bit for bit), `halo: { absolute_m: X }` X metres whatever the size; an
/// obstacle's `absolute_m` is its width.
#[test]
fn halos_are_relative_to_the_bounding_diameter_or_absolute_in_metres() {
    let f = Fixture::new();
    let text = scenario_text(
        TIME,
        "obstacles:
  - { name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: { absolute_m: 0.003 } }
particles:
  - { shape: grain, material: rock, position: [0, 0, 1] }
  - { shape: cube, material: rock, position: [1, 0, 1] }
  - { shape: grain, material: glue, position: [0, 1, 1] }
  - { shape: cube, material: glue, position: [1, 1, 1] }
  - { shape: grain, material: wide, position: [0, 2, 1] }
",
    )
    .replace(
        "  rock: { density: 2500.0 }\n",
        "  rock: { density: 2500.0 }
  glue: { density: 2500.0, halo: { absolute_m: 0.004 } }
  wide: { density: 2500.0, halo: { relative: 0.03 } }
",
    );
    let s = f.scenario("s.yaml", &text);
    let w = build_world(&load_scenario(&s).unwrap()).unwrap();
    let b = &w.state.bodies;
    assert_eq!(b[0].epsilon, 0.01 * 2.0 * b[0].radius);
    assert_eq!(b[1].epsilon, 0.01 * 2.0 * b[1].radius);
    assert_ne!(b[0].radius, b[1].radius);
    assert_eq!((b[2].epsilon, b[3].epsilon), (0.004, 0.004));
    assert_eq!(b[4].epsilon, 0.03 * 2.0 * b[4].radius);
    assert_eq!(w.model.obstacles[0].epsilon, 0.003);
}

#[test]
fn random_generators_place_disjoint_particles_in_the_box_clear_of_obstacles() {
    let f = Fixture::new();
    let w = world(&f, DROP);
    assert_eq!(w.state.bodies.len(), 35);
    let floor_z = 0.1;
    let eps_floor = 0.002;
    for (i, a) in w.state.bodies.iter().enumerate() {
        let r = a.radius + a.epsilon;
        for k in 0..3 {
            let (lo, hi) = ([-0.5, -0.5, 0.0][k], [0.5, 0.5, 0.4][k]);
            assert!(a.position[k] - r >= lo - 1e-12 && a.position[k] + r <= hi + 1e-12);
        }
        assert!(
            (a.position.z - floor_z).abs() > r + eps_floor,
            "{i}: {}",
            a.position
        );
        for b in &w.state.bodies[i + 1..] {
            assert!((a.position - b.position).norm() > r + b.radius + b.epsilon);
        }
        assert!((a.orientation.norm() - 1.0).abs() < 1e-12);
    }
    let grain = shape_index(&w, "grain");
    assert!(w.state.bodies[..25]
        .iter()
        .all(|b| b.shape == grain && b.velocity.z == -2.0));
    assert!(w.state.bodies[25..]
        .iter()
        .all(|b| b.velocity == Vec3::zeros()));
    assert!(w.state.bodies[..25]
        .iter()
        .all(|b| b.orientation.angle() > 1e-6));
    assert!(w.state.bodies[25..]
        .iter()
        .all(|b| b.orientation.angle() == 0.0));
    // Obstacle pose and bounds incl. halo.
    let o = &w.model.obstacles[0];
    assert_eq!(o.pose.translation.vector, Vec3::new(0.0, 0.0, 0.1));
    assert!((o.aabb.0 - Vec3::new(-1.002, -1.002, 0.098)).norm() < 1e-12);
    assert!((o.aabb.1 - Vec3::new(1.002, 1.002, 0.102)).norm() < 1e-12);
}

#[test]
fn placement_depends_on_the_seed_only() {
    let f = Fixture::new();
    let positions = |seed: u64| -> Vec<Vec3> {
        world(&f, &format!("seed: {seed}\n{DROP}"))
            .state
            .bodies
            .iter()
            .map(|b| b.position)
            .collect()
    };
    let a = positions(3);
    assert_eq!(a, positions(3));
    assert_ne!(a, positions(4));
}

#[test]
fn halo_overlap_and_touching_are_allowed() {
    let f = Fixture::new();
    // Two grains whose halos overlap but whose surfaces are apart (vertices lie within R),
    // and a cube resting exactly on the floor.
    let w = world(
        &f,
        &format!(
            "obstacles:
  - {{ name: floor, mesh: meshes/floor.ply, tree: trees/floor.tree, halo: {{ absolute_m: 0.002 }} }}
particles:
  - {{ shape: grain, material: rock, position: [0, 0, 1] }}
  - {{ shape: grain, material: rock, position: [{}, 0, 1] }}
  - {{ shape: cube, material: rock, position: [0.5, 0.5, {}] }}
",
            2.0 * GRAIN_RADIUS + 0.5 * 0.01 * 2.0 * GRAIN_RADIUS,
            CUBE_SIZE / 2.0
        ),
    );
    assert_eq!(w.state.bodies.len(), 3);
}

#[test]
fn a_particle_inside_another_is_refused_with_both_ids() {
    let f = Fixture::new();
    let s = f.scenario(
        "s.yaml",
        &scenario_text(
            TIME,
            "particles:
  - { shape: cube, material: rock, position: [0, 0, 1] }
  - { shape: pebble, material: rock, position: [5, 0, 1] }
generators:
  - lattice: { shape: pebble, material: rock, origin: [0.004, 0.003, 1.002], spacing: [1, 1, 1], count: [1, 1, 1] }
",
        ),
    );
    // The 3 cm pebble lies inside the 10 cm cube (their surfaces never cross).
    let e = build_world(&load_scenario(&s).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "initially interpenetrating bodies: particle 0 (particles[0]) and particle 2 \
             (generators[0] (lattice)) (part of the second lies inside the first)"
        ),
        "{e}"
    );
}

#[test]
fn a_time_step_beyond_the_stability_estimate_is_warned_about() {
    let f = Fixture::new();
    let body = "particles:\n  - { shape: grain, material: rock, position: [0, 0, 1] }\n";
    let big = f.scenario(
        "big.yaml",
        &scenario_text("{ dt: 0.5, end: 1.0, output_every: 1 }", body),
    );
    let w = build_world(&load_scenario(&big).unwrap()).unwrap();
    let warning = time_step_warning(&w).expect("warning");
    assert!(warning.contains("dt = 0.5 s exceeds"), "{warning}");
    let small = f.scenario(
        "small.yaml",
        &scenario_text("{ dt: 1.0e-7, end: 1.0e-6, output_every: 1 }", body),
    );
    let w = build_world(&load_scenario(&small).unwrap()).unwrap();
    assert_eq!(time_step_warning(&w), None);
}

/// `detection.contact_points` picks the model's contact points (default: surface patches,
/// seed points under local time stepping).
#[test]
fn contact_points_key_selects_seed_points_or_surface_patches() {
    use msdem_solver::model::ContactPoints;
    let f = Fixture::new();
    let body = "particles:\n  - { shape: grain, material: rock, position: [0, 0, 1] }\n";
    assert_eq!(world(&f, body).model.contact_points, ContactPoints::Patches);
    for lts in ["local_time_stepping", "global_adaptive"] {
        let text = format!("integrator: {lts}\n{body}");
        assert_eq!(world(&f, &text).model.contact_points, ContactPoints::Seed);
        let text = format!("integrator: {lts}\ndetection: {{ contact_points: patches }}\n{body}");
        assert_eq!(
            world(&f, &text).model.contact_points,
            ContactPoints::Patches
        );
    }
    for (value, expected) in [
        ("seed", ContactPoints::Seed),
        ("patches", ContactPoints::Patches),
    ] {
        let text = format!("detection: {{ contact_points: {value} }}\n{body}");
        assert_eq!(world(&f, &text).model.contact_points, expected);
    }
}

/// Issue 16 (set-up scales): the candidates of the initial overlap check come from the
/// HGrid and the placed meshes' boxes instead of all pairs. On seeded random crowded
/// layouts of grains and cubes with random orientations, the refused pairs (their number,
/// the listed ones and how they interpenetrate) equal those of the brute force over every
/// pair with the same triangle test.
#[test]
fn refused_pairs_equal_the_all_pairs_brute_force_on_random_crowded_layouts() {
    use msdem_geom::math::{Iso3, Quat};
    use msdem_solver::setup::overlap::{penetration, Penetration, PlacedMesh};
    use rand::{Rng, SeedableRng};
    let f = Fixture::new();
    let mesh = |name: &str| {
        let (m, _) = msdem_mesh::read_mesh(f.path().join(format!("meshes/{name}.ply"))).unwrap();
        let com = msdem_mesh::mass::mass_properties(&m, 1.0).unwrap().com;
        (m.vertices, Arc::new(m.triangles), Vec3::from(com))
    };
    let shapes = [mesh("grain"), mesh("cube")];
    let mut checked = 0;
    for seed in 0..4u64 {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut lines = String::from("particles:\n");
        let mut placed = Vec::new();
        for i in 0..60 {
            let shape = usize::from(i % 3 == 0);
            let p: [f64; 3] = std::array::from_fn(|_| rng.gen::<f64>() * 0.45);
            let q = nalgebra::Quaternion::new(
                rng.gen::<f64>() - 0.5,
                rng.gen::<f64>() - 0.5,
                rng.gen::<f64>() - 0.5,
                rng.gen::<f64>() - 0.5,
            )
            .normalize();
            let name = ["grain", "cube"][shape];
            lines.push_str(&format!(
                "  - {{ shape: {name}, material: rock, position: [{:?}, {:?}, {:?}], \
                 orientation: [{:?}, {:?}, {:?}, {:?}] }}\n",
                p[0], p[1], p[2], q.w, q.i, q.j, q.k
            ));
            let rot = Quat::from_quaternion(nalgebra::Quaternion::new(q.w, q.i, q.j, q.k));
            let (v, t, com) = &shapes[shape];
            let position = Vec3::from(p);
            let iso = Iso3::from_parts((position - rot * com).into(), rot);
            placed.push(PlacedMesh::new(v, t.clone(), &iso, true));
        }
        let mut truth = Vec::new();
        for i in 0..placed.len() {
            for j in i + 1..placed.len() {
                if let Some(p) = penetration(&placed[i], &placed[j]) {
                    let how = match p {
                        Penetration::Crossing { a, b } => format!("triangles {a} and {b} cross"),
                        Penetration::FirstInside => {
                            "part of the first lies inside the second".to_owned()
                        }
                        Penetration::SecondInside => {
                            "part of the second lies inside the first".to_owned()
                        }
                    };
                    truth.push(format!(
                        "particle {i} (particles[{i}]) and particle {j} (particles[{j}]) ({how})"
                    ));
                }
            }
        }
        assert!(
            truth.len() > 8,
            "seed {seed}: layout not crowded ({})",
            truth.len()
        );
        checked += truth.len();
        let s = f.scenario("crowded.yaml", &scenario_text(TIME, &lines));
        let e = build_world(&load_scenario(&s).unwrap())
            .unwrap_err()
            .to_string();
        let expected = format!(
            "initially interpenetrating bodies: {}; and {} more pairs",
            truth[..8].join("; "),
            truth.len() - 8
        );
        assert!(e.ends_with(&expected), "seed {seed}:\n{e}\n{expected}");
    }
    assert!(checked > 40);
}
