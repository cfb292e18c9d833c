//! The types of a scenario: one schema for scenario files and for the `scenario:` section of
//! a pipeline file, which differ only in their [`GeometrySource`] (see [`crate::source`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::checkpoint::CheckpointSpec;
use crate::contact_law::{self, ContactLawSpec};
use crate::distributed::DistributedSpec;
use crate::halo::{self, HaloSpec};
use crate::integrator::IntegratorSpec;
use crate::limits::LimitsSpec;
use crate::picard::PicardParams;
use crate::source::{self, GeometrySource, MeshFiles, ObstacleSpec, ShapeSource};
use crate::values::{default_restitution, identity_quaternion};
use crate::{implicit, names, values, BroadPhaseSpec, SCENARIO_VERSION};

/// A parsed and validated scenario: a scenario file (`G` = [`MeshFiles`], the default) or
/// the `scenario:` section of a pipeline file (`G` = [`crate::TreeName`]), which has no
/// `version` and `name` of its own (the pipeline's are used) and whose shapes and
/// obstacles name a tree of the pipeline.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a scenario mapping",
    bound(deserialize = "G: GeometrySource", serialize = "G: GeometrySource")
)]
pub struct Scenario<G = MeshFiles> {
    /// Format version (always [`SCENARIO_VERSION`] once parsed; not written in a pipeline).
    #[serde(
        default = "scenario_version",
        deserialize_with = "source::version::<G, _>"
    )]
    pub version: u32,
    /// Scenario name (a pipeline's scenario takes the pipeline's name).
    #[serde(default, deserialize_with = "source::name::<G, _>")]
    pub name: String,
    /// Time stepping and output.
    pub time: TimeSpec,
    /// Gravity [m/s²].
    #[serde(default, deserialize_with = "values::vec3")]
    pub gravity: [f64; 3],
    /// Time integrator.
    #[serde(default)]
    pub integrator: IntegratorSpec,
    /// Picard settings of the implicit integrators (ignored by `explicit`).
    #[serde(
        default,
        deserialize_with = "implicit::picard",
        skip_serializing_if = "is_default"
    )]
    pub picard: PicardParams,
    /// Settings of the local time stepping integrators (ignored by `explicit`, refused
    /// with the implicit ones).
    #[serde(
        default,
        deserialize_with = "crate::lts::lts",
        skip_serializing_if = "is_default"
    )]
    pub lts: crate::lts::LtsParams,
    /// Contact detection options.
    #[serde(default, skip_serializing_if = "is_default")]
    pub detection: DetectionSpec,
    /// Broad-phase algorithm.
    #[serde(default, skip_serializing_if = "is_default")]
    pub broadphase: BroadPhaseSpec,
    /// Seed of the generators' random number generator.
    #[serde(default)]
    pub seed: u64,
    /// Materials by name.
    pub materials: BTreeMap<String, MaterialSpec>,
    /// Contact values of material pairs that override the default rule (see
    /// [`crate::material_pairs`]).
    #[serde(
        default,
        deserialize_with = "crate::material_pairs::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub material_pairs: Vec<crate::MaterialPairSpec>,
    /// Particle shapes by name: where each one's geometry comes from.
    pub shapes: BTreeMap<String, ShapeSource<G>>,
    /// Static obstacles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub obstacles: Vec<ObstacleSpec<G>>,
    /// Explicitly listed particles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub particles: Vec<ParticleSpec>,
    /// Particle generators.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorSpec>,
    /// Caps checked before the solver allocates (see [`crate::limits`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: LimitsSpec,
    /// When the solver writes checkpoints (see [`crate::checkpoint`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub checkpoint: CheckpointSpec,
    /// Settings of runs over several MPI ranks (see [`crate::distributed`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub distributed: DistributedSpec,
    /// The scenario file (set by [`crate::load_scenario`] / [`crate::parse_scenario`]); relative paths are
    /// resolved against its folder.
    #[serde(skip)]
    pub file: PathBuf,
}

