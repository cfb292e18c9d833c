//! Checkpoints of a run (issue 16): everything the next step depends on, written at step
//! boundaries so that a killed run resumed from one ([`super::resume`]) writes the same
//! frames and statistics, byte for byte, as an uninterrupted run.
//!
//! A checkpoint holds the [`State`] (bodies bit for bit, time, step), the number of frames
//! written, the marks of the streamed statistics files (their written length and the
//! steps buffered since: [`super::streams::Marks`], so a checkpoint stays small however
//! long the run), the detector's kept active sets and the
//! integrator's carried state ([`crate::integrator::Integrator::snapshot`]), and an
//! identity hash of the run (manifest, parameters, step count) so that a checkpoint of
//! another run is refused. It is a run-output record of `msdem-frames` (magic
//! [`CHECKPOINT_MAGIC`], format version, SHA-256 of the body, written atomically);
//! the previous one is kept as `checkpoint.prev.msdem`, the fallback when the latest is
//! unreadable. Wall times never decide what a checkpoint contains, only when one is taken.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::streams::Marks;
use crate::error::SolverError;
use crate::frames::{
    self, checkpoint_path, previous_checkpoint_path, RunManifest, CHECKPOINT_MAGIC,
};
use crate::params::Params;
use crate::scenario::CheckpointSpec;
use crate::state::{Body, State};

/// Default wall time between two checkpoints \[s\].
pub const DEFAULT_EVERY_WALL_S: f64 = 60.0;

/// When to take a checkpoint: after every `every_steps` steps and/or once `every_wall_s`
/// seconds of wall time passed since the last one (both at step boundaries).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cadence {
    /// Steps between two checkpoints; 0 = no step cadence.
    pub every_steps: u64,
    /// Wall time between two checkpoints \[s\]; 0 or infinite = no wall-time cadence.
    pub every_wall_s: f64,
}

impl Default for Cadence {
    fn default() -> Self {
        Cadence {
            every_steps: 0,
            every_wall_s: DEFAULT_EVERY_WALL_S,
        }
    }
}

impl Cadence {
    /// No checkpoints at all.
    pub const NEVER: Cadence = Cadence {
        every_steps: 0,
        every_wall_s: 0.0,
    };

    /// Whether a checkpoint is due after step `step`, `since_s` seconds after the last.
    pub fn due(&self, step: u64, since_s: f64) -> bool {
        let by_steps = self.every_steps > 0 && step % self.every_steps == 0;
        let by_wall = self.every_wall_s > 0.0
            && self.every_wall_s.is_finite()
            && since_s >= self.every_wall_s;
        by_steps || by_wall
    }
}

/// Cadence values given on the solver's command line (`--checkpoint-every-steps`,
/// `--checkpoint-every-wall-s`); `None`: not given. They win over the scenario's
/// `checkpoint:` section ([`Cadence::with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CadenceFlags {
    /// `--checkpoint-every-steps N`.
    pub every_steps: Option<u64>,
    /// `--checkpoint-every-wall-s T` \[s\].
    pub every_wall_s: Option<f64>,
}

impl Cadence {
    /// This cadence with, field by field, the scenario's `checkpoint:` value put over it and
    /// the command line's over that: flag, else scenario key, else `self`.
    pub fn with(self, scenario: &CheckpointSpec, flags: &CadenceFlags) -> Cadence {
        Cadence {
            every_steps: flags
                .every_steps
                .or(scenario.every_steps)
                .unwrap_or(self.every_steps),
            every_wall_s: flags
                .every_wall_s
                .or(scenario.every_wall_s)
                .unwrap_or(self.every_wall_s),
        }
    }
}

