//! On-disk run output: a manifest, one file per output frame and the per-step statistics.
//!
//! Layout of a run folder `OUT/`:
//! * `OUT/run.msdem` — [`RunManifest`] (shapes, obstacles, particles, time step);
//! * `OUT/frames/frame_000042.msdem` — [`Frame`] for output frame 42;
//! * `OUT/stats.msdem` — [`StatsFile`], one [`StepStats`] per step (deterministic: its
//!   `wall` fields are zero);
//! * `OUT/timings.msdem` — [`TimingsFile`], the wall-clock time per phase of every step.
//!   The only output that differs between two runs of the same inputs, so it lives apart.
//!
//! Every file starts with an 8-byte magic and a little-endian `u32` format version
//! ([`FORMAT_VERSION`]), followed by the postcard encoding of the record. Files are written
//! atomically (temporary file + rename). No `usize` is serialised.
//!
//! Conventions: positions of bodies are the world positions of their centres of mass \[m\];
//! orientation quaternions are `[w, x, y, z]`; a mesh vertex `x` (mesh frame) is at
//! `position + R(orientation)·(x − com)` in the world, with `com` from the shape record.

use serde::{Deserialize, Serialize};

/// Format version of every run-output file. 2: [`StepStats`] gained `unfolds`, `narrows`,
/// `skipped` and `iteration_checks` (version-1 files are refused with a version error).
pub const FORMAT_VERSION: u32 = 2;
/// Magic of the manifest file.
pub const MANIFEST_MAGIC: [u8; 8] = *b"MSDEMRUN";
/// Magic of a frame file.
pub const FRAME_MAGIC: [u8; 8] = *b"MSDEMFRM";
/// Magic of the statistics file.
pub const STATS_MAGIC: [u8; 8] = *b"MSDEMSTA";
/// Magic of the wall-clock timings file.
pub const TIMINGS_MAGIC: [u8; 8] = *b"MSDEMTIM";

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
}

/// Wall-clock time per phase of one step \[s\].
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

/// Errors reading or writing run-output files.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: std::path::PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file does not start with the expected magic.
    #[error("{path}: not a msdem {what} file (wrong magic)")]
    Magic {
        /// File concerned.
        path: std::path::PathBuf,
        /// Expected kind of file.
        what: &'static str,
    },
    /// The file has another format version.
    #[error("{path}: format version {found}, this build reads version {expected}")]
    Version {
        /// File concerned.
        path: std::path::PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The body could not be decoded (truncated or corrupt).
    #[error("{path}: corrupt or truncated {what} file: {detail}")]
    Corrupt {
        /// File concerned.
        path: std::path::PathBuf,
        /// Kind of file.
        what: &'static str,
        /// Decoder message.
        detail: String,
    },
}

fn kind_of(magic: &[u8; 8]) -> &'static str {
    match magic {
        m if m == &MANIFEST_MAGIC => "run manifest",
        m if m == &FRAME_MAGIC => "frame",
        m if m == &STATS_MAGIC => "statistics",
        m if m == &TIMINGS_MAGIC => "timings",
        _ => "run output",
    }
}

/// Encodes `magic + version + postcard(record)`.
pub fn encode<T: Serialize>(magic: &[u8; 8], record: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    // Encoding plain structs into a Vec cannot fail.
    let body = postcard::to_allocvec(record).unwrap_or_default();
    out.extend_from_slice(&body);
    out
}

/// Decodes bytes written by [`encode`]; `path` only names the file in errors.
pub fn decode<T: for<'de> Deserialize<'de>>(
    path: &std::path::Path,
    magic: &[u8; 8],
    bytes: &[u8],
) -> Result<T, FrameError> {
    let what = kind_of(magic);
    if bytes.len() < 12 || &bytes[..8] != magic {
        return Err(FrameError::Magic {
            path: path.to_path_buf(),
            what,
        });
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != FORMAT_VERSION {
        return Err(FrameError::Version {
            path: path.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let (value, rest) =
        postcard::take_from_bytes::<T>(&bytes[12..]).map_err(|e| FrameError::Corrupt {
            path: path.to_path_buf(),
            what,
            detail: e.to_string(),
        })?;
    if !rest.is_empty() {
        return Err(FrameError::Corrupt {
            path: path.to_path_buf(),
            what,
            detail: format!("{} trailing bytes", rest.len()),
        });
    }
    Ok(value)
}

/// Writes a record atomically (temporary file in the same folder, then rename).
pub fn write_record<T: Serialize>(
    path: &std::path::Path,
    magic: &[u8; 8],
    record: &T,
) -> Result<(), FrameError> {
    use std::io::Write;
    let io = |source| FrameError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(&encode(magic, record)).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Reads a record written by [`write_record`], checking magic and version first.
pub fn read_record<T: for<'de> Deserialize<'de>>(
    path: &std::path::Path,
    magic: &[u8; 8],
) -> Result<T, FrameError> {
    let bytes = std::fs::read(path).map_err(|source| FrameError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(path, magic, &bytes)
}

/// Path of output frame `index` inside a run folder.
pub fn frame_path(run: &std::path::Path, index: u32) -> std::path::PathBuf {
    run.join("frames").join(format!("frame_{index:06}.msdem"))
}

/// Path of the manifest inside a run folder.
pub fn manifest_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("run.msdem")
}

/// Path of the wall-clock timings file inside a run folder.
pub fn timings_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("timings.msdem")
}

/// Path of the statistics file inside a run folder.
pub fn stats_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("stats.msdem")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Frame {
        Frame {
            step: 42,
            time: 0.0042,
            bodies: vec![BodyState {
                position: [1.0, 2.0, 3.0],
                orientation: [1.0, 0.0, 0.0, 0.0],
                velocity: [0.5, 0.0, -1.0],
                angular_velocity: [0.0, 2.0, 0.0],
            }],
            contacts: vec![ContactRecord {
                a: 0,
                b: Other::Obstacle(1),
                point: [1.0, 2.0, 2.9],
                normal: [0.0, 0.0, 1.0],
                force: [0.0, 0.1, 9.81],
            }],
        }
    }

    #[test]
    fn frame_round_trips_byte_identically() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.msdem");
        write_record(&p, &FRAME_MAGIC, &sample()).unwrap();
        let back: Frame = read_record(&p, &FRAME_MAGIC).unwrap();
        assert_eq!(back, sample());
        let first = std::fs::read(&p).unwrap();
        write_record(&p, &FRAME_MAGIC, &back).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), first);
    }

    #[test]
    fn wrong_magic_version_and_truncation_are_refused() {
        let p = std::path::Path::new("x.msdem");
        let good = encode(&FRAME_MAGIC, &sample());
        let e = decode::<Frame>(p, &MANIFEST_MAGIC, &good).unwrap_err();
        assert!(e.to_string().contains("wrong magic"), "{e}");
        let mut v2 = good.clone();
        v2[8] = 9;
        let e = decode::<Frame>(p, &FRAME_MAGIC, &v2).unwrap_err();
        assert!(e.to_string().contains("format version 9"), "{e}");
        let e = decode::<Frame>(p, &FRAME_MAGIC, &good[..good.len() - 3]).unwrap_err();
        assert!(e.to_string().contains("corrupt or truncated"), "{e}");
    }
}
