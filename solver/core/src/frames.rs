//! On-disk run output: a manifest, one file per output frame and the per-step statistics.
//!
//! Layout of a run folder `OUT/`:
//! * `OUT/run.msdem` — [`RunManifest`] (shapes, obstacles, particles, time step);
//! * `OUT/frames/frame_000042.msdem` — [`Frame`] for output frame 42;
//! * `OUT/stats.msdem` — [`StatsFile`], one [`StepStats`] per step.
//!
//! Every file starts with an 8-byte magic and a little-endian `u32` format version
//! ([`FORMAT_VERSION`]), followed by the postcard encoding of the record. Files are written
//! atomically (temporary file + rename). No `usize` is serialised.
//!
//! Conventions: positions of bodies are the world positions of their centres of mass [m];
//! orientation quaternions are `[w, x, y, z]`; a mesh vertex `x` (mesh frame) is at
//! `position + R(orientation)·(x − com)` in the world, with `com` from the shape record.

use serde::{Deserialize, Serialize};

/// Format version of every run-output file.
pub const FORMAT_VERSION: u32 = 1;
/// Magic of the manifest file.
pub const MANIFEST_MAGIC: [u8; 8] = *b"MSDEMRUN";
/// Magic of a frame file.
pub const FRAME_MAGIC: [u8; 8] = *b"MSDEMFRM";
/// Magic of the statistics file.
pub const STATS_MAGIC: [u8; 8] = *b"MSDEMSTA";

/// A particle shape (shared by all particles that use it: geometry is instanced).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeRecord {
    /// Name from the scenario.
    pub name: String,
    /// Mesh file, relative to the run folder.
    pub mesh: String,
    /// SHA-256 of the mesh file's bytes.
    pub mesh_hash: [u8; 32],
    /// Centre of mass in the mesh frame [m].
    pub com: [f64; 3],
    /// Number of triangles.
    pub triangles: u32,
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
    /// World translation applied to the mesh [m].
    pub translation: [f64; 3],
    /// World rotation applied to the mesh, `[w, x, y, z]`.
    pub rotation: [f64; 4],
}

/// A particle's constant properties.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParticleRecord {
    /// Index into [`RunManifest::shapes`].
    pub shape: u32,
    /// Mass [kg].
    pub mass: f64,
    /// Bounding radius about the centre of mass [m].
    pub radius: f64,
    /// Halo width ε [m].
    pub epsilon: f64,
}

/// Run manifest (`run.msdem`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// Scenario name.
    pub name: String,
    /// Time step [s].
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
    /// World position of the centre of mass [m].
    pub position: [f64; 3],
    /// Orientation `[w, x, y, z]` (unit quaternion).
    pub orientation: [f64; 4],
    /// Linear velocity [m/s].
    pub velocity: [f64; 3],
    /// Angular velocity, world frame [rad/s].
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
    /// Contact point, world [m].
    pub point: [f64; 3],
    /// Unit normal pointing from `b` towards `a`.
    pub normal: [f64; 3],
    /// Total force on `a` at this point (normal + tangential) [N].
    pub force: [f64; 3],
}

/// One output frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Step number.
    pub step: u64,
    /// Simulated time [s].
    pub time: f64,
    /// Particle states, indexed by particle id.
    pub bodies: Vec<BodyState>,
    /// Contacts of this step.
    pub contacts: Vec<ContactRecord>,
}

/// Wall-clock time per phase of one step [s].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// Broad phase.
    pub broad: f64,
    /// Narrow phase (tree traversal + triangle kernels).
    pub narrow: f64,
    /// Contact merging and forces.
    pub forces: f64,
    /// Integration.
    pub integrate: f64,
}

/// Statistics of one time step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// Step number.
    pub step: u64,
    /// Simulated time at the end of the step [s].
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
    /// Kinetic energy (translational + rotational) [J].
    pub kinetic_energy: f64,
    /// Potential energy in the gravity field [J] (0 without gravity).
    pub potential_energy: f64,
    /// Total linear momentum [kg·m/s].
    pub linear_momentum: [f64; 3],
    /// Total angular momentum about the origin [kg·m²/s].
    pub angular_momentum: [f64; 3],
    /// Implicit schemes: Picard iterations of this step (1 for explicit).
    pub iterations: u32,
    /// Wall time per phase.
    pub wall: PhaseTimes,
}

/// Statistics of a whole run (`stats.msdem`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatsFile {
    /// One entry per completed step.
    pub steps: Vec<StepStats>,
}