/// A checkpoint record (the body of `checkpoint.msdem`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`identity`] of the run that wrote it.
    pub identity: [u8; 32],
    /// The particles, bit for bit.
    pub bodies: Vec<Body>,
    /// Simulated time \[s\].
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// Frames written (frame indices `0..frames`).
    pub frames: u32,
    /// Where the streamed statistics files stood (steps `1..=step`).
    pub streams: Marks,
    /// [`crate::detect::Detector::snapshot`].
    pub detector: Vec<u8>,
    /// [`crate::integrator::Integrator::snapshot`].
    pub integrator: Vec<u8>,
}

impl Checkpoint {
    /// The state to continue from.
    pub fn state(&self) -> State {
        State {
            bodies: self.bodies.clone(),
            time: self.time,
            step: self.step,
        }
    }
}

impl Checkpoint {
    /// Checks a checkpoint read from `path` against the run it resumes, whose initial
    /// state is `initial` (`steps` steps, a frame every `every`): the same particles with
    /// the same constant properties (shape, material, mass, inertia, radius, ε; these never
    /// change during a run), a finite state, a step and a frame count the run can have
    /// reached. The checksum and the identity catch accidents; this catches a file made
    /// to pass both (issue 16: a material index out of range panicked in the contact law).
    pub fn check_fits(
        &self,
        path: &Path,
        initial: &[Body],
        steps: u64,
        every: u64,
    ) -> Result<(), SolverError> {
        let bad = |message: String| SolverError::Output {
            path: path.to_path_buf(),
            message: format!("{message}; delete it or run without --restart"),
        };
        if self.bodies.len() != initial.len() {
            return Err(bad(format!(
                "checkpoint of {} particles for a run of {}",
                self.bodies.len(),
                initial.len()
            )));
        }
        for (i, (b, a)) in self.bodies.iter().zip(initial).enumerate() {
            let same = b.shape == a.shape
                && b.material == a.material
                && b.mass.to_bits() == a.mass.to_bits()
                && b.epsilon.to_bits() == a.epsilon.to_bits()
                && b.radius.to_bits() == a.radius.to_bits()
                && b.inertia
                    .iter()
                    .zip(a.inertia.iter())
                    .all(|(x, y)| x.to_bits() == y.to_bits())
                && b.inv_inertia
                    .iter()
                    .zip(a.inv_inertia.iter())
                    .all(|(x, y)| x.to_bits() == y.to_bits());
            if !same {
                return Err(bad(format!(
                    "particle {i}: shape, material, mass, inertia, radius or ε differ from the run's"
                )));
            }
        }
        if let Some((particle, what)) = crate::motion::first_non_finite(&self.bodies) {
            return Err(bad(format!("particle {particle}: non-finite {what}")));
        }
        let frames_max = self.step / every.max(1) + 1;
        if self.step > steps || !self.time.is_finite() {
            return Err(bad(format!(
                "step {} (t = {:e} s) is not a step of this run (0 to {steps})",
                self.step, self.time
            )));
        }
        if self.frames == 0 || u64::from(self.frames) > frames_max {
            return Err(bad(format!(
                "{} frames written by step {} (at most {frames_max})",
                self.frames, self.step
            )));
        }
        Ok(())
    }
}

/// A [`Checkpoint`] by reference, for writing (same fields in the same order, so the same
/// encoding).
#[derive(Serialize)]
pub struct CheckpointRef<'a> {
    /// [`Checkpoint::identity`].
    pub identity: &'a [u8; 32],
    /// [`Checkpoint::bodies`].
    pub bodies: &'a [Body],
    /// [`Checkpoint::time`] \[s\].
    pub time: f64,
    /// [`Checkpoint::step`].
    pub step: u64,
    /// [`Checkpoint::frames`].
    pub frames: u32,
    /// [`Checkpoint::streams`].
    pub streams: &'a Marks,
    /// [`Checkpoint::detector`].
    pub detector: &'a [u8],
    /// [`Checkpoint::integrator`].
    pub integrator: &'a [u8],
}

