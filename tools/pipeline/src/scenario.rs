//! The inline solver scenario of a pipeline file (written out by [`crate::scenario_file`]).
//!
//! The schema mirrors the solver's (`solver/core/src/scenario.rs`) except for three
//! things the runner fills in: `version` and `name` come from the pipeline, and shapes and
//! obstacles name a tree of the pipeline (`{ tree: grain }`) instead of giving file paths;
//! the written scenario gets `mesh: meshes/MESH.ply, tree: trees/TREE.tree`, relative to
//! the output folder, where the scenario file lies. Units are SI (m, kg, s, N).

use serde::ser::SerializeMap;
use serde::{de, Deserialize, Serialize};

pub use crate::broadphase::{Broadphase, BroadphaseKind, BroadphaseParams};
use crate::names::{Materials, Name, NamedMap, Ref, Shapes, Trees};

/// The scenario section of a pipeline file. Options left out take the solver's defaults.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Time stepping.
    pub time: TimeSpec,
    /// Gravity \[m/s²\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f64; 3]>,
    /// Time integrator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrator: Option<Integrator>,
    /// Picard settings of the implicit integrators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picard: Option<PicardSpec>,
    /// Narrow-phase options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection: Option<DetectionSpec>,
    /// Broad phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broadphase: Option<Broadphase>,
    /// Seed of the particle generators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Materials by name.
    pub materials: NamedMap<MaterialSpec>,
    /// Particle shapes by name (instanced geometry).
    pub shapes: NamedMap<ShapeSpec>,
    /// Static bodies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub obstacles: Vec<ObstacleSpec>,
    /// Explicitly placed particles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub particles: Vec<ParticleSpec>,
    /// Particle generators.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorSpec>,
}

/// Time stepping parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    /// Time step \[s\].
    pub dt: f64,
    /// End time \[s\].
    pub end: f64,
    /// Steps between two output frames.
    pub output_every: u32,
}

/// Time integrator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// Explicit Euler (seed 000 Alg. 1).
    Explicit,
    /// Implicit Euler, Picard iterations with flat detection (Alg. 3).
    ImplicitFlat,
    /// Implicit Euler, surrogate-tree detection from the roots in every Picard iteration
    /// (§5.2).
    ImplicitSurrogate,
    /// Implicit Euler, multiscale Picard (Alg. 6).
    ImplicitMultiscale,
}

/// Picard settings of the implicit integrators (ranges checked by the solver).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PicardSpec {
    /// Relative convergence threshold on force and torque updates \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Picard iterations per step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Initial relaxation weight ω \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relaxation: Option<f64>,
    /// Lower bound of the adaptive ω \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_relaxation: Option<f64>,
    /// Upper bound of the adaptive ω \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_relaxation: Option<f64>,
    /// Absolute floor of the convergence test, relative to a particle's force scale \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_floor: Option<f64>,
    /// Multiscale: factor on surrogate-level force estimates \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coarse_force_damping: Option<f64>,
    /// Multiscale: keep active sets from step to step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_active_sets: Option<bool>,
    /// Particles already within half the tolerance keep their wrench; multiscale detects
    /// only pairs with a moved particle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_updates: Option<bool>,
}

/// Narrow-phase options.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DetectionSpec {
    /// Contact detection over the surrogate trees or over the fine meshes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<DetectionMode>,
    /// Triangle–triangle distance kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// Explicit hierarchy detection: keep active sets from step to step (solver default
    /// true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_sets: Option<bool>,
}

/// Contact detection mode (seed 000 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DetectionMode {
    /// Multiresolution traversal of the surrogate trees (Alg. 5).
    Hierarchy,
    /// All fine triangle pairs.
    Flat,
}

/// Triangle–triangle distance kernel (seed 000 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kernel {
    /// Comparison-based exact distance.
    Exact,
    /// Iterative kernel with exact fallback.
    Hybrid,
}

/// A particle material.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Density \[kg/m³\].
    pub density: f64,
    /// Halo width ε relative to the particle's bounding diameter \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Spring constant K_s \[N·kg^-1/2\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spring: Option<f64>,
    /// Coulomb friction coefficient μ \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Restitution in (0, 1] \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f64>,
}

