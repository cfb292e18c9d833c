//! Scenario file schema (YAML, `version: 1`). Units are SI: m, kg, s, N.
//!
//! Relative paths inside a scenario are resolved against the scenario file's folder.
//! Unknown keys are rejected; errors carry `file:line:column`.
//!
//! ```yaml
//! version: 1                       # required, must be 1
//! name: staircase                  # required
//! time:                            # required
//!   dt: 2.0e-5                     # time step \[s\], > 0
//!   end: 2.0                       # end time \[s\], > 0
//!   output_every: 500              # steps between frames, ≥ 1
//! gravity: [0.0, 0.0, -9.81]       # [m/s²], default [0, 0, 0]
//! integrator: explicit             # explicit | implicit_flat | implicit_surrogate |
//!                                  # implicit_multiscale (default explicit)
//! picard:                          # optional, implicit integrators only; every key optional
//!   tolerance: 0.01                # relative force/torque update to converge [-], > 0
//!   max_iterations: 50             # Picard iterations per step, ≥ 1
//!   relaxation: 1.0                # initial ω, in [min_relaxation, max_relaxation]
//!   min_relaxation: 0.01           # > 0 and ≤ max_relaxation
//!   max_relaxation: 1.5            # > 0 and < 2
//!   force_floor: 0.001             # absolute floor of the test, × K_s·√M + M·|g| [-], ≥ 0
//!   coarse_force_damping: 0.5      # multiscale: factor on surrogate-level forces, in [0, 1]
//!   keep_active_sets: true         # multiscale: keep active sets from step to step
//!   local_updates: true            # particles within tolerance/2 keep their wrench;
//!                                  # multiscale re-detects only pairs that moved
//! detection:                       # optional
//!   mode: hierarchy                # hierarchy | flat (default hierarchy); explicit only
//!   kernel: exact                  # exact | hybrid (default exact)
//!   kept_sets: true                # explicit hierarchy: keep active sets from step to step
//!                                  # (default true; same contacts, less work)
//! broadphase: hgrid                # hgrid (alias grid) | linked_cells | all_pairs, or a
//!                                  # mapping (default hgrid, automatic levels), see below
//! seed: 0                          # RNG seed of the generators (default 0)
//! materials:                       # required: name → material
//!   rock:
//!     density: 2500.0              # [kg/m³] > 0
//!     epsilon: 0.01                # halo width relative to the bounding diameter (default 0.01)
//!     spring: 1000.0               # K_s [N·kg^-1/2] (default 1000)
//!     friction: 0.5                # Coulomb μ ≥ 0 (default 0)
//!     restitution: 0.5             # in (0, 1]; 1 = undamped (default 1)
//! shapes:                          # required: name → shape (instanced geometry)
//!   grain: { mesh: meshes/grain.ply, tree: trees/grain.tree }
//! obstacles:                       # optional list of static bodies
//!   - name: stairs
//!     mesh: meshes/stairs.ply
//!     tree: trees/stairs.tree
//!     epsilon: 0.002               # absolute halo \[m\] > 0
//!     friction: 0.5                # default 0
//!     restitution: 0.5             # default 1
//!     translation: [0.0, 0.0, 0.0] # optional \[m\]
//!     rotation: [1, 0, 0, 0]       # optional quaternion [w, x, y, z] (mesh → world)
//! particles:                       # optional explicit list
//!   - shape: grain
//!     material: rock
//!     position: [0.0, 0.0, 1.0]    # centre of mass \[m\]
//!     orientation: [1, 0, 0, 0]    # optional quaternion [w, x, y, z]
//!     velocity: [0.0, 0.0, -1.0]   # optional \[m/s\]
//!     angular_velocity: [0, 0, 0]  # optional \[rad/s\]
//! generators:                      # optional list; each item has exactly one key
//!   - lattice: { shape: grain, material: rock, origin: [0, 0, 1], spacing: [0.1, 0.1, 0.1],
//!                count: [5, 5, 2], velocity: [0, 0, 0], random_orientation: false }
//!   - random_box: { shape: grain, material: rock, count: 20, min: [0, 0, 0], max: [1, 1, 1],
//!                   random_orientation: true }
//!   - drop: { shape: grain, material: rock, count: 20, min: [0, 0, 1], max: [1, 1, 1.5],
//!             velocity: [0, 0, -1], random_orientation: true }
//! ```
//!
//! `random_box` and `drop` place particles at random non-overlapping positions (bounding
//! spheres incl. ε) inside the box with the seeded RNG; `drop` additionally gives every
//! particle the initial velocity. Placement that cannot fit `count` particles is an error.
//!
//! Compatible extensions of the original contract: obstacles accept `rotation`;
//! `random_box` accepts an optional `velocity` (default 0) like `drop`, whose `velocity`
//! is required; `lattice` accepts `velocity` and `random_orientation` as optional keys.
//!
//! **Broad phase** ([`BroadPhaseSpec`], [`crate::detect::broad`]): the short names above, or a
//! mapping with a required `kind` and the algorithm's optional parameters:
//!
//! ```yaml
//! broadphase:
//!   kind: hgrid                    # hgrid | grid | linked_cells | all_pairs
//!   levels: 3                      # hgrid: level count in [1, 16] (default: from the size
//!                                  #   distribution by the cost model, seed 001 §5.2.3)
//!   cell_sizes: [0.1, 0.8]         # hgrid: cell sizes [m] > 0, strictly increasing; fix
//!                                  #   the level count (`levels`, if written, must agree)
//!   cell_size: 0.3                 # linked_cells: cell size [m] > 0 (default: the largest
//!                                  #   bounding diameter incl. ε and skin, per rebuild)
//!   skin: 0.0                      # hgrid, linked_cells: Verlet skin [m] ≥ 0 (default:
//!                                  #   0.1 × the smallest bounding diameter incl. ε with
//!                                  #   automatic cells, 0 with given cells)
//! ```
//!
//! A key that does not apply to the `kind` is an error. *Rebuild policy* ([`crate::detect::broad`]):
//! with skin 0 the grid is rebuilt from the bounding spheres (incl. ε) in every step (O(N));
//! with a skin δ > 0 it is built with radii grown by δ/2 and its candidate pairs are
//! reused, re-tested exactly each step, until some particle has moved more than δ/2 since
//! the last rebuild — the contacts found are the same as with δ = 0. Given cell sizes must
//! fit every particle: a particle whose bounding diameter (incl. ε and skin) exceeds the
//! largest given cell is refused before the first step, naming the particle.
//!
//! **Implicit integrators** (seed 000 Alg. 3 / Alg. 6, [`crate::integrator::implicit`]): the variant
//! decides the contact detection inside the Picard iterations — `implicit_flat` every real
//! triangle pair, `implicit_surrogate` the tree traversal from the roots in every
//! iteration, `implicit_multiscale` active sets unfolded one level per iteration — so
//! `detection.mode` is not used by them: leave it out; a written mode that contradicts the
//! variant (`flat` with `implicit_surrogate` / `implicit_multiscale`, `hierarchy` with
//! `implicit_flat`) is an error at the `mode` value. `detection.kernel` is used by all
//! integrators. `picard:` is accepted (and validated) with `explicit` too, and ignored.
//! A step whose Picard iterations do not converge within `max_iterations` is accepted,
//! warned about on stderr (the first few) and recorded (`converged` in the statistics).
//!
//! Validation happens while parsing, so that every error names the offending scalar's
//! `file:line:column` and key path: `version` is checked first (missing or ≠ 1 is refused
//! before anything else is looked at); numbers must be finite (`.nan`/`.inf` are refused);
//! `dt`, `end`, `density`, `epsilon`, `spring` and lattice `spacing` must be > 0; `friction`
//! ≥ 0; `restitution` in (0, 1]; counts ≥ 1; a box needs `min < max` on every axis; shape and
//! material references must name an entry of `shapes:` / `materials:`; `picard:` values
//! out of range are reported at the value, combinations that break the rules of
//! [`PicardParams::validate`] (e.g. `relaxation` outside `[min_relaxation,
//! max_relaxation]`) at the `picard:` mapping.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::params::PicardParams;