/// Identity of a run: SHA-256 of its manifest (meshes' hashes, particles, time step), its
/// parameters (every setting, numbers in shortest round-trip form) and its step count.
pub fn identity(manifest: &RunManifest, params: &Params, steps: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(frames::encode(&frames::MANIFEST_MAGIC, manifest));
    h.update(format!("{params:?}").as_bytes());
    h.update(steps.to_le_bytes());
    h.finalize().into()
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SolverError + '_ {
    move |source| SolverError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `checkpoint` into the run folder `out` atomically; the latest one so far
/// becomes the previous one.
pub fn write(out: &Path, checkpoint: &CheckpointRef) -> Result<(), SolverError> {
    let (latest, previous) = (checkpoint_path(out), previous_checkpoint_path(out));
    if latest.is_file() {
        std::fs::rename(&latest, &previous).map_err(io(&latest))?;
    }
    frames::write_record(&latest, &CHECKPOINT_MAGIC, checkpoint)?;
    Ok(())
}

/// Removes the checkpoints of the run folder `out` (a finished or a new run).
pub fn remove(out: &Path) -> Result<(), SolverError> {
    for file in [checkpoint_path(out), previous_checkpoint_path(out)] {
        if file.is_file() {
            std::fs::remove_file(&file).map_err(io(&file))?;
        }
    }
    Ok(())
}

/// The checkpoint to resume from in `out`: the latest, or the previous when the latest is
/// missing or unreadable (a warning on stderr names it); `None` when there is none. A
/// checkpoint that cannot be read, or was written by another run (`identity`), is an
/// error naming the file.
pub fn load(out: &Path, identity: &[u8; 32]) -> Result<Option<Checkpoint>, SolverError> {
    let (latest, previous) = (checkpoint_path(out), previous_checkpoint_path(out));
    let read = |path: &Path| -> Result<Checkpoint, SolverError> {
        let c: Checkpoint = frames::read_record(path, &CHECKPOINT_MAGIC)?;
        if &c.identity != identity {
            return Err(SolverError::Output {
                path: path.to_path_buf(),
                message: "checkpoint of another run (scenario, meshes, trees or settings \
                          differ); delete it or run without --restart"
                    .to_owned(),
            });
        }
        Ok(c)
    };
    match (latest.is_file(), previous.is_file()) {
        (false, false) => Ok(None),
        (false, true) => read(&previous).map(Some),
        (true, false) => read(&latest).map(Some),
        (true, true) => match read(&latest) {
            Ok(c) => Ok(Some(c)),
            Err(e) => match read(&previous) {
                Ok(c) => {
                    eprintln!("warning: {e}; resuming from the previous checkpoint");
                    Ok(Some(c))
                }
                Err(_) => Err(e),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cadence_by_steps_and_wall_time() {
        let c = Cadence {
            every_steps: 10,
            every_wall_s: 0.0,
        };
        assert!(c.due(20, 0.0) && !c.due(21, 1e9));
        let w = Cadence {
            every_steps: 0,
            every_wall_s: 2.0,
        };
        assert!(!w.due(7, 1.9) && w.due(7, 2.0));
        assert!(!Cadence::NEVER.due(10, 1e9));
    }

    #[test]
    fn flags_win_over_the_scenario_which_wins_over_the_default() {
        let spec = CheckpointSpec {
            every_steps: Some(50),
            every_wall_s: None,
        };
        let none = CadenceFlags::default();
        let c = Cadence::default().with(&spec, &none);
        assert_eq!(c.every_steps, 50);
        assert_eq!(c.every_wall_s, DEFAULT_EVERY_WALL_S);
        let flags = CadenceFlags {
            every_steps: Some(0),
            every_wall_s: Some(2.5),
        };
        assert_eq!(
            Cadence::default().with(&spec, &flags),
            Cadence {
                every_steps: 0,
                every_wall_s: 2.5
            }
        );
        assert_eq!(
            Cadence::NEVER.with(&CheckpointSpec::default(), &none),
            Cadence::NEVER
        );
    }
}
