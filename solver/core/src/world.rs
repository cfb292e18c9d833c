//! Simulation state: instanced shapes, materials, particles, static obstacles and the
//! run parameters. Built from a scenario by `setup`, advanced by the integrators.
//!
//! Geometry is instanced (DESIGN.md §2): particles sharing a shape share one
//! [`Shape`] (mesh-derived data and surrogate tree behind an `Arc`); a [`Body`] holds only
//! its pose, velocities, mass properties and halo width. Units: m, kg, s, N.

use std::sync::Arc;

use msdem_broadphase::HGridConfig;
use msdem_geom::math::{Iso3, Mat3, Quat, Vec3};
use msdem_tree::SurrogateTree;

use crate::implicit::{PicardParams, PicardVariant};

/// A particle shape shared by every particle that uses it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Name from the scenario.
    pub name: String,
    /// Surrogate tree in the mesh frame.
    pub tree: Arc<SurrogateTree>,
    /// Mesh file as written into the run manifest (relative to the run folder).
    pub mesh_path: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// Number of real triangles.
    pub triangles: u32,
    /// Volume \[m³\].
    pub volume: f64,
    /// Centre of mass in the mesh frame \[m\].
    pub com: Vec3,
    /// Inertia tensor about the centre of mass per unit density, mesh axes \[m⁵\].
    pub unit_inertia: Mat3,
    /// Bounding radius about the centre of mass \[m\].
    pub radius: f64,
}

/// Contact material of particles (seed 000 §2 force law plus friction and damping).
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name from the scenario.
    pub name: String,
    /// Density [kg/m³].
    pub density: f64,
    /// Halo width relative to the particle's bounding diameter [-] (default 1e-2).
    pub epsilon: f64,
    /// Spring constant `K_s` of the fade-in force [N·kg^-1/2] (default 1000).
    pub spring: f64,
    /// Coulomb friction coefficient [-].
    pub friction: f64,
    /// Coefficient of restitution in (0, 1]; 1 = no normal damping.
    pub restitution: f64,
}

/// A rigid particle.
#[derive(Clone, Debug)]
pub struct Body {
    /// Index into [`World::shapes`].
    pub shape: u32,
    /// Index into [`World::materials`].
    pub material: u32,
    /// Mass \[kg\].
    pub mass: f64,
    /// Inertia tensor about the centre of mass in body (mesh) axes [kg·m²].
    pub inertia: Mat3,
    /// Inverse of [`Body::inertia`].
    pub inv_inertia: Mat3,
    /// Halo width ε \[m\].
    pub epsilon: f64,
    /// Bounding radius about the centre of mass \[m\] (without ε).
    pub radius: f64,
    /// World position of the centre of mass \[m\].
    pub position: Vec3,
    /// Orientation (body axes → world).
    pub orientation: Quat,
    /// Linear velocity [m/s].
    pub velocity: Vec3,
    /// Angular velocity, world frame [rad/s].
    pub angular_velocity: Vec3,
}

impl Body {
    /// Mesh frame → world: `x ↦ position + R·(x − com)`.
    pub fn mesh_to_world(&self, com: &Vec3) -> Iso3 {
        let rot = self.orientation;
        let t = self.position - rot * com;
        Iso3::from_parts(t.into(), rot)
    }

    /// World-frame inverse inertia `R I⁻¹ Rᵀ`.
    pub fn world_inv_inertia(&self) -> Mat3 {
        let r = self.orientation.to_rotation_matrix();
        r.matrix() * self.inv_inertia * r.matrix().transpose()
    }
}

/// A static obstacle (infinite mass).
#[derive(Clone, Debug)]
pub struct Obstacle {
    /// Name from the scenario.
    pub name: String,
    /// Surrogate tree in the mesh frame.
    pub tree: Arc<SurrogateTree>,
    /// Mesh file as written into the run manifest (relative to the run folder).
    pub mesh_path: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// Mesh frame → world.
    pub pose: Iso3,
    /// Halo width \[m\].
    pub epsilon: f64,
    /// Coulomb friction coefficient against particles [-].
    pub friction: f64,
    /// Coefficient of restitution against particles [-].
    pub restitution: f64,
    /// World axis-aligned bounds of the mesh including ε: `(min, max)` \[m\].
    pub aabb: (Vec3, Vec3),
}

/// Time integrator (seed 000 §2, §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integrator {
    /// Explicit Euler (Alg. 1), Euler–Cromer ordering: velocities first, then positions.
    Explicit,
    /// Implicit Euler by Picard iterations (Alg. 3 / Alg. 6, [`crate::implicit`]); the
    /// variant decides the contact detection inside the iterations, so
    /// [`Params::detection`] is not used (the kernel still is).
    Implicit(PicardVariant),
}

/// How contacts between two trees are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetectionMode {
    /// Multiresolution traversal over the surrogate trees (Alg. 5).
    Hierarchy,
    /// Every real triangle against every real triangle (Alg. 2 baseline).
    Flat,
}

/// Triangle–triangle kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// Comparison-based exact distance.
    Exact,
    /// Iterative penalty minimisation (eq. 3/4) without fallback on surrogate levels,
    /// exact fallback on the finest level.
    Hybrid,
}

/// Broad-phase algorithm and its parameters (scenario `broadphase:`, [`crate::broad`]).
#[derive(Clone, Debug, PartialEq)]
pub enum BroadPhaseChoice {
    /// The default: the hierarchical grid of seed 001 (`msdem_broadphase::HGrid`) with
    /// automatic levels and the default skin [`crate::broad::default_skin`] of the world's
    /// particles.
    Grid,
    /// Every pair (for tests).
    AllPairs,
    /// Single-level linked cells (seed 001 §5.1).
    LinkedCells {
        /// Cell size \[m\]; `None` = the largest bounding diameter (incl. ε and skin).
        cell_size: Option<f64>,
        /// Verlet skin \[m\] ≥ 0.
        skin: f64,
    },
    /// Hierarchical grid with given levels, cell sizes and skin.
    HGrid(HGridConfig),
}

/// Run parameters.
#[derive(Clone, Debug)]
pub struct Params {
    /// Time step \[s\].
    pub dt: f64,
    /// End time \[s\].
    pub end: f64,
    /// Steps between output frames.
    pub output_every: u32,
    /// Gravity [m/s²].
    pub gravity: Vec3,
    /// Integrator.
    pub integrator: Integrator,
    /// Contact detection mode.
    pub detection: DetectionMode,
    /// Explicit steps with [`DetectionMode::Hierarchy`]: keep each particle pair's active
    /// set from step to step (see [`crate::step`]) instead of descending from the roots in
    /// every step. The contacts are the same either way; only the work differs.
    pub kept_sets: bool,
    /// Triangle kernel.
    pub kernel: KernelChoice,
    /// Broad phase.
    pub broadphase: BroadPhaseChoice,
    /// Settings of the Picard iterations (used by [`Integrator::Implicit`] only).
    pub picard: PicardParams,
}

/// The whole simulation state.
#[derive(Clone, Debug)]
pub struct World {
    /// Scenario name.
    pub name: String,
    /// Instanced shapes.
    pub shapes: Vec<Shape>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Particles; the particle id is the index.
    pub bodies: Vec<Body>,
    /// Static obstacles.
    pub obstacles: Vec<Obstacle>,
    /// Run parameters.
    pub params: Params,
    /// Current simulated time \[s\].
    pub time: f64,
    /// Steps taken so far.
    pub step: u64,
}
