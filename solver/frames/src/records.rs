//! The record types of the run output: the manifest ([`RunManifest`] with its shape,
//! obstacle and particle records), the frames ([`Frame`] with body states and contacts),
//! the statistics ([`StatsFile`] of [`StepStats`]) and the timings ([`TimingsFile`] of
//! [`PhaseTimes`]).
//!
//! The field order of every type is part of the file format (postcard encodes fields in
//! declaration order, enum variants by index): reordering, adding or removing a field
//! needs a new [`FORMAT_VERSION`](crate::FORMAT_VERSION).

use serde::{Deserialize, Serialize};

/// A particle shape (shared by all particles that use it: geometry is instanced).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeRecord {
    /// Name from the scenario.
    pub name: String,
    /// Mesh file, relative to the run folder.
    pub mesh: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// Centre of mass in the mesh frame \[m\].
    pub com: [f64; 3],
    /// Number of triangles.
    pub triangles: u32,
    /// For an analytic ellipsoid shape (seed 002): its semi-axes along the shape's axes
    /// \[m\], centred at the shape's origin; `mesh` is then empty and `triangles` 0.
    pub ellipsoid: Option<[f64; 3]>,
}

/// A static obstacle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObstacleRecord {
    /// Name from the scenario.
    pub name: String,
    /// Mesh file, relative to the run folder.
    pub mesh: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// World translation applied to the mesh \[m\].
    pub translation: [f64; 3],
    /// World rotation applied to the mesh, `[w, x, y, z]`.
    pub rotation: [f64; 4],
}

/// A particle's constant properties.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParticleRecord {
    /// Index into [`RunManifest::shapes`].
    pub shape: u32,
    /// Mass \[kg\].
    pub mass: f64,
    /// Bounding radius about the centre of mass \[m\].
    pub radius: f64,
    /// Halo width ε \[m\].
    pub epsilon: f64,
    /// Index into the scenario's materials, in alphabetical order of their names (the
    /// order of the scenario's `materials:` keys once sorted).
    pub material: u32,
    /// Inertia tensor about the centre of mass in the shape's (body) axes \[kg·m²\],
    /// row-major; in the world it is `R·I·Rᵀ` with `R = R(orientation)`.
    pub inertia: [[f64; 3]; 3],
}

/// Run manifest (`run.msdem`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// Scenario name.
    pub name: String,
    /// Time step \[s\].
    pub dt: f64,
    /// Steps between two output frames.
    pub output_every: u32,
    /// Particle shapes.
    pub shapes: Vec<ShapeRecord>,
    /// Static obstacles.
    pub obstacles: Vec<ObstacleRecord>,
    /// Particles; the particle id is the index.
    pub particles: Vec<ParticleRecord>,
    /// Number of levels reported in [`StepStats::checks_per_level`].
    pub levels: u32,
}

/// Kinematic state of one particle.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// World position of the centre of mass \[m\].
    pub position: [f64; 3],
    /// Orientation `[w, x, y, z]` (unit quaternion).
    pub orientation: [f64; 4],
    /// Linear velocity \[m/s\].
    pub velocity: [f64; 3],
    /// Angular velocity, world frame \[rad/s\].
    pub angular_velocity: [f64; 3],
}

/// Which body a contact's second side is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Other {
    /// Another particle (id).
    Particle(u32),
    /// A static obstacle (index into [`RunManifest::obstacles`]).
    Obstacle(u32),
}

/// One merged contact point of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactRecord {
    /// First particle id.
    pub a: u32,
    /// The other body.
    pub b: Other,
    /// Contact point, world \[m\].
    pub point: [f64; 3],
    /// Unit normal pointing from `b` towards `a`.
    pub normal: [f64; 3],
    /// Total force on `a` at this point (normal + tangential) \[N\].
    pub force: [f64; 3],
}

/// Contact load on one particle in a frame: the sums over the frame's contacts
/// ([`Frame::contacts`]) that involve it, as the solver applied them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BodyLoad {
    /// Sum of the contact forces on the particle, world frame \[N\] (gravity excluded).
    pub force: [f64; 3],
    /// Sum of the contact torques about the particle's centre of mass, world frame
    /// \[N·m\]; the lever arms are taken from the centre of mass where the solver
    /// evaluated the forces (the start of the step for explicit Euler, the accepted
    /// state for implicit Euler).
    pub torque: [f64; 3],
    /// Number of the frame's contact points that involve the particle.
    pub contacts: u32,
}

