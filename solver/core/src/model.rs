//! The model of a simulation: what stays fixed during a run — instanced particle shapes,
//! contact materials and static obstacles. Built from a scenario by [`crate::setup`],
//! read (never written) by the detection layer, the contact model and the integrators.
//!
//! Geometry is instanced (docs/design.md §2): particles sharing a shape share one
//! [`Shape`] (its geometry, a triangle mesh with its surrogate tree behind an `Arc` today);
//! a particle ([`crate::state::Body`]) holds only its pose, velocities, mass properties
//! and halo width. Units: m, kg, s, N.

mod contact_law;
mod material_pair;
mod shape;
pub mod smooth;

pub use contact_law::{ContactLaw, Elastic};
pub use material_pair::{find_pair, MaterialPair};
pub use msdem_frames::Other;
/// A material's halo as the scenario gives it (relative or in metres).
pub use msdem_scenario::HaloSpec;
pub use shape::{Geometry, Kind, MeshGeometry};

use msdem_geom::math::{Iso3, Mat3, Vec3};

/// A particle shape shared by every particle that uses it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Name from the scenario.
    pub name: String,
    /// The shape's geometry: its particle kind and the data contact detection uses.
    pub geometry: Geometry,
    /// Volume \[m³\].
    pub volume: f64,
    /// Centre of mass in the shape's frame \[m\].
    pub com: Vec3,
    /// Inertia tensor about the centre of mass per unit density, shape axes \[m⁵\].
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
    /// Halo width of its particles: relative to the bounding diameter (default 0.01) or in
    /// metres (each particle's width in metres is [`crate::state::Body::epsilon`]).
    pub halo: HaloSpec,
    /// Spring constant `K_s` of the fade-in force [N·kg^-1/2] (default 1000).
    pub spring: f64,
    /// Coulomb friction coefficient [-].
    pub friction: f64,
    /// Coefficient of restitution in (0, 1]; 1 = no normal damping.
    pub restitution: f64,
    /// Contact law (default: the seed's spring).
    pub law: ContactLaw,
    /// Contact surface: the facets (default) or the curved surface of the vertex normals
    /// ([`smooth`]).
    pub surface: smooth::Surface,
}

/// A static obstacle (infinite mass).
#[derive(Clone, Debug)]
pub struct Obstacle {
    /// Name from the scenario.
    pub name: String,
    /// The obstacle's geometry in its own frame.
    pub geometry: Geometry,
    /// Obstacle frame → world.
    pub pose: Iso3,
    /// Halo width \[m\].
    pub epsilon: f64,
    /// Coulomb friction coefficient against particles [-].
    pub friction: f64,
    /// Coefficient of restitution against particles [-].
    pub restitution: f64,
    /// Elastic constants against Hertz–Mindlin particles (default rigid, `E = ∞`).
    pub elastic: Elastic,
    /// Rolling friction coefficient `μ_r` against Hertz–Mindlin particles [-].
    pub rolling_friction: f64,
    /// World axis-aligned bounds of the geometry including ε: `(min, max)` \[m\].
    pub aabb: (Vec3, Vec3),
}

/// Everything of a simulation that does not change during a run.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Scenario name.
    pub name: String,
    /// Instanced shapes.
    pub shapes: Vec<Shape>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Values of material pairs that override the default rule (scenario
    /// `material_pairs:`), at most one per pair.
    pub material_pairs: Vec<MaterialPair>,
    /// Static obstacles.
    pub obstacles: Vec<Obstacle>,
    /// How mesh–mesh contact points are formed and weighted.
    pub contact_points: ContactPoints,
}

/// How the contact points of a mesh–mesh pair are formed (seed 000 §2 and its extension,
/// `docs/design.md` §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactPoints {
    /// Seed 000 §2: the fine triangle pairs' closest points, merged within ε
    /// (Implementation remark 1), each with the full fade-in spring. The default of a
    /// model built in memory; a scenario's default under the explicit integrator is
    /// [`ContactPoints::Patches`] (`DetectionSpec::contact_points_for`).
    #[default]
    Seed,
    /// Surface patches ([`crate::contact::patch`]): the halo overlap integrated over the
    /// surface, so that the force does not depend on the triangulation of flat faces.
    Patches,
}
