//! Builds worlds for the physics tests programmatically: generated meshes, in-memory
//! surrogate trees, no files. Included by the `physics_*` tests via `#[path]`.
#![allow(dead_code)]

use std::sync::Arc;

use msdem_geom::math::{Iso3, Mat3, Quat, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_mesh::mass::mass_properties;
use msdem_mesh::TriMesh;
use msdem_solver::world::{
    Body, BroadPhaseChoice, DetectionMode, Integrator, KernelChoice, Material, Obstacle, Params,
    Shape, World,
};
use msdem_tree::{build_tree, BuildParams};

/// An empty world with time step `dt` [s] and gravity `g` [m/s²].
pub fn empty_world(dt: f64, g: [f64; 3]) -> World {
    World {
        name: "test".into(),
        shapes: Vec::new(),
        materials: Vec::new(),
        bodies: Vec::new(),
        obstacles: Vec::new(),
        params: Params {
            dt,
            end: 1.0,
            output_every: 1,
            gravity: Vec3::from(g),
            integrator: Integrator::Explicit,
            detection: DetectionMode::Hierarchy,
            kept_sets: true,
            kernel: KernelChoice::Exact,
            broadphase: BroadPhaseChoice::Grid,
            picard: Default::default(),
        },
        time: 0.0,
        step: 0,
    }
}

/// Surrogate tree of a mesh with default builder parameters.
pub fn tree(mesh: &TriMesh) -> Arc<msdem_tree::SurrogateTree> {
    Arc::new(build_tree(mesh, [0; 32], &BuildParams::default()).expect("tree builds"))
}

/// Adds a particle shape; returns its index.
pub fn add_shape(world: &mut World, mesh: &TriMesh) -> u32 {
    let mp = mass_properties(mesh, 1.0).expect("closed mesh");
    world.shapes.push(Shape {
        name: format!("shape{}", world.shapes.len()),
        tree: tree(mesh),
        mesh_path: String::new(),
        mesh_hash: [0; 32],
        triangles: mesh.triangles.len() as u32,
        volume: mp.volume,
        com: Vec3::from(mp.com),
        unit_inertia: Mat3::from_fn(|i, j| mp.inertia[i][j]),
        radius: mp.bounding_radius,
    });
    (world.shapes.len() - 1) as u32
}

/// Adds a material; returns its index.
pub fn add_material(
    world: &mut World,
    density: f64,
    epsilon: f64,
    spring: f64,
    friction: f64,
    restitution: f64,
) -> u32 {
    world.materials.push(Material {
        name: format!("mat{}", world.materials.len()),
        density,
        epsilon,
        spring,
        friction,
        restitution,
    });
    (world.materials.len() - 1) as u32
}

/// Adds a particle at rest with centre of mass at `position`; returns its id.
pub fn add_particle(world: &mut World, shape: u32, material: u32, position: [f64; 3]) -> u32 {
    let s = &world.shapes[shape as usize];
    let m = &world.materials[material as usize];
    let inertia = s.unit_inertia * m.density;
    world.bodies.push(Body {
        shape,
        material,
        mass: s.volume * m.density,
        inertia,
        inv_inertia: inertia.try_inverse().expect("invertible inertia"),
        epsilon: m.epsilon * 2.0 * s.radius,
        radius: s.radius,
        position: Vec3::from(position),
        orientation: Quat::identity(),
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
    });
    (world.bodies.len() - 1) as u32
}

/// Adds a static obstacle with absolute halo `epsilon` [m] at `pose`.
pub fn add_obstacle(
    world: &mut World,
    mesh: &TriMesh,
    pose: Iso3,
    epsilon: f64,
    friction: f64,
    restitution: f64,
) {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for v in &mesh.vertices {
        let w = pose * nalgebra::Point3::from(Vec3::from(*v));
        lo = lo.inf(&w.coords);
        hi = hi.sup(&w.coords);
    }
    world.obstacles.push(Obstacle {
        name: format!("obstacle{}", world.obstacles.len()),
        tree: tree(mesh),
        mesh_path: String::new(),
        mesh_hash: [0; 32],
        pose,
        epsilon,
        friction,
        restitution,
        aabb: (lo - Vec3::repeat(epsilon), hi + Vec3::repeat(epsilon)),
    });
}

/// Lowest world z of a particle's mesh [m].
pub fn lowest_z(world: &World, mesh: &TriMesh, id: u32) -> f64 {
    let b = &world.bodies[id as usize];
    let iso = b.mesh_to_world(&world.shapes[b.shape as usize].com);
    mesh.vertices
        .iter()
        .map(|v| (iso * nalgebra::Point3::from(Vec3::from(*v))).z)
        .fold(f64::INFINITY, f64::min)
}

/// Total energy: kinetic + gravitational + contact springs at the current state [J].
pub fn total_energy(world: &World, ws: &mut msdem_solver::step::StepWorkspace) -> f64 {
    use msdem_solver::contact::pair::PairParams;
    let obs = msdem_solver::integrate::energy::observables(&world.bodies, &world.params.gravity);
    let (contacts, _, _) = msdem_solver::step::detect_contacts(world, ws).expect("detect");
    let spring: f64 = contacts
        .iter()
        .map(|c| PairParams::of(world, c.a, c.b).spring_energy(c.dist))
        .sum();
    obs.kinetic + obs.potential + spring
}

/// Noisy sphere mesh (Perlin noise, vertex radii in `[radius, eta·radius]` [m]) with
/// `20·4^subdivisions` triangles.
pub fn noise_mesh(radius: f64, subdivisions: u32, eta: f64, seed: u32) -> TriMesh {
    noise_sphere(&NoiseSphere {
        radius,
        subdivisions,
        eta,
        seed,
        ..NoiseSphere::default()
    })
    .expect("noise sphere")
}