mod broadphase;
mod cells;
mod generator;
mod implicit;
mod load;
mod names;
mod values;

pub use broadphase::BroadPhaseSpec;
pub use load::{load_scenario, parse_scenario};

/// The only scenario format version this build reads.
pub const SCENARIO_VERSION: u32 = 1;

/// A parsed and validated scenario file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a scenario mapping")]
pub struct Scenario {
    /// Format version (always [`SCENARIO_VERSION`] once parsed).
    pub version: u32,
    /// Scenario name.
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
    #[serde(default, deserialize_with = "implicit::picard")]
    pub picard: PicardParams,
    /// Contact detection options.
    #[serde(default)]
    pub detection: DetectionSpec,
    /// Broad-phase algorithm.
    #[serde(default)]
    pub broadphase: BroadPhaseSpec,
    /// Seed of the generators' random number generator.
    #[serde(default)]
    pub seed: u64,
    /// Materials by name.
    pub materials: BTreeMap<String, MaterialSpec>,
    /// Particle shapes by name.
    pub shapes: BTreeMap<String, ShapeSpec>,
    /// Static obstacles.
    #[serde(default)]
    pub obstacles: Vec<ObstacleSpec>,
    /// Explicitly listed particles.
    #[serde(default)]
    pub particles: Vec<ParticleSpec>,
    /// Particle generators.
    #[serde(default)]
    pub generators: Vec<GeneratorSpec>,
    /// The scenario file (set by [`load_scenario`] / [`parse_scenario`]); relative paths are
    /// resolved against its folder.
    #[serde(skip)]
    pub file: PathBuf,
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
#[derive(Clone, Debug, PartialEq, Deserialize)]
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

/// `integrator:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorSpec {
    /// Explicit Euler (seed 000 Alg. 1).
    #[default]
    Explicit,
    /// Implicit Euler, Picard iterations with flat detection in every iteration (Alg. 3).
    ImplicitFlat,
    /// Implicit Euler, *surrogate within Picard* (§5.2): Alg. 5 from the roots in every
    /// iteration.
    ImplicitSurrogate,
    /// Implicit Euler, *multiscale Picard* (Alg. 6): active sets unfolded one level per
    /// iteration.
    ImplicitMultiscale,
}

