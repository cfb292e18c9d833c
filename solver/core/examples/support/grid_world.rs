//! World builder of the seed 000 §6.7 grid benchmark (used by `examples/grid.rs` via
//! `#[path]`): one noisy-sphere mesh and one surrogate tree shared by every particle
//! (instanced geometry, one `Arc`), particles on a Cartesian lattice whose neighbours'
//! halos barely overlap, no gravity, no obstacles.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use msdem_geom::math::{Mat3, Quat, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_mesh::mass::mass_properties;
use msdem_mesh::TriMesh;
use msdem_solver::contact::stability::stable_dt_estimate;
use msdem_solver::detect::{Detector, Search};
use msdem_solver::frames::PhaseTimes;
use msdem_solver::model::{Geometry, HaloSpec, Material, MeshGeometry, Model, Shape};
use msdem_solver::params::{
    BroadPhaseChoice, DetectionMode, IntegratorChoice, KernelChoice, Params, PicardParams,
};
use msdem_solver::state::{Body, State};
use msdem_solver::world::World;
use msdem_tree::{build_tree, BuildParams, SurrogateTree};
use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// What the grid is made of.
#[derive(Clone, Debug)]
pub struct GridSpec {
    /// Particles per lattice axis (x, y, z).
    pub n: [u32; 3],
    /// Base radius of the noisy sphere \[m\] (vertex radii in `[r, η_r·r]`).
    pub radius: f64,
    /// Icosphere subdivisions (3 → 1,280 triangles, seed 000 §6.1).
    pub subdivisions: u32,
    /// Radius ratio η_r of the Perlin noise \[-\].
    pub eta: f64,
    /// Seed of the mesh noise and of the initial velocities.
    pub seed: u64,
    /// Target surface distance of lattice neighbours as a fraction of the margin 2ε \[-\].
    pub gap_fraction: f64,
    /// Largest initial speed per component \[m/s\] (0: at rest, as seed 000 §6.7).
    pub speed: f64,
    /// Triangle kernel.
    pub kernel: KernelChoice,
    /// Time step \[s\]; `None`: the explicit stability estimate.
    pub dt: Option<f64>,
}

/// Halo width relative to the bounding diameter (seed 000 §6.1: ε = 10⁻²).
pub const EPSILON: f64 = 0.01;
/// Spring constant `K_s` of the seed's force law (docs/design.md §3).
pub const SPRING: f64 = 1000.0;
/// Density \[kg/m³\].
pub const DENSITY: f64 = 1000.0;

/// A built grid and what it took.
pub struct Grid {
    /// The world (shared shape 0, material 0).
    pub world: World,
    /// The shared mesh.
    pub mesh: TriMesh,
    /// Lattice spacing per axis \[m\].
    pub spacing: [f64; 3],
    /// Mesh extent (max − min vertex coordinate) per axis \[m\].
    pub extent: [f64; 3],
    /// Halo width ε of every particle \[m\].
    pub epsilon: f64,
    /// Wall time of mesh generation, tree build, spacing search and placement \[s\].
    pub times: [f64; 4],
}

/// Noisy sphere of `spec` (seed 000 §6.1: Perlin noise along the normal, radii in
/// `[r, η_r·r]`).
fn sphere(spec: &GridSpec) -> Result<TriMesh> {
    noise_sphere(&NoiseSphere {
        radius: spec.radius,
        subdivisions: spec.subdivisions,
        eta: spec.eta,
        seed: spec.seed as u32,
        ..NoiseSphere::default()
    })
    .context("noisy sphere")
}

fn shape(mesh: &TriMesh, tree: Arc<SurrogateTree>) -> Result<Shape> {
    let mp = mass_properties(mesh, 1.0).context("mass properties")?;
    Ok(Shape {
        name: "grain".into(),
        geometry: Geometry::Mesh(MeshGeometry::new(
            tree,
            String::new(),
            [0; 32],
            mesh.triangles.len() as u32,
        )),
        volume: mp.volume,
        com: Vec3::from(mp.com),
        unit_inertia: Mat3::from_fn(|i, j| mp.inertia[i][j]),
        radius: mp.bounding_radius,
    })
}

/// A particle of shape 0 / material 0 at `position`, at rest, identity orientation.
fn body(world: &World, position: Vec3) -> Result<Body> {
    let s = &world.model.shapes[0];
    let m = &world.model.materials[0];
    let inertia = s.unit_inertia * m.density;
    Ok(Body {
        shape: 0,
        material: 0,
        mass: s.volume * m.density,
        inertia,
        inv_inertia: inertia.try_inverse().context("singular inertia")?,
        epsilon: m.halo.width_m(s.radius),
        radius: s.radius,
        position,
        orientation: Quat::identity(),
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
    })
}

