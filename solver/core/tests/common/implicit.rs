//! Worlds for the implicit-integrator tests and benchmarks, built programmatically
//! (generated meshes, in-memory surrogate trees, no files): the seed's colliding pair and
//! sphere on a slope; energies and state differences.

use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, slope, NoiseSphere};
use msdem_mesh::TriMesh;
use msdem_solver::detect::Detector;
use msdem_solver::integrator::implicit::{ImplicitEuler, PicardParams, PicardVariant};
use msdem_solver::params::KernelChoice;
use msdem_solver::world::World;

use super::world as physics;

/// An empty world with time step `dt` [s], gravity `g` [m/s²] and triangle kernel `kernel`.
pub fn world(dt: f64, g: [f64; 3], kernel: KernelChoice) -> World {
    let mut w = physics::empty_world(dt, g);
    w.params.kernel = kernel;
    w
}

/// Noisy unit-ish sphere of radius `radius` [m] (η_r = 1.1), `20·4^subdivisions` triangles.
pub fn sphere_mesh(radius: f64, subdivisions: u32, seed: u32) -> TriMesh {
    noise_sphere(&NoiseSphere {
        radius,
        subdivisions,
        eta: 1.1,
        seed,
        ..NoiseSphere::default()
    })
    .expect("sphere mesh")
}

/// Adds a particle shape and a material (density 1, ε = 1 % of the diameter, K_s = 1000,
/// friction `mu`, restitution `e`) and one particle at `position` using them; returns its id.
pub fn add_sphere(world: &mut World, mesh: &TriMesh, mu: f64, e: f64, position: [f64; 3]) -> usize {
    let shape = physics::add_shape(world, mesh);
    let material = physics::add_material(world, 1.0, 0.01, 1000.0, mu, e);
    physics::add_particle(world, shape, material, position) as usize
}

/// Adds a static obstacle mesh (identity pose) with halo `epsilon` [m].
pub fn add_obstacle(world: &mut World, mesh: &TriMesh, epsilon: f64, mu: f64, e: f64) {
    physics::add_obstacle(world, mesh, Iso3::identity(), epsilon, mu, e);
}

/// Implicit Euler of `variant` with `world`'s time step and gravity and the Picard
/// settings `params` (fixed for its lifetime: build a new one for other settings), and a
/// detector with `world`'s kernel and broad phase (one per simulated world: it keeps the
/// active sets of multiscale Picard).
pub fn picard(
    world: &World,
    params: &PicardParams,
    variant: PicardVariant,
) -> (ImplicitEuler, Detector) {
    let p = &world.params;
    (
        ImplicitEuler::with(p.dt, p.gravity, params, variant),
        Detector::new(p),
    )
}

/// Merged contacts of `world`'s current state (from the roots in its own detection mode,
/// with a fresh detector).
pub fn contact_count(world: &World) -> usize {
    let mut det = Detector::new(&world.params);
    physics::detect(world, &mut det).0.len()
}

/// Two noisy spheres (radius 0.5 m, `subdivisions`) on a head-on course along x with a
/// small lateral offset (off-centre impact), closing at `speed` [m/s], placed so that their
/// halos have just begun to overlap. No gravity.
pub fn colliding_pair(
    subdivisions: u32,
    kernel: KernelChoice,
    speed: f64,
    mu: f64,
    e: f64,
) -> World {
    let mut w = world(1e-3, [0.0; 3], kernel);
    let a = add_sphere(&mut w, &sphere_mesh(0.5, subdivisions, 1), mu, e, [0.0; 3]);
    let b = add_sphere(&mut w, &sphere_mesh(0.5, subdivisions, 2), mu, e, [0.0; 3]);
    let mut gap = w.state.bodies[a].radius + w.state.bodies[b].radius + 0.05;
    loop {
        w.state.bodies[b].position = Vec3::new(gap, 0.08, 0.03);
        if contact_count(&w) >= 1 || gap < 0.5 {
            break;
        }
        gap -= 5e-4;
    }
    w.state.bodies[a].velocity = Vec3::new(0.5 * speed, 0.0, 0.0);
    w.state.bodies[b].velocity = Vec3::new(-0.5 * speed, 0.0, 0.0);
    w
}

/// A noisy sphere (radius 0.5 m) resting with its halo just touching a 20° slope under
/// gravity, with a small initial speed down the slope.
pub fn sphere_on_slope(subdivisions: u32, kernel: KernelChoice) -> World {
    let mut w = world(1e-3, [0.0, 0.0, -9.81], kernel);
    let ground = slope([4.0, 4.0], 20.0, [0.0, 0.0, 0.0]).expect("slope");
    add_obstacle(&mut w, &ground, 0.01, 0.4, 0.5);
    let id = add_sphere(
        &mut w,
        &sphere_mesh(0.5, subdivisions, 3),
        0.4,
        0.5,
        [0.0; 3],
    );
    let normal = Vec3::new(0.0, 20f64.to_radians().sin(), 20f64.to_radians().cos());
    let mut h = w.state.bodies[id].radius + 0.05;
    loop {
        w.state.bodies[id].position = h * normal;
        if contact_count(&w) >= 1 || h < 0.2 {
            break;
        }
        h -= 5e-4;
    }
    w.state.bodies[id].velocity = Vec3::new(0.0, 0.05, -0.02);
    w
}

/// Kinetic energy plus contact spring energy of `world`'s state [J] (no gravity term).
pub fn mechanical_energy(world: &World) -> f64 {
    let mut det = Detector::new(&world.params);
    physics::total_energy(world, &mut det)
}

/// Largest difference of positions [m] and velocities [m/s] between two worlds' bodies.
pub fn state_difference(a: &World, b: &World) -> (f64, f64) {
    let mut dx: f64 = 0.0;
    let mut dv: f64 = 0.0;
    for (p, q) in a.state.bodies.iter().zip(&b.state.bodies) {
        dx = dx.max((p.position - q.position).norm());
        dx = dx.max((p.orientation.coords - q.orientation.coords).norm() * p.radius);
        dv = dv.max((p.velocity - q.velocity).norm());
        dv = dv.max((p.angular_velocity - q.angular_velocity).norm() * p.radius);
    }
    (dx, dv)
}
