//! Scenario schema of the multiresolution DEM (YAML, `version: 1`): the serde types, their
//! validation while parsing, located errors ([`ScenarioError`]) and the loader
//! ([`load_scenario`], [`parse_scenario`]). Units are SI: m, kg, s, N.
//!
//! One schema serves two forms ([`GeometrySource`], module [`source`]): a scenario file,
//! read by the solver, and the `scenario:` section of a pipeline file, read by the pipeline
//! runner, which has no `version` and `name` (the pipeline's are used) and whose shapes and
//! obstacles name a tree of the pipeline, `{ tree: NAME }`, instead of the `mesh` and `tree`
//! files below. Both are checked by the same code, so an error in a pipeline file is
//! reported at that file's `line:column`.
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
//!                                  # implicit_multiscale | local_time_stepping |
//!                                  # global_adaptive (default explicit)
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
//!   scheme: euler                  # euler | midpoint | theta (implicit Euler / implicit
//!                                  # midpoint / θ-method)
//!   theta: 0.55                    # θ of `scheme: theta`, in (0.5, 1]
//!   acceleration: aitken           # aitken (relaxed Picard) | newton (contact Jacobian)
//!   on_no_convergence: substep     # substep (retry with Δt/2) | stop (end the run)
//!   max_substep_levels: 4          # most halvings of Δt for one step, ≤ 20
//! lts:                             # optional, local_time_stepping / global_adaptive (explicit ignores it)
//!   interval_s: 1.0e-3             # synchronisation interval [s] (default time.dt)
//!   min_step_s: 1.0e-9             # floor of a cluster's time step size [s], > 0
//!   max_sweeps_per_interval: 100000  # sweeps per interval before the run stops, ≥ 1
//!   span_memory: 0.5               # C of seed 004 eq. (3), in [0, 1]
//!   impulse: { max_iterations: 200, tolerance: 1.0e-9, relaxation: 1.0,
//!              separation_fraction: 0.5 }  # sequential impulses; solver defaults
//! detection:                       # optional
//!   mode: hierarchy                # hierarchy | flat (default hierarchy); explicit only
//!   kernel: exact                  # exact | hybrid (default exact)
//!   kept_sets: true                # explicit hierarchy: keep active sets from step to step
//!                                  # (default true; same contacts, less work)
//!   contact_points: patches        # patches | seed (default patches under explicit,
//!                                  # seed under the other integrators): surface
//!                                  # patches whose force does not depend on the
//!                                  # triangulation (docs/design.md §3), or seed 000 §2's points
//! broadphase: hgrid                # hgrid (alias grid) | linked_cells | bins | all_pairs, or a
//!                                  # mapping (default hgrid, automatic levels), see below
//! seed: 0                          # RNG seed of the generators (default 0)
//! materials:                       # required: name → material
//!   rock:
//!     density: 2500.0              # [kg/m³] > 0
//!     halo: { relative: 0.01 }     # halo width, exactly one key (default { relative: 0.01 }):
//!                                  #   relative: × bounding diameter [-], in (0, 0.5]
//!                                  #   absolute_m: \[m\] > 0, whatever the particle's size
//!     spring: 1000.0               # K_s [N·kg^-1/2] (default 1000)
//!     friction: 0.5                # Coulomb μ ≥ 0 (default 0)
//!     restitution: 0.5             # in (0, 1]; 1 = undamped (default 1)
//! shapes:                          # required: name → shape (instanced geometry)
//!   grain: { mesh: meshes/grain.ply, tree: trees/grain.tree }
//! obstacles:                       # optional list of static bodies
//!   - name: stairs
//!     mesh: meshes/stairs.ply
//!     tree: trees/stairs.tree
//!     halo: { absolute_m: 0.002 }  # required, halo width \[m\] > 0 (`relative` is refused:
//!                                  #   an obstacle has no bounding diameter)
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
//!   - pairs: { shape: grain, material: rock, count: 64, origin: [0, 0, 0], pitch_m: 0.1,
//!              separation_m: 0.5, speed_m_s: [0.5, 2.0] }      # seed 004 §8.1
//!   - stack: { shape: cube, material: rock, count: 20, stacks: [4, 1], origin: [0, 0, 0.05],
//!              pitch_m: [0.6, 0.6], layer_m: 0.102, slant_m: [0.0, 0.03] }   # seed 004 §8.2
//!   - ring: { shape: cube, material: rock, count: 32, layers: 4, center: [0, 0, 0.05],
//!             radius_m: 0.6, layer_m: 0.102, stagger: true }   # seed 004 §8.2 tower
//! limits:                          # optional
//!   max_particles: 10000000        # cap on listed + generated particles, ≥ 1 (default 10⁷)
//!   max_steps: 100000000           # cap on end/dt, ≥ 1 (default 10⁸; `--max-steps` overrides)
//!   memory_bytes: 8.0e9            # cap on the memory estimate (default: what is available)
//!   disk_bytes: 1.0e11             # cap on the output estimate (default: the free space)
//! checkpoint:                      # optional; the solver's flags override these
//!   every_steps: 1000              # a checkpoint every N steps (default 0: off)
//!   every_wall_s: 60               # and/or every T s of wall time (default 60; 0: off)
//! distributed:                     # optional; used by runs over several MPI ranks only
//!   rebalance_imbalance: 1.1       # recompute the domains above this max/mean load (≥ 1)
//! ```
//!
//! **Halo** ([`HaloSpec`], module [`halo`]): the key says the unit. `halo` replaces
//! `epsilon`, which was a fraction of the bounding diameter on a material and metres on an
//! obstacle; `epsilon` is refused at its value with the line to write instead, e.g.
//! ``materials.rock.epsilon: `epsilon` was renamed: write `halo: { relative: 0.03 }` (a
//! fraction of the bounding diameter)``. A `halo` mapping has exactly one key; an unknown
//! key or a second one is refused at that key.
//!
//! `random_box` and `drop` place particles at random non-overlapping positions (bounding
//! spheres incl. ε) inside the box with the seeded RNG; `drop` additionally gives every
//! particle the initial velocity. Placement that cannot fit `count` particles is an error.
//!
//! Compatible extensions of the original contract: obstacles accept `rotation`;
//! `random_box` accepts an optional `velocity` (default 0) like `drop`, whose `velocity`
//! is required; `lattice` accepts `velocity` and `random_orientation` as optional keys.
//!
//! **Broad phase** ([`BroadPhaseSpec`], the solver's `broad` module): the short names above, or a
//! mapping with a required `kind` and the algorithm's optional parameters:
//!
//! ```yaml
//! broadphase:
//!   kind: hgrid                    # hgrid | grid | linked_cells | bins | all_pairs
//!   levels: 3                      # hgrid: level count in [1, 16] (default: from the size
//!                                  #   distribution by the cost model, seed 001 §5.2.3)
//!   cell_sizes: [0.1, 0.8]         # hgrid: cell sizes [m] > 0, strictly increasing; fix
//!                                  #   the level count (`levels`, if written, must agree)
//!   cell_size: 0.3                 # linked_cells: cell size [m] > 0 (default: the largest
//!                                  #   bounding diameter incl. ε and skin, per rebuild)
//!   bin_size: 0.3                  # bins: bin size [m] > 0 (default: chosen per rebuild
//!                                  #   from the bounding radii, seed 002 §4)
//!   skin: 0.0                      # hgrid, linked_cells: Verlet skin [m] ≥ 0 (default:
//!                                  #   0.1 × the smallest bounding diameter incl. ε with
//!                                  #   automatic cells, 0 with given cells)
//! ```
//!
//! A key that does not apply to the `kind` is an error. *Rebuild policy* (the solver's `broad` module):
//! with skin 0 the grid is rebuilt from the bounding spheres (incl. ε) in every step (O(N));
//! with a skin δ > 0 it is built with radii grown by δ/2 and its candidate pairs are
//! reused, re-tested exactly each step, until some particle has moved more than δ/2 since
//! the last rebuild — the contacts found are the same as with δ = 0. Given cell sizes must
//! fit every particle: a particle whose bounding diameter (incl. ε and skin) exceeds the
//! largest given cell is refused before the first step, naming the particle.
//!
//! **Implicit integrators** (seed 000 Alg. 3 / Alg. 6, the solver's `implicit` module): the variant
//! decides the contact detection inside the Picard iterations — `implicit_flat` every real
//! triangle pair, `implicit_surrogate` the tree traversal from the roots in every
//! iteration, `implicit_multiscale` active sets unfolded one level per iteration — so
//! `detection.mode` is not used by them: leave it out; a written mode that contradicts the
//! variant (`flat` with `implicit_surrogate` / `implicit_multiscale`, `hierarchy` with
//! `implicit_flat`) is an error at the `mode` value. `detection.kernel` is used by all
//! integrators. `picard:` is accepted (and validated) with `explicit` too, and ignored.
//!
//! **Local time stepping** (seed 004, the solver's `integrator::lts` module):
//! `local_time_stepping` and its baseline `global_adaptive` take `lts.interval_s` (default
//! `time.dt`) as the synchronisation interval (frames are written at synchronised times)
//! and their settings from `lts:` ([`lts`]); `time.output_every` counts steps of `time.dt`
//! for them too (its spacing must be a whole number of intervals), so one `integrator:`
//! line switches a scene between `explicit` at `time.dt` and local time stepping at its
//! interval. `explicit` validates and ignores `lts:`; `lts:` with an implicit integrator,
//! and `picard:` with these two, are errors at the section's first key.
//! A step whose Picard iterations do not converge within `max_iterations` is accepted,
//! warned about on stderr (the first few) and recorded (`converged` in the statistics).
//!
//! **Limits** (module [`limits`], [`yaml`]): a scenario may have at most
//! `limits.max_particles` particles (default [`DEFAULT_MAX_PARTICLES`] = 10⁷), counted in
//! 64 bits; the generator `count` that passes the cap is refused at its `line:column`
//! before anything is allocated. The run length `end/dt` may not pass `limits.max_steps`
//! (default [`DEFAULT_MAX_STEPS`] = 10⁸), and the solver refuses a scenario whose memory
//! or output estimate exceeds `limits.memory_bytes` / `limits.disk_bytes` or what the
//! machine has, with one line naming the estimate and the limit. Every YAML file (scenario or pipeline) may have at most
//! [`yaml::MAX_YAML_BYTES`] (16 MiB) and nest collections at most [`yaml::MAX_YAML_DEPTH`]
//! (64) levels deep, both checked before parsing; a leading UTF-8 byte-order mark is
//! accepted; a key repeated in one mapping is an error at the second key (never last-wins).
//!
//! Validation happens while parsing, so that every error names the offending scalar's
//! `file:line:column` and key path: `version` is checked first (missing or ≠ 1 is refused
//! before anything else is looked at); numbers must be finite (`.nan`/`.inf` are refused);
//! `dt`, `end`, `density`, `halo.absolute_m`, `spring` and lattice `spacing` must be > 0;
//! `halo.relative` in (0, 0.5] ([`MAX_RELATIVE_HALO`]); `friction` ≥ 0; `restitution` in
//! (0, 1]; counts ≥ 1; a box needs `min < max` on every axis; shape and
//! material references must name an entry of `shapes:` / `materials:`; `picard:` values
//! out of range are reported at the value, combinations that break the rules of
//! [`PicardParams::validate`] (e.g. `relaxation` outside `[min_relaxation,
//! max_relaxation]`) at the `picard:` mapping.
#![warn(missing_docs)]

