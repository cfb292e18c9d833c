//! Scenario → [`World`]: instanced geometry, materials, particles, obstacles, parameters.
//!
//! Steps, each failing with a one-line [`SolverError`] that names the scenario entry:
//! 1. shapes (`shapes:`, particle role: closed and outward) and obstacles (obstacle role):
//!    mesh, mass properties per unit density (divergence theorem), bounding radius about the
//!    centre of mass, prebuilt surrogate tree — refused when missing or built from another
//!    mesh, naming `treebuild` (pipeline stage 2). One `Arc<SurrogateTree>` per shape, shared
//!    by all its particles (docs/design.md §2).
//!    Shapes of `surface: smooth` particles get their curved surface and its solid's mass
//!    properties (`setup/surface.rs`).
//! 2. particles: the explicit list, then the generators in order (see [`place`]).
//! 3. initial interpenetration check ([`overlap`]): particles whose real triangles cross or
//!    that lie inside one another, and particles crossing an obstacle, are listed in one
//!    error. Halo overlap is allowed. Candidate pairs come from the HGrid broad phase
//!    ([`candidates`], seed 001), so 10⁶ particles are checked in seconds, not hours.
//! 4. the broad phase of `broadphase:` runs once on the initial state: a
//!    particle larger than the largest given cell is refused here, naming it, not mid-run.
//!
//! `Shape::mesh_path` / `Obstacle::mesh_path` are absolute here; the run writer makes them
//! relative to the run folder in the manifest.

use rayon::prelude::*;

use crate::error::SolverError;
use crate::model::{ContactPoints, Material, Model};
use crate::params::{DetectionMode, IntegratorChoice, KernelChoice, LtsMode, Params};
use crate::scenario::{ContactPointsSpec, DetectionModeSpec, IntegratorSpec, KernelSpec, Scenario};
use crate::state::{Body, State};
use crate::world::World;
use msdem_geom::math::Vec3;

mod bodies;
mod broadphase;
pub mod candidates;
mod contact_law;
mod geometry;
pub mod overlap;
pub mod place;
mod surface;

use candidates::Side;
use overlap::{penetration, Penetration, PlacedMesh};

/// Most interpenetrating pairs listed in the error message.
pub const MAX_LISTED_PAIRS: usize = 8;

/// Builds the initial world of a parsed scenario (see the module documentation).
pub fn build_world(scenario: &Scenario) -> Result<World, SolverError> {
    let material_pairs = contact_law::material_pairs(scenario)?;
    let mut shapes = Vec::with_capacity(scenario.shapes.len());
    let mut shape_meshes = Vec::with_capacity(scenario.shapes.len());
    for (name, spec) in &scenario.shapes {
        let (shape, mesh) = geometry::load_shape(scenario, name, spec)?;
        shapes.push(shape);
        shape_meshes.push(mesh);
    }
    let mut obstacles = Vec::with_capacity(scenario.obstacles.len());
    let mut obstacle_meshes = Vec::with_capacity(scenario.obstacles.len());
    for (i, spec) in scenario.obstacles.iter().enumerate() {
        let (obstacle, mesh) = geometry::load_obstacle(scenario, i, spec)?;
        obstacles.push(obstacle);
        obstacle_meshes.push(mesh);
    }
    let materials: Vec<Material> = scenario
        .materials
        .iter()
        .map(|(name, m)| Material {
            name: name.clone(),
            density: m.density,
            halo: m.halo,
            spring: m.spring,
            friction: m.friction,
            restitution: m.restitution,
            law: contact_law::material_law(m),
            surface: match m.surface {
                msdem_scenario::SurfaceSpec::Facets => crate::model::smooth::Surface::Facets,
                msdem_scenario::SurfaceSpec::Smooth => crate::model::smooth::Surface::Smooth,
            },
        })
        .collect();
    surface::apply(scenario, &mut shapes, &materials)?;
    let soups: Vec<place::ObstacleSoup> = obstacles
        .iter()
        .zip(&obstacle_meshes)
        .map(|(o, m)| place::ObstacleSoup::new(m.world_soup(&o.pose), o.epsilon))
        .collect();
    let (bodies, origins) = bodies::build_bodies(scenario, &shapes, &materials, &soups)?;
    if bodies.is_empty() {
        return Err(SolverError::Setup {
            file: scenario.file.clone(),
            context: "particles".to_owned(),
            message: "the scenario has no particles; add `particles:` or `generators:`".to_owned(),
        });
    }

    let params = params(scenario, &bodies);
    let world = World {
        model: Model {
            name: scenario.name.clone(),
            shapes,
            materials,
            material_pairs,
            obstacles,
            contact_points: match scenario.detection.contact_points_for(scenario.integrator) {
                ContactPointsSpec::Seed => ContactPoints::Seed,
                ContactPointsSpec::Patches => ContactPoints::Patches,
            },
        },
        state: State {
            bodies,
            time: 0.0,
            step: 0,
        },
        params,
    };
    check_interpenetration(scenario, &world, &shape_meshes, &obstacle_meshes, &origins)?;
    broadphase::check_initial(scenario, &world, &origins)?;
    Ok(world)
}

