//! Test scenes for the local time stepping integrators and the run helper that checks the
//! seed's correctness statements on every sweep.

use crate::common::world::{add_material, add_obstacle, add_particle, add_shape, empty_world};
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Iso3, Point3, Quat, Tri, Vec3};
use msdem_mesh::generate::{cuboid, icosphere, plane};
use msdem_mesh::TriMesh;
use msdem_solver::frames::lts::LtsStepStats;
use msdem_solver::integrator::lts::{LocalTimeStepping, LtsMode};
use msdem_solver::world::World;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Sphere radius of the pair scenes [m].
pub const R: f64 = 0.05;
/// Restitution of the pair scenes [-].
pub const E: f64 = 0.8;

/// One pair of the pair scene: particle ids and initial velocities along x [m/s].
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
    pub va: f64,
    pub vb: f64,
}

/// `n` pairs of spheres on head-on collision courses along x, one pair per height, random
/// speeds and collision times in [0.01, 0.15] s; a vertex of each triangulated sphere
/// points along ±x so that the contact normal is the line of centres. Half the pairs have
/// a heavier right sphere. No gravity (seed 004 §8.1).
pub fn pairs_world(n: usize, seed: u64, dt: f64, end: f64) -> (World, Vec<Pair>, TriMesh) {
    let mut world = empty_world(dt, [0.0; 3]);
    world.params.end = end;
    let mesh = icosphere(R, 1).expect("icosphere");
    let shape = add_shape(&mut world, &mesh);
    let light = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, E);
    let heavy = add_material(&mut world, 2500.0, 0.01, 1000.0, 0.0, E);
    let v0 = Vec3::from(mesh.vertices[0]);
    let turn = Quat::rotation_between(&v0, &Vec3::x()).expect("rotation");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut pairs = Vec::new();
    for i in 0..n {
        let va: f64 = rng.gen_range(0.5..1.5);
        let vb: f64 = -rng.gen_range(0.5..1.5);
        let t_hit: f64 = rng.gen_range(0.01..0.15);
        let z = 0.4 * i as f64;
        let gap = (va - vb) * t_hit;
        let a = add_particle(&mut world, shape, light, [-R - 0.5 * gap, 0.0, z]);
        let mat_b = if i % 2 == 0 { light } else { heavy };
        let b = add_particle(&mut world, shape, mat_b, [R + 0.5 * gap, 0.0, z]);
        for (id, v) in [(a, va), (b, vb)] {
            let body = &mut world.state.bodies[id as usize];
            body.orientation = turn;
            body.velocity = Vec3::new(v, 0.0, 0.0);
        }
        pairs.push(Pair { a, b, va, vb });
    }
    (world, pairs, mesh)
}

/// Analytic 1-D velocities after a head-on impact with restitution `e` [m/s].
pub fn analytic(ma: f64, mb: f64, va: f64, vb: f64, e: f64) -> (f64, f64) {
    let p = ma * va + mb * vb;
    (
        (p + mb * e * (vb - va)) / (ma + mb),
        (p + ma * e * (va - vb)) / (ma + mb),
    )
}

/// A stack of `n` cubes (edge 0.1 m) on a floor, touching within their halos, gravity
/// −9.81 m/s² along z. Returns the world and the cube mesh.
pub fn stack_world(n: usize, dt: f64, end: f64) -> (World, TriMesh) {
    let mut world = empty_world(dt, [0.0, 0.0, -9.81]);
    world.params.end = end;
    let mesh = cuboid([0.1, 0.1, 0.1], 1).expect("cuboid");
    let shape = add_shape(&mut world, &mesh);
    let mat = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.5, 0.5);
    let floor = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).expect("plane");
    add_obstacle(&mut world, &floor, Iso3::identity(), 0.002, 0.5, 0.5);
    let mut z = 0.0;
    for k in 0..n {
        let id = add_particle(&mut world, shape, mat, [0.0, 0.0, 0.0]);
        let eps = world.state.bodies[id as usize].epsilon;
        let below = if k == 0 { 0.002 } else { eps };
        z += if k == 0 { 0.05 } else { 0.1 } + 0.5 * (eps + below);
        world.state.bodies[id as usize].position = Vec3::new(0.0, 0.0, z);
    }
    (world, mesh)
}

/// Runs `world` to `params.end` with the integrator in `mode`, checking Theorem 2.4 and
/// Lemma 7.4 on every sweep, calling `each` after every interval; returns the per-interval
/// statistics.
pub fn run(
    world: &mut World,
    mode: LtsMode,
    each: impl FnMut(&World, &LtsStepStats),
) -> Vec<LtsStepStats> {
    run_searching(world, mode, false, each)
}