fn scenario_version() -> u32 {
    SCENARIO_VERSION
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl<G: GeometrySource> Scenario<G> {
    /// The same scenario with every shape's and obstacle's geometry source replaced by
    /// `f(source)` (a pipeline turns its tree names into the files the runner writes).
    pub fn map_geometry<H>(&self, mut f: impl FnMut(&G) -> H) -> Scenario<H> {
        let shapes = self
            .shapes
            .iter()
            .map(|(name, shape)| (name.clone(), shape.map(&mut f)))
            .collect();
        let obstacles = self
            .obstacles
            .iter()
            .map(|o| ObstacleSpec {
                name: o.name.clone(),
                geometry: f(&o.geometry),
                halo_m: o.halo_m,
                friction: o.friction,
                restitution: o.restitution,
                youngs_modulus_pa: o.youngs_modulus_pa,
                poisson_ratio: o.poisson_ratio,
                rolling_friction: o.rolling_friction,
                translation: o.translation,
                rotation: o.rotation,
            })
            .collect();
        Scenario {
            version: self.version,
            name: self.name.clone(),
            time: self.time.clone(),
            gravity: self.gravity,
            integrator: self.integrator,
            picard: self.picard.clone(),
            lts: self.lts.clone(),
            detection: self.detection,
            broadphase: self.broadphase.clone(),
            seed: self.seed,
            materials: self.materials.clone(),
            material_pairs: self.material_pairs.clone(),
            shapes,
            obstacles,
            particles: self.particles.clone(),
            generators: self.generators.clone(),
            limits: self.limits,
            checkpoint: self.checkpoint,
            distributed: self.distributed,
            file: self.file.clone(),
        }
    }
}

impl Scenario {
    /// Resolves a path written in the scenario against the scenario file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        match self.file.parent() {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// `time:` section.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    /// Time step \[s\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub dt: f64,
    /// End time \[s\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub end: f64,
    /// Steps between two output frames, ≥ 1.
    #[serde(deserialize_with = "values::count")]
    pub output_every: u32,
}

/// `detection:` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DetectionSpec {
    /// Tree traversal or flat all-triangle search (explicit integrator only; refused
    /// where it contradicts an implicit variant, so the default is not written back).
    #[serde(
        default,
        deserialize_with = "implicit::detection_mode",
        skip_serializing_if = "is_default"
    )]
    pub mode: DetectionModeSpec,
    /// Triangle–triangle kernel.
    #[serde(default)]
    pub kernel: KernelSpec,
    /// Explicit hierarchy detection: keep each particle pair's active set from step to
    /// step (default) instead of descending from the roots in every step; the contacts
    /// are the same either way.
    #[serde(default = "yes")]
    pub kept_sets: bool,
    /// How the contact points of a mesh–mesh pair are formed (`docs/design.md` §3);
    /// `None` (the key left out, not written back): surface patches under the explicit
    /// integrator, seed points under the others ([`DetectionSpec::contact_points_for`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_points: Option<ContactPointsSpec>,
}

fn yes() -> bool {
    true
}

impl Default for DetectionSpec {
    fn default() -> Self {
        DetectionSpec {
            mode: DetectionModeSpec::default(),
            kernel: KernelSpec::default(),
            kept_sets: true,
            contact_points: None,
        }
    }
}

impl DetectionSpec {
    /// The contact points a run with `integrator` uses: the key's value, else surface
    /// patches under `explicit`, seed points under the others. Under
    /// `local_time_stepping` and `global_adaptive` the impulses let a rock resting on
    /// patches gain energy; under the implicit integrators the patch floor's single
    /// deepest point jumps between Picard guesses, so no step of the staircase or the
    /// hopper converges (`docs/design.md` §3).
    pub fn contact_points_for(&self, integrator: IntegratorSpec) -> ContactPointsSpec {
        self.contact_points.unwrap_or(match integrator {
            IntegratorSpec::Explicit => ContactPointsSpec::Patches,
            _ => ContactPointsSpec::Seed,
        })
    }
}

/// `detection.contact_points:` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactPointsSpec {
    /// Seed 000 §2: the fine triangle pairs' closest points merged within ε, each with
    /// the full fade-in spring.
    Seed,
    /// Surface patches (the default of the explicit integrator): the halo overlap
    /// integrated over the surface, so that the force between flat faces does not depend
    /// on their triangulation; a pair is never softer than its deepest seed point.
    Patches,
}

/// `detection.mode:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DetectionModeSpec {
    /// Multiresolution traversal (seed 000 Alg. 5).
    #[default]
    Hierarchy,
    /// Every real triangle against every real triangle.
    Flat,
}

/// `detection.kernel:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelSpec {
    /// Comparison-based exact distance.
    #[default]
    Exact,
    /// Iterative kernel with exact fallback (seed 000 Alg. 4).
    Hybrid,
}

fn default_spring() -> f64 {
    1000.0
}