fn params(s: &Scenario, bodies: &[Body]) -> Params {
    // A local time stepping run steps by its synchronisation interval (`lts.interval_s`,
    // default `time.dt`); `time.output_every` counts steps of `time.dt` (scenario `lts`).
    let (dt, output_every) =
        crate::scenario::lts::run_step(s.integrator, &s.lts, s.time.dt, s.time.output_every);
    Params {
        dt,
        end: s.time.end,
        output_every,
        gravity: s.gravity.into(),
        integrator: match (s.integrator, s.integrator.picard_variant()) {
            (IntegratorSpec::LocalTimeStepping, _) => IntegratorChoice::Lts(LtsMode::Local),
            (IntegratorSpec::GlobalAdaptive, _) => IntegratorChoice::Lts(LtsMode::Global),
            (_, None) => IntegratorChoice::Explicit,
            (_, Some(variant)) => IntegratorChoice::Implicit(variant),
        },
        detection: match s.detection.mode {
            DetectionModeSpec::Hierarchy => DetectionMode::Hierarchy,
            DetectionModeSpec::Flat => DetectionMode::Flat,
        },
        kept_sets: s.detection.kept_sets,
        kernel: match s.detection.kernel {
            KernelSpec::Exact => KernelChoice::Exact,
            KernelSpec::Hybrid => KernelChoice::Hybrid,
        },
        broadphase: broadphase::choice(&s.broadphase, bodies),
        picard: s.picard.clone(),
        lts: s.lts.clone(),
    }
}