/// A particle shape: a tree of the pipeline (its mesh is the tree's mesh).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// The tree (name under `trees:`).
    pub tree: Ref<Trees>,
}

/// A static obstacle built on a tree of the pipeline.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ObstacleSpec {
    /// Obstacle name.
    pub name: Name,
    /// The tree (name under `trees:`).
    pub tree: Ref<Trees>,
    /// Absolute halo width ε \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Coulomb friction coefficient μ \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Restitution in (0, 1] \[1\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f64>,
    /// World translation of the mesh \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[f64; 3]>,
    /// World rotation of the mesh, quaternion `[w, x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f64; 4]>,
}

/// An explicitly placed particle.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParticleSpec {
    /// Shape name.
    pub shape: Ref<Shapes>,
    /// Material name.
    pub material: Ref<Materials>,
    /// Centre of mass \[m\].
    pub position: [f64; 3],
    /// Orientation quaternion `[w, x, y, z]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// Velocity \[m/s\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    /// Angular velocity \[rad/s\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angular_velocity: Option<[f64; 3]>,
}

/// A particle generator; each list item has exactly one key naming its kind,
/// e.g. `- drop: { shape: grain, … }`.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorSpec {
    /// `lattice:` a regular lattice of particles.
    Lattice(LatticeSpec),
    /// `random_box:` random non-overlapping positions inside a box, at rest.
    RandomBox(BoxSpec),
    /// `drop:` like `random_box`, with an initial velocity.
    Drop(BoxSpec),
}

impl GeneratorSpec {
    fn key(&self) -> &'static str {
        match self {
            GeneratorSpec::Lattice(_) => "lattice",
            GeneratorSpec::RandomBox(_) => "random_box",
            GeneratorSpec::Drop(_) => "drop",
        }
    }
}

impl Serialize for GeneratorSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match self {
            GeneratorSpec::Lattice(g) => map.serialize_entry(self.key(), g)?,
            GeneratorSpec::RandomBox(g) | GeneratorSpec::Drop(g) => {
                map.serialize_entry(self.key(), g)?
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for GeneratorSpec {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Kind {
            Lattice,
            RandomBox,
            Drop,
        }
        struct OneKey;
        impl<'de> de::Visitor<'de> for OneKey {
            type Value = GeneratorSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping with one key: lattice, random_box or drop")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let Some(kind) = map.next_key::<Kind>()? else {
                    return Err(de::Error::custom(
                        "empty generator, expected one key: lattice, random_box or drop",
                    ));
                };
                let generator = match kind {
                    Kind::Lattice => GeneratorSpec::Lattice(map.next_value()?),
                    Kind::RandomBox => GeneratorSpec::RandomBox(map.next_value()?),
                    Kind::Drop => GeneratorSpec::Drop(map.next_value()?),
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(format!(
                        "a generator has exactly one key, found more after `{}`",
                        generator.key()
                    )));
                }
                Ok(generator)
            }
        }
        d.deserialize_map(OneKey)
    }
}

/// Parameters of a `lattice` generator.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LatticeSpec {
    /// Shape name.
    pub shape: Ref<Shapes>,
    /// Material name.
    pub material: Ref<Materials>,
    /// Centre of the first particle \[m\].
    pub origin: [f64; 3],
    /// Lattice spacing \[m\].
    pub spacing: [f64; 3],
    /// Particles along x, y, z.
    pub count: [u32; 3],
    /// Initial velocity \[m/s\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    /// Random orientations from the scenario seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_orientation: Option<bool>,
}

/// Parameters of a `random_box` or `drop` generator (`velocity` only for `drop`, checked
/// by the solver).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// Shape name.
    pub shape: Ref<Shapes>,
    /// Material name.
    pub material: Ref<Materials>,
    /// Number of particles.
    pub count: u32,
    /// Lower corner \[m\].
    pub min: [f64; 3],
    /// Upper corner \[m\].
    pub max: [f64; 3],
    /// Initial velocity \[m/s\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    /// Random orientations from the scenario seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_orientation: Option<bool>,
}