fn empty_world(spec: &GridSpec, shape: Shape) -> World {
    World {
        model: Model {
            name: "grid".into(),
            shapes: vec![shape],
            materials: vec![Material {
                name: "grain".into(),
                density: DENSITY,
                halo: HaloSpec::Relative(EPSILON),
                spring: SPRING,
                friction: 0.4,
                restitution: 1.0,
                law: Default::default(),
                surface: Default::default(),
            }],
            material_pairs: Vec::new(),
            obstacles: Vec::new(),
            contact_points: Default::default(),
        },
        state: State::default(),
        params: Params {
            dt: 1.0,
            end: 1.0,
            output_every: 1,
            gravity: Vec3::zeros(),
            integrator: IntegratorChoice::Explicit,
            detection: DetectionMode::Hierarchy,
            kept_sets: true,
            kernel: spec.kernel,
            broadphase: BroadPhaseChoice::Grid,
            picard: PicardParams::default(),
            lts: Default::default(),
        },
    }
}

/// Extent of the mesh's vertices about the centre of mass along `axis`: `(min, max)` \[m\].
fn extent(mesh: &TriMesh, com: &Vec3, axis: usize) -> (f64, f64) {
    mesh.vertices
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| {
            let x = v[axis] - com[axis];
            (lo.min(x), hi.max(x))
        })
}

/// Spacing along `axis` such that two neighbours' surfaces are just within the margin
/// 2ε: start from the extent plus `gap_fraction·2ε` (the surfaces are at least that far
/// apart, a separating plane) and move closer in steps of 1 % of 2ε until the pair has a
/// contact (the extreme vertices of the two copies need not face each other).
fn spacing(world: &World, axis: usize, lo: f64, hi: f64, gap_fraction: f64) -> Result<f64> {
    let margin = 2.0 * world.state.bodies[0].epsilon;
    let mut pair = world.clone();
    let bodies = &mut pair.state.bodies;
    bodies.truncate(1);
    bodies[0].position = Vec3::zeros();
    bodies.push(bodies[0].clone());
    let mut det = Detector::new(&pair.params);
    let search = Search::Roots(pair.params.detection);
    let mut contacts = Vec::new();
    let mut s = hi - lo + gap_fraction * margin;
    while s > hi - lo - margin {
        pair.state.bodies[1].position = Vec3::zeros();
        pair.state.bodies[1].position[axis] = s;
        let mut wall = PhaseTimes::default();
        det.detect(&pair.model, &pair.state, search, &mut contacts, &mut wall)?;
        if !contacts.is_empty() {
            return Ok(s);
        }
        s -= 0.01 * margin;
    }
    bail!("no spacing along axis {axis} gives a contact without deep overlap")
}

/// Builds the grid of `spec` (seed 000 §6.1/§6.7).
pub fn build_grid(spec: &GridSpec) -> Result<Grid> {
    let t = Instant::now();
    let mesh = sphere(spec)?;
    let t_mesh = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let tree = Arc::new(build_tree(&mesh, [0; 32], &BuildParams::default()).context("tree")?);
    let t_tree = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut world = empty_world(spec, shape(&mesh, tree)?);
    let template = body(&world, Vec3::zeros())?;
    world.state.bodies.push(template);
    let com = world.model.shapes[0].com;
    let mut spacing_xyz = [0.0; 3];
    let mut extent_xyz = [0.0; 3];
    for axis in 0..3 {
        let (lo, hi) = extent(&mesh, &com, axis);
        extent_xyz[axis] = hi - lo;
        spacing_xyz[axis] = spacing(&world, axis, lo, hi, spec.gap_fraction)?;
    }
    let t_spacing = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let template = world.state.bodies.pop().context("template body")?;
    let epsilon = template.epsilon;
    let [nx, ny, nz] = spec.n;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed);
    world.state.bodies.reserve((nx * ny * nz) as usize);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let mut b = template.clone();
                b.position = Vec3::new(
                    f64::from(i) * spacing_xyz[0],
                    f64::from(j) * spacing_xyz[1],
                    f64::from(k) * spacing_xyz[2],
                );
                if spec.speed > 0.0 {
                    b.velocity = Vec3::from_fn(|_, _| rng.gen_range(-spec.speed..=spec.speed));
                }
                world.state.bodies.push(b);
            }
        }
    }
    world.params.dt = spec
        .dt
        .unwrap_or_else(|| stable_dt_estimate(&world.model, &world.state.bodies));
    let t_place = t.elapsed().as_secs_f64();
    Ok(Grid {
        world,
        mesh,
        spacing: spacing_xyz,
        extent: extent_xyz,
        epsilon,
        times: [t_mesh, t_tree, t_spacing, t_place],
    })
}