/// A material (`materials.NAME`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaterialSpec {
    /// Density [kg/m³], > 0.
    pub density: f64,
    /// Halo width of its particles, `{ relative: X }` (of the bounding diameter) or
    /// `{ absolute_m: X }` (default `{ relative: 0.01 }`).
    pub halo: HaloSpec,
    /// Spring constant `K_s` [N·kg^-1/2], > 0 (default 1000).
    pub spring: f64,
    /// Coulomb friction coefficient, ≥ 0 (default 0).
    pub friction: f64,
    /// Coefficient of restitution in (0, 1] (default 1).
    pub restitution: f64,
    /// Contact law (default `seed`).
    #[serde(skip_serializing_if = "is_default")]
    pub contact_law: ContactLawSpec,
    /// Young's modulus \[Pa\], > 0 (Hertz–Mindlin only, required there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub youngs_modulus_pa: Option<f64>,
    /// Poisson's ratio in (−1, 0.5) (Hertz–Mindlin only, required there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poisson_ratio: Option<f64>,
    /// Rolling friction coefficient μ_r, ≥ 0 (Hertz–Mindlin only; default 0).
    #[serde(skip_serializing_if = "is_default")]
    pub rolling_friction: f64,
    /// Contact surface: the facets (default) or the curved surface of the vertex normals.
    #[serde(skip_serializing_if = "is_default")]
    pub surface: crate::SurfaceSpec,
}

/// A material's keys as written (`epsilon`, the old name of `halo`, is refused with the
/// line that replaces it, see [`halo`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialKeys {
    #[serde(deserialize_with = "values::positive")]
    density: f64,
    #[serde(default)]
    halo: HaloSpec,
    #[serde(default = "default_spring", deserialize_with = "values::positive")]
    spring: f64,
    #[serde(default, deserialize_with = "values::non_negative")]
    friction: f64,
    #[serde(
        default = "default_restitution",
        deserialize_with = "values::restitution"
    )]
    restitution: f64,
    #[serde(default)]
    contact_law: ContactLawSpec,
    #[serde(default, deserialize_with = "values::some_positive")]
    youngs_modulus_pa: Option<f64>,
    #[serde(default, deserialize_with = "values::some_poisson_ratio")]
    poisson_ratio: Option<f64>,
    #[serde(default, deserialize_with = "values::non_negative")]
    rolling_friction: f64,
    #[serde(default)]
    surface: crate::SurfaceSpec,
}

impl<'de> Deserialize<'de> for MaterialSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MaterialVisitor;

        impl<'de> Visitor<'de> for MaterialVisitor {
            type Value = MaterialSpec;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a material mapping")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MaterialSpec, A::Error> {
                let map = halo::WithoutEpsilon::new(map, halo::material_epsilon_hint);
                let k = MaterialKeys::deserialize(de::value::MapAccessDeserializer::new(map))?;
                contact_law::check_material(
                    k.contact_law,
                    k.youngs_modulus_pa,
                    k.poisson_ratio,
                    k.rolling_friction,
                )
                .map_err(de::Error::custom)?;
                Ok(MaterialSpec {
                    density: k.density,
                    halo: k.halo,
                    spring: k.spring,
                    friction: k.friction,
                    restitution: k.restitution,
                    contact_law: k.contact_law,
                    youngs_modulus_pa: k.youngs_modulus_pa,
                    poisson_ratio: k.poisson_ratio,
                    rolling_friction: k.rolling_friction,
                    surface: k.surface,
                })
            }
        }

        d.deserialize_map(MaterialVisitor)
    }
}

/// An explicitly listed particle (`particles[i]`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParticleSpec {
    /// Shape name.
    #[serde(deserialize_with = "names::shape_ref")]
    pub shape: String,
    /// Material name.
    #[serde(deserialize_with = "names::material_ref")]
    pub material: String,
    /// World position of the centre of mass \[m\].
    #[serde(deserialize_with = "values::vec3")]
    pub position: [f64; 3],
    /// Orientation `[w, x, y, z]` (default identity; normalised).
    #[serde(
        default = "identity_quaternion",
        deserialize_with = "values::quaternion"
    )]
    pub orientation: [f64; 4],
    /// Linear velocity \[m/s\] (default 0).
    #[serde(default, deserialize_with = "values::vec3")]
    pub velocity: [f64; 3],
    /// Angular velocity, world frame \[rad/s\] (default 0).
    #[serde(default, deserialize_with = "values::vec3")]
    pub angular_velocity: [f64; 3],
}