/// [`run`] with every narrowing search from the trees' roots where `from_roots` is set
/// ([`LocalTimeStepping::set_search_from_roots`]).
pub fn run_searching(
    world: &mut World,
    mode: LtsMode,
    from_roots: bool,
    mut each: impl FnMut(&World, &LtsStepStats),
) -> Vec<LtsStepStats> {
    let mut lts = LocalTimeStepping::new(&world.params, mode);
    lts.set_checks(true);
    lts.set_search_from_roots(from_roots);
    let steps = (world.params.end / world.params.dt).round() as u64;
    let mut out = Vec::new();
    for _ in 0..steps {
        let (stats, _) = lts
            .advance_interval(&world.model, &mut world.state)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            lts.violations().is_empty(),
            "{:?}",
            &lts.violations()[..lts.violations().len().min(5)]
        );
        for tl in lts.timelines() {
            assert_eq!(
                tl.cur.time, world.state.time,
                "synchronised at the interval end"
            );
        }
        each(world, &stats);
        out.push(stats);
    }
    let sweeps: u64 = out.iter().map(|s| s.sweeps as u64).sum();
    assert_eq!(lts.checked_sweeps(), sweeps, "every sweep checked");
    assert!(sweeps > 0);
    // Every snapshot an active cluster wrote was checked with the exact kernel (no
    // intersecting real meshes, else a violation above); where anything collided, the
    // check saw the pair.
    let closest = lts.closest_real_meshes();
    let collided = out.iter().any(|s| s.collisions > 0);
    assert!(
        !collided || closest.is_finite(),
        "no snapshot near a contact was checked"
    );
    assert!(closest > 0.0, "real meshes intersect: {closest}");
    eprintln!("{mode:?}: closest real meshes over all snapshots {closest:e} m");
    out
}

fn world_tris(mesh: &TriMesh, iso: &Iso3) -> Vec<Tri> {
    mesh.triangles
        .iter()
        .map(|t| {
            let p = |i: u32| {
                let v = mesh.vertices[i as usize];
                let w = iso * Point3::new(v[0], v[1], v[2]);
                [w.x as f32, w.y as f32, w.z as f32]
            };
            Tri::new(p(t[0]), p(t[1]), p(t[2]))
        })
        .collect()
}

/// Smallest exact distance between the real meshes of every pair of particles (all with
/// mesh `mesh`) and of every particle with the obstacle `floor` (if any), brute force over
/// all triangle pairs with the exact kernel [m].
pub fn min_mesh_distance(world: &World, mesh: &TriMesh, floor: Option<&TriMesh>) -> f64 {
    let com = world.model.shapes[0].com;
    let tris: Vec<Vec<Tri>> = world
        .state
        .bodies
        .iter()
        .map(|b| world_tris(mesh, &b.mesh_to_world(&com)))
        .collect();
    let mut best = f64::INFINITY;
    let pair_min = |x: &[Tri], y: &[Tri]| {
        let mut m = f64::INFINITY;
        for s in x {
            for t in y {
                m = m.min(triangle_triangle_exact(s, t).dist() as f64);
            }
        }
        m
    };
    for i in 0..tris.len() {
        let bi = &world.state.bodies[i];
        for j in i + 1..tris.len() {
            let bj = &world.state.bodies[j];
            let reach = bi.radius + bj.radius + bi.epsilon + bj.epsilon;
            if (bi.position - bj.position).norm() <= reach {
                best = best.min(pair_min(&tris[i], &tris[j]));
            }
        }
        if let Some(f) = floor {
            let ft = world_tris(f, &world.model.obstacles[0].pose);
            best = best.min(pair_min(&tris[i], &ft));
        }
    }
    best
}

/// A two-dimensional gas: `n × n` spheres on a square lattice of spacing 0.16 m in the
/// plane z = 0, random velocities in the plane up to 1.5 m/s, random orientations, elastic
/// (e = 1) and frictionless, no gravity. Clusters form and dissolve all the time, so
/// particles are rolled back.
pub fn gas_world(n: usize, seed: u64, dt: f64, end: f64) -> (World, TriMesh) {
    let mut world = empty_world(dt, [0.0; 3]);
    world.params.end = end;
    let mesh = icosphere(R, 1).expect("icosphere");
    let shape = add_shape(&mut world, &mesh);
    let mat = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in 0..n {
        for j in 0..n {
            let id = add_particle(
                &mut world,
                shape,
                mat,
                [0.16 * i as f64, 0.16 * j as f64, 0.0],
            );
            let b = &mut world.state.bodies[id as usize];
            let angle: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
            let speed: f64 = rng.gen_range(0.2..1.5);
            b.velocity = Vec3::new(speed * angle.cos(), speed * angle.sin(), 0.0);
            let axis = Vec3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), 1.0);
            b.orientation = Quat::from_scaled_axis(axis.normalize() * rng.gen_range(0.0..3.0));
        }
    }
    (world, mesh)
}