mod broadphase;
mod cells;
pub mod checkpoint;
mod contact_law;
pub mod distributed;
mod error;
mod generator;
pub mod halo;
mod implicit;
mod integrator;
pub mod limits;
mod load;
pub mod lts;
pub mod material_pairs;
mod names;
pub mod picard;
pub mod reference;
pub mod source;
mod spec;
mod surface;
mod values;
pub mod yaml;

pub use broadphase::BroadPhaseSpec;
pub use checkpoint::CheckpointSpec;
pub use contact_law::ContactLawSpec;
pub use distributed::{DistributedSpec, DEFAULT_REBALANCE_IMBALANCE};
pub use error::ScenarioError;
pub use generator::{PairsSpec, RingSpec, StackSpec};
pub use halo::{HaloSpec, DEFAULT_RELATIVE_HALO, MAX_RELATIVE_HALO};
pub use integrator::IntegratorSpec;
pub use limits::{LimitsSpec, DEFAULT_MAX_PARTICLES, DEFAULT_MAX_STEPS};
pub use load::{load_scenario, parse_scenario};
pub use lts::{ImpulseParams, LtsParams};
pub use material_pairs::MaterialPairSpec;
pub use names::{with_known, Known};
pub use picard::{
    NoConvergence, PicardAcceleration, PicardParamError, PicardParams, PicardScheme, PicardVariant,
    THETA,
};
pub use source::{
    EllipsoidSpec, GeometrySource, MeshFiles, ObstacleSpec, ShapeSource, ShapeSpec, TreeName,
};
pub use spec::{
    BoxSpec, ContactPointsSpec, DetectionModeSpec, DetectionSpec, GeneratorSpec, KernelSpec,
    LatticeSpec, MaterialSpec, ParticleSpec, Scenario, TimeSpec,
};
pub use surface::SurfaceSpec;
pub use values::short_number;

/// The only scenario format version this build reads.
pub const SCENARIO_VERSION: u32 = 1;