/// `lattice:` generator: particles on a regular grid.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LatticeSpec {
    /// Shape name.
    #[serde(deserialize_with = "names::shape_ref")]
    pub shape: String,
    /// Material name.
    #[serde(deserialize_with = "names::material_ref")]
    pub material: String,
    /// Centre of mass of the first particle \[m\].
    #[serde(deserialize_with = "values::vec3")]
    pub origin: [f64; 3],
    /// Distance between neighbours along x, y, z \[m\], each > 0.
    #[serde(deserialize_with = "values::vec3")]
    pub spacing: [f64; 3],
    /// Particles along x, y, z, each ≥ 1.
    #[serde(deserialize_with = "values::lattice_count")]
    pub count: [u32; 3],
    /// Initial velocity \[m/s\] (default 0).
    #[serde(default, deserialize_with = "values::vec3")]
    pub velocity: [f64; 3],
    /// Random orientations (default false).
    #[serde(default)]
    pub random_orientation: bool,
}

/// `random_box:` and `drop:` generators: random non-overlapping placement in a box.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxSpec {
    /// Shape name.
    pub shape: String,
    /// Material name.
    pub material: String,
    /// Number of particles, ≥ 1.
    pub count: u32,
    /// Lower corner of the box \[m\].
    pub min: [f64; 3],
    /// Upper corner of the box \[m\].
    pub max: [f64; 3],
    /// Initial velocity \[m/s\] (required for `drop`, default 0 for `random_box`).
    pub velocity: [f64; 3],
    /// Random orientations (default false).
    pub random_orientation: bool,
}

/// One item of `generators:` — a mapping with exactly one key naming the generator.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorSpec {
    /// `lattice: {..}`.
    Lattice(LatticeSpec),
    /// `random_box: {..}`.
    RandomBox(BoxSpec),
    /// `drop: {..}`.
    Drop(BoxSpec),
    /// `pairs: {..}`: pairs on a head-on collision course (seed 004 §8.1).
    Pairs(crate::generator::PairsSpec),
    /// `stack: {..}`: slanted stacks (seed 004 §8.2).
    Stack(crate::generator::StackSpec),
    /// `ring: {..}`: rings in layers, a tower (seed 004 §8.2).
    Ring(crate::generator::RingSpec),
}

impl GeneratorSpec {
    /// The generator's key in the scenario file.
    pub fn kind(&self) -> &'static str {
        match self {
            GeneratorSpec::Lattice(_) => "lattice",
            GeneratorSpec::RandomBox(_) => "random_box",
            GeneratorSpec::Drop(_) => "drop",
            GeneratorSpec::Pairs(_) => "pairs",
            GeneratorSpec::Stack(_) => "stack",
            GeneratorSpec::Ring(_) => "ring",
        }
    }

    /// The shape the generator places.
    pub fn shape(&self) -> &str {
        match self {
            GeneratorSpec::Lattice(l) => &l.shape,
            GeneratorSpec::RandomBox(b) | GeneratorSpec::Drop(b) => &b.shape,
            GeneratorSpec::Pairs(p) => &p.shape,
            GeneratorSpec::Stack(s) => &s.shape,
            GeneratorSpec::Ring(r) => &r.shape,
        }
    }

    /// The material of the particles the generator places.
    pub fn material(&self) -> &str {
        match self {
            GeneratorSpec::Lattice(l) => &l.material,
            GeneratorSpec::RandomBox(b) | GeneratorSpec::Drop(b) => &b.material,
            GeneratorSpec::Pairs(p) => &p.material,
            GeneratorSpec::Stack(s) => &s.material,
            GeneratorSpec::Ring(r) => &r.material,
        }
    }

    /// The number of particles the generator places (`u64`, saturating).
    pub fn total(&self) -> u64 {
        match self {
            GeneratorSpec::Lattice(l) => crate::limits::lattice_total(l.count).unwrap_or(u64::MAX),
            GeneratorSpec::RandomBox(b) | GeneratorSpec::Drop(b) => u64::from(b.count),
            GeneratorSpec::Pairs(p) => 2 * u64::from(p.count),
            GeneratorSpec::Stack(s) => s.total(),
            GeneratorSpec::Ring(r) => r.total(),
        }
    }
}

impl names::Known {
    /// The shapes, materials, integrator, listed particles, particle cap and time step of `scenario`
    /// (parsed without them), and no trees.
    pub fn of<G: GeometrySource>(scenario: &Scenario<G>) -> names::Known {
        names::Known {
            shapes: scenario.shapes.keys().cloned().collect(),
            materials: scenario.materials.keys().cloned().collect(),
            integrator: scenario.integrator,
            trees: Vec::new(),
            particles: scenario.particles.len() as u64,
            max_particles: Some(scenario.limits.max_particles),
            time: Some((scenario.time.dt, scenario.time.output_every)),
        }
    }
}
