//! Worlds built programmatically: generated meshes, in-memory surrogate trees, no files;
//! the explicit integrator and detector for them; contact detection from the roots.

use std::sync::Arc;

use msdem_geom::math::{Iso3, Mat3, Quat, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_mesh::mass::mass_properties;
use msdem_mesh::TriMesh;
use msdem_solver::contact::pair::PairParams;
use msdem_solver::contact::Contact;
use msdem_solver::detect::{Detection, Detector, Search};
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::model::{Geometry, HaloSpec, Material, MeshGeometry, Model, Obstacle, Shape};
use msdem_solver::params::{
    BroadPhaseChoice, DetectionMode, IntegratorChoice, KernelChoice, Params,
};
use msdem_solver::state::{Body, State};
use msdem_solver::world::World;
use msdem_tree::{build_tree, BuildParams};

/// An empty world with time step `dt` [s] and gravity `g` [m/s²].
pub fn empty_world(dt: f64, g: [f64; 3]) -> World {
    World {
        model: Model {
            name: "test".into(),
            ..Model::default()
        },
        state: State::default(),
        params: Params {
            dt,
            end: 1.0,
            output_every: 1,
            gravity: Vec3::from(g),
            integrator: IntegratorChoice::Explicit,
            detection: DetectionMode::Hierarchy,
            kept_sets: true,
            kernel: KernelChoice::Exact,
            broadphase: BroadPhaseChoice::Grid,
            picard: Default::default(),
            lts: Default::default(),
        },
    }
}

/// The explicit integrator `world.params` select (time step, gravity, search: kept active
/// sets for the hierarchy with `kept_sets`) and a detector with its kernel and broad phase.
/// Both read the parameters once: build new ones after changing `world.params`.
pub fn explicit(world: &World) -> (ExplicitEuler, Detector) {
    (
        ExplicitEuler::new(&world.params),
        Detector::new(&world.params),
    )
}

/// Merged contacts of `world`'s current state, searched from the roots in
/// `world.params.detection`'s mode (Alg. 5 or flat; never the kept sets), and what the
/// detection counted.
pub fn detect(world: &World, det: &mut Detector) -> (Vec<Contact>, Detection) {
    let search = Search::Roots(world.params.detection);
    det.contacts(&world.model, &world.state, search)
        .expect("detect")
}

/// Contact spring energy of `contacts` at `world`'s state [J].
pub fn spring_energy(world: &World, contacts: &[Contact]) -> f64 {
    contacts
        .iter()
        .map(|c| {
            c.weight
                * PairParams::of(&world.model, &world.state.bodies, c.a, c.b).spring_energy(c.dist)
        })
        .sum()
}

/// Surrogate tree of a mesh with default builder parameters.
pub fn tree(mesh: &TriMesh) -> Arc<msdem_tree::SurrogateTree> {
    Arc::new(build_tree(mesh, [0; 32], &BuildParams::default()).expect("tree builds"))
}

/// Mesh geometry of `mesh` with its tree ([`tree`]) and curved surface (for materials
/// with `surface: smooth`), no file behind it.
pub fn mesh_geometry(mesh: &TriMesh) -> Geometry {
    Geometry::Mesh(
        MeshGeometry::new(
            tree(mesh),
            String::new(),
            [0; 32],
            mesh.triangles.len() as u32,
        )
        .with_smooth(),
    )
}

/// Adds a particle shape; returns its index.
pub fn add_shape(world: &mut World, mesh: &TriMesh) -> u32 {
    let mp = mass_properties(mesh, 1.0).expect("closed mesh");
    let shapes = &mut world.model.shapes;
    shapes.push(Shape {
        name: format!("shape{}", shapes.len()),
        geometry: mesh_geometry(mesh),
        volume: mp.volume,
        com: Vec3::from(mp.com),
        unit_inertia: Mat3::from_fn(|i, j| mp.inertia[i][j]),
        radius: mp.bounding_radius,
    });
    (shapes.len() - 1) as u32
}

/// Adds a material with a halo of `relative_halo` × the bounding diameter; returns its
/// index.
pub fn add_material(
    world: &mut World,
    density: f64,
    relative_halo: f64,
    spring: f64,
    friction: f64,
    restitution: f64,
) -> u32 {
    let materials = &mut world.model.materials;
    materials.push(Material {
        name: format!("mat{}", materials.len()),
        density,
        halo: HaloSpec::Relative(relative_halo),
        spring,
        friction,
        restitution,
        law: Default::default(),
        surface: Default::default(),
    });
    (materials.len() - 1) as u32
}

/// Adds a particle at rest with centre of mass at `position`; returns its id. A material
/// with `surface: smooth` gives the shape its curved solid's mass properties first, as
/// set-up does (`Shape::use_curved_mass`).
pub fn add_particle(world: &mut World, shape: u32, material: u32, position: [f64; 3]) -> u32 {
    let m = &world.model.materials[material as usize];
    if m.surface == msdem_solver::model::smooth::Surface::Smooth {
        world.model.shapes[shape as usize].use_curved_mass();
    }
    let s = &world.model.shapes[shape as usize];
    let inertia = s.unit_inertia * m.density;
    let bodies = &mut world.state.bodies;
    bodies.push(Body {
        shape,
        material,
        mass: s.volume * m.density,
        inertia,
        inv_inertia: inertia.try_inverse().expect("invertible inertia"),
        epsilon: m.halo.width_m(s.radius),
        radius: s.radius,
        position: Vec3::from(position),
        orientation: Quat::identity(),
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
    });
    (bodies.len() - 1) as u32
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
    let obstacles = &mut world.model.obstacles;
    obstacles.push(Obstacle {
        name: format!("obstacle{}", obstacles.len()),
        geometry: mesh_geometry(mesh),
        pose,
        epsilon,
        friction,
        restitution,
        elastic: Default::default(),
        rolling_friction: 0.0,
        aabb: (lo - Vec3::repeat(epsilon), hi + Vec3::repeat(epsilon)),
    });
}

/// Lowest world z of a particle's mesh [m].
pub fn lowest_z(world: &World, mesh: &TriMesh, id: u32) -> f64 {
    let b = &world.state.bodies[id as usize];
    let iso = b.mesh_to_world(&world.model.shapes[b.shape as usize].com);
    mesh.vertices
        .iter()
        .map(|v| (iso * nalgebra::Point3::from(Vec3::from(*v))).z)
        .fold(f64::INFINITY, f64::min)
}

/// Total energy: kinetic + gravitational + contact springs at the current state [J]
/// (contacts from the roots, [`detect`]).
pub fn total_energy(world: &World, det: &mut Detector) -> f64 {
    let obs = msdem_solver::motion::energy::observables(&world.state.bodies, &world.params.gravity);
    let (contacts, _) = detect(world, det);
    obs.kinetic + obs.potential + spring_energy(world, &contacts)
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

/// Adds an ellipsoid shape with semi-axes `radii` [m]; returns its index.
pub fn add_ellipsoid_shape(world: &mut World, radii: [f64; 3]) -> u32 {
    let e = msdem_ellipsoid::Ellipsoid::new(radii).expect("valid radii");
    let mp = e.mass_properties(1.0).expect("mass properties");
    let shapes = &mut world.model.shapes;
    shapes.push(Shape {
        name: format!("shape{}", shapes.len()),
        geometry: Geometry::Ellipsoid(e),
        volume: mp.volume,
        com: Vec3::zeros(),
        unit_inertia: mp.inertia_tensor(),
        radius: e.bounding_radius(),
    });
    (shapes.len() - 1) as u32
}