/// Refuses a world whose bodies interpenetrate, listing the pairs (ids and origins).
fn check_interpenetration(
    scenario: &Scenario,
    world: &World,
    shape_meshes: &[geometry::SetupMesh],
    obstacle_meshes: &[geometry::SetupMesh],
    origins: &[String],
) -> Result<(), SolverError> {
    let bodies = &world.state.bodies;
    let bounds: Vec<candidates::Bound> = bodies
        .iter()
        .map(|b| candidates::Bound {
            center: b.position,
            radius: b.radius,
        })
        .collect();
    let boxes: Vec<candidates::ObstacleBox> =
        world.model.obstacles.iter().map(|o| o.aabb).collect();
    let mut candidates = candidates::candidates(&bounds, &boxes);
    if candidates.is_empty() {
        return Ok(());
    }
    // Second filter, exact like the first test of `penetration`: world boxes of the meshes
    // (a lattice of cubes has overlapping bounding spheres but disjoint boxes).
    let used: Vec<Vec<u32>> = shape_meshes
        .iter()
        .map(|m| overlap::referenced_vertices(&m.triangles))
        .collect();
    let particle_box = |i: usize| {
        let b = &bodies[i];
        let shape = &world.model.shapes[b.shape as usize];
        let m = &shape_meshes[b.shape as usize];
        overlap::placed_aabb(
            &m.vertices,
            &used[b.shape as usize],
            &b.mesh_to_world(&shape.com),
        )
    };
    let obstacle_boxes: Vec<(Vec3, Vec3)> = world
        .model
        .obstacles
        .iter()
        .zip(obstacle_meshes)
        .map(|(o, m)| {
            overlap::placed_aabb(
                &m.vertices,
                &overlap::referenced_vertices(&m.triangles),
                &o.pose,
            )
        })
        .collect();
    let mut involved = vec![false; bodies.len()];
    for &(i, other) in &candidates {
        involved[i] = true;
        if let Side::Particle(j) = other {
            involved[j] = true;
        }
    }
    let body_boxes: Vec<Option<(Vec3, Vec3)>> = involved
        .par_iter()
        .enumerate()
        .map(|(i, &yes)| yes.then(|| particle_box(i)))
        .collect();
    let box_of = |i: usize| body_boxes[i].unwrap_or_else(|| particle_box(i));
    let keep: Vec<bool> = candidates
        .par_iter()
        .map(|&(i, other)| {
            let a = box_of(i);
            let b = match other {
                Side::Particle(j) => box_of(j),
                Side::Obstacle(k) => obstacle_boxes[k],
            };
            !overlap::boxes_apart(&a, &b)
        })
        .collect();
    let mut k = keep.iter();
    candidates.retain(|_| k.next().copied().unwrap_or(true));
    if candidates.is_empty() {
        return Ok(());
    }
    let placed_particle = |i: usize| {
        let b = &bodies[i];
        let shape = &world.model.shapes[b.shape as usize];
        let m = &shape_meshes[b.shape as usize];
        PlacedMesh::new(
            &m.vertices,
            m.triangles.clone(),
            &b.mesh_to_world(&shape.com),
            true,
        )
    };
    let placed_obstacles: Vec<PlacedMesh> = world
        .model
        .obstacles
        .iter()
        .zip(obstacle_meshes)
        .map(|(o, m)| PlacedMesh::new(&m.vertices, m.triangles.clone(), &o.pose, false))
        .collect();
    let found: Vec<Option<Penetration>> = candidates
        .par_iter()
        .map(|&(i, other)| {
            let a = placed_particle(i);
            match other {
                Side::Particle(j) => penetration(&a, &placed_particle(j)),
                Side::Obstacle(k) => penetration(&a, &placed_obstacles[k]),
            }
        })
        .collect();
    let pairs: Vec<String> = candidates
        .iter()
        .zip(&found)
        .filter_map(|(&(i, other), p)| p.map(|p| describe(world, origins, i, other, p)))
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    let mut list = pairs
        .iter()
        .take(MAX_LISTED_PAIRS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if pairs.len() > MAX_LISTED_PAIRS {
        list.push_str(&format!(
            "; and {} more pairs",
            pairs.len() - MAX_LISTED_PAIRS
        ));
    }
    Err(SolverError::Interpenetration {
        file: scenario.file.clone(),
        pairs: list,
    })
}

fn describe(world: &World, origins: &[String], i: usize, other: Side, p: Penetration) -> String {
    let first = format!("particle {i} ({})", origins[i]);
    let second = match other {
        Side::Particle(j) => format!("particle {j} ({})", origins[j]),
        Side::Obstacle(k) => format!(
            "obstacle {k} `{}` (obstacles[{k}])",
            world.model.obstacles[k].name
        ),
    };
    let how = match p {
        Penetration::Crossing { a, b } => format!("triangles {a} and {b} cross"),
        Penetration::FirstInside => "part of the first lies inside the second".to_owned(),
        Penetration::SecondInside => "part of the second lies inside the first".to_owned(),
    };
    format!("{first} and {second} ({how})")
}