/// `detection:` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectionSpec {
    /// Tree traversal or flat all-triangle search (explicit integrator only; refused
    /// where it contradicts an implicit variant).
    #[serde(default, deserialize_with = "implicit::detection_mode")]
    pub mode: DetectionModeSpec,
    /// Triangle–triangle kernel.
    #[serde(default)]
    pub kernel: KernelSpec,
    /// Explicit hierarchy detection: keep each particle pair's active set from step to
    /// step (default) instead of descending from the roots in every step; the contacts
    /// are the same either way.
    #[serde(default = "yes")]
    pub kept_sets: bool,
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
        }
    }
}

/// `detection.mode:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DetectionModeSpec {
    /// Multiresolution traversal (seed 000 Alg. 5).
    #[default]
    Hierarchy,
    /// Every real triangle against every real triangle.
    Flat,
}

/// `detection.kernel:` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelSpec {
    /// Comparison-based exact distance.
    #[default]
    Exact,
    /// Iterative kernel with exact fallback (seed 000 Alg. 4).
    Hybrid,
}

fn default_epsilon() -> f64 {
    0.01
}
fn default_spring() -> f64 {
    1000.0
}
fn default_restitution() -> f64 {
    1.0
}
fn identity_quaternion() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}

/// A material (`materials.NAME`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Density [kg/m³], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub density: f64,
    /// Halo width relative to the particle's bounding diameter \[-\], > 0 (default 0.01).
    #[serde(default = "default_epsilon", deserialize_with = "values::positive")]
    pub epsilon: f64,
    /// Spring constant `K_s` [N·kg^-1/2], > 0 (default 1000).
    #[serde(default = "default_spring", deserialize_with = "values::positive")]
    pub spring: f64,
    /// Coulomb friction coefficient, ≥ 0 (default 0).
    #[serde(default, deserialize_with = "values::non_negative")]
    pub friction: f64,
    /// Coefficient of restitution in (0, 1] (default 1).
    #[serde(
        default = "default_restitution",
        deserialize_with = "values::restitution"
    )]
    pub restitution: f64,
}

/// A particle shape (`shapes.NAME`): a closed mesh and its prebuilt surrogate tree.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// Mesh file (relative to the scenario's folder).
    pub mesh: PathBuf,
    /// Surrogate-tree file built from `mesh` by `treebuild`.
    pub tree: PathBuf,
}

/// A static obstacle (`obstacles[i]`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObstacleSpec {
    /// Name.
    pub name: String,
    /// Mesh file (may be open).
    pub mesh: PathBuf,
    /// Surrogate-tree file built from `mesh` by `treebuild --obstacle`.
    pub tree: PathBuf,
    /// Absolute halo width \[m\], > 0.
    #[serde(deserialize_with = "values::positive")]
    pub epsilon: f64,
    /// Coulomb friction coefficient against particles, ≥ 0 (default 0).
    #[serde(default, deserialize_with = "values::non_negative")]
    pub friction: f64,
    /// Coefficient of restitution against particles in (0, 1] (default 1).
    #[serde(
        default = "default_restitution",
        deserialize_with = "values::restitution"
    )]
    pub restitution: f64,
    /// Translation applied to the mesh \[m\] (default 0).
    #[serde(default, deserialize_with = "values::vec3")]
    pub translation: [f64; 3],
    /// Rotation applied to the mesh before the translation, `[w, x, y, z]` (default
    /// identity; normalised).
    #[serde(
        default = "identity_quaternion",
        deserialize_with = "values::quaternion"
    )]
    pub rotation: [f64; 4],
}

/// An explicitly listed particle (`particles[i]`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Deserialize)]
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
    #[serde(deserialize_with = "values::count3")]
    pub count: [u32; 3],
    /// Initial velocity \[m/s\] (default 0).
    #[serde(default, deserialize_with = "values::vec3")]
    pub velocity: [f64; 3],
    /// Random orientations (default false).
    #[serde(default)]
    pub random_orientation: bool,
}

/// `random_box:` and `drop:` generators: random non-overlapping placement in a box.
#[derive(Clone, Debug, PartialEq)]
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
}

impl GeneratorSpec {
    /// The generator's key in the scenario file.
    pub fn kind(&self) -> &'static str {
        match self {
            GeneratorSpec::Lattice(_) => "lattice",
            GeneratorSpec::RandomBox(_) => "random_box",
            GeneratorSpec::Drop(_) => "drop",
        }
    }
}