/// One output frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Step number.
    pub step: u64,
    /// Simulated time \[s\].
    pub time: f64,
    /// Particle states, indexed by particle id.
    pub bodies: Vec<BodyState>,
    /// Contacts of this step.
    pub contacts: Vec<ContactRecord>,
    /// Contact load of every particle, indexed by particle id (one entry per body; all
    /// zero in frame 0, which has no contacts).
    pub loads: Vec<BodyLoad>,
}

/// Wall-clock time per phase of one step \[s\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// Broad phase \[s\].
    pub broad: f64,
    /// Narrow phase (tree traversal + triangle kernels) \[s\].
    pub narrow: f64,
    /// Contact merging and forces \[s\].
    pub forces: f64,
    /// Integration \[s\].
    pub integrate: f64,
}

/// Statistics of one time step. The default is an empty, converged step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// Step number.
    pub step: u64,
    /// Simulated time at the end of the step \[s\].
    pub time: f64,
    /// Triangle-pair checks per tree level (index = level of the deeper of the two nodes;
    /// the last entry counts fine–fine checks).
    pub checks_per_level: Vec<u64>,
    /// Checks that needed the exact fallback (hybrid kernel).
    pub fallbacks: u64,
    /// Candidate body pairs from the broad phase.
    pub candidate_pairs: u32,
    /// Merged contact points.
    pub contacts: u32,
    /// Kinetic energy (translational + rotational) \[J\].
    pub kinetic_energy: f64,
    /// Potential energy in the gravity field \[J\] (0 without gravity).
    pub potential_energy: f64,
    /// Total linear momentum \[kg·m/s\].
    pub linear_momentum: [f64; 3],
    /// Total angular momentum about the origin \[kg·m²/s\].
    pub angular_momentum: [f64; 3],
    /// Implicit schemes: Picard iterations of this step (1 for explicit).
    pub iterations: u32,
    /// Implicit schemes: false when the Picard iterations ran out of
    /// `picard.max_iterations` before converging and the last guess was accepted (always
    /// true for explicit steps).
    pub converged: bool,
    /// Implicit schemes: steps of a reduced Δt this step was split into because its
    /// iterations did not converge at the full Δt (`picard.on_no_convergence: substep`);
    /// 0 when it converged at once.
    pub substeps: u32,
    /// Multiscale Picard (seed 000 Alg. 6): active pairs widened by one level, summed over
    /// the step's iterations (0 otherwise).
    pub unfolds: u32,
    /// Multiscale Picard: sibling groups narrowed back to their parent pair (0 otherwise).
    pub narrows: u32,
    /// Multiscale Picard: active pairs whose separation certificate decided their outcome
    /// without a kernel call, summed over the iterations; not part of `checks_per_level`.
    pub skipped: u64,
    /// Implicit schemes: the checks per level (as `checks_per_level`) of every Picard
    /// iteration, in order (seed 000 Fig. 4); empty for explicit steps.
    pub iteration_checks: Vec<Vec<u64>>,
    /// Wall time per phase.
    pub wall: PhaseTimes,
}

impl Default for StepStats {
    fn default() -> Self {
        StepStats {
            step: 0,
            time: 0.0,
            checks_per_level: Vec::new(),
            fallbacks: 0,
            candidate_pairs: 0,
            contacts: 0,
            kinetic_energy: 0.0,
            potential_energy: 0.0,
            linear_momentum: [0.0; 3],
            angular_momentum: [0.0; 3],
            iterations: 1,
            converged: true,
            substeps: 0,
            unfolds: 0,
            narrows: 0,
            skipped: 0,
            iteration_checks: Vec::new(),
            wall: PhaseTimes::default(),
        }
    }
}

/// Statistics of a whole run (`stats.msdem`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatsFile {
    /// One entry per completed step.
    pub steps: Vec<StepStats>,
}

/// Wall-clock timings of a whole run (`timings.msdem`), one entry per step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimingsFile {
    /// Wall time per phase of each completed step, in step order.
    pub steps: Vec<PhaseTimes>,
}
