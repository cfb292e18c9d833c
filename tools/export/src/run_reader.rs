//! Reading a run folder written by the solver (format: crate `msdem-frames`,
//! `solver/frames`): the manifest, the meshes it names (hash-checked), the list of frames,
//! single frames and statistics.

use std::path::{Path, PathBuf};

use msdem_frames::lts::{lts_stats_path, lts_timings_path, LtsStatsFile, LtsTimingsFile};
use msdem_frames::{
    frame_path, manifest_path, read_record, stats_path, timings_path, Frame, FrameError, Other,
    RunManifest, StatsFile, TimingsFile, FRAME_MAGIC, MANIFEST_MAGIC,
};
use msdem_mesh::TriMesh;

use crate::error::{hex, ExportError};
use crate::lts_run::LtsRun;
use crate::mesh_io::load_mesh;

/// A validated run folder: manifest, meshes (in the mesh frame) and frame indices.
#[derive(Clone, Debug)]
pub struct RunFolder {
    /// The run folder.
    pub root: PathBuf,
    /// The manifest (`run.msdem`).
    pub manifest: RunManifest,
    /// One mesh per [`RunManifest::shapes`] entry, mesh frame \[m\].
    pub shape_meshes: Vec<TriMesh>,
    /// One mesh per [`RunManifest::obstacles`] entry, mesh frame \[m\].
    pub obstacle_meshes: Vec<TriMesh>,
    /// Indices of the frame files present, ascending.
    pub frames: Vec<u32>,
}

impl RunFolder {
    /// Opens a run folder: reads the manifest, loads every mesh it names (paths relative to
    /// the run folder) and checks its SHA-256 against the manifest, lists the frames.
    pub fn open(root: &Path) -> Result<Self, ExportError> {
        if !root.is_dir() {
            let path = root.to_path_buf();
            return Err(if root.exists() {
                ExportError::NotARunFolder { path }
            } else {
                ExportError::MissingRun { path }
            });
        }
        let mpath = manifest_path(root);
        if !mpath.exists() {
            return Err(ExportError::NoManifest {
                path: root.to_path_buf(),
            });
        }
        let manifest: RunManifest = read_record(&mpath, &MANIFEST_MAGIC)?;
        check_manifest(&mpath, &manifest)?;
        let load = |rel: &str, hash: &[u8; 32]| -> Result<TriMesh, ExportError> {
            let path = root.join(rel);
            let (mesh, found) = load_mesh(&path)?;
            if &found != hash {
                return Err(ExportError::MeshHash {
                    path,
                    expected: hex(hash),
                    found: hex(&found),
                });
            }
            Ok(mesh)
        };
        let shape_meshes = manifest
            .shapes
            .iter()
            .map(|s| match s.ellipsoid {
                Some(radii) => ellipsoid_mesh(&mpath, &s.name, radii),
                None => load(&s.mesh, &s.mesh_hash),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let obstacle_meshes = manifest
            .obstacles
            .iter()
            .map(|o| load(&o.mesh, &o.mesh_hash))
            .collect::<Result<Vec<_>, _>>()?;
        let frames = list_frames(root)?;
        Ok(RunFolder {
            root: root.to_path_buf(),
            manifest,
            shape_meshes,
            obstacle_meshes,
            frames,
        })
    }

    /// Path of frame `index`.
    pub fn frame_path(&self, index: u32) -> PathBuf {
        frame_path(&self.root, index)
    }

    /// Reads frame `index` and checks it against the manifest (body count, contact ids,
    /// finite values, non-zero quaternions).
    pub fn read_frame(&self, index: u32) -> Result<Frame, ExportError> {
        let path = self.frame_path(index);
        let frame: Frame = read_record(&path, &FRAME_MAGIC)?;
        check_frame(&path, &self.manifest, &frame)?;
        Ok(frame)
    }

    /// Reads the per-step statistics (`stats.msdem`) and, when the run recorded them, puts
    /// the wall-clock times of `timings.msdem` back into each step's `wall` field.
    pub fn read_stats(&self) -> Result<StatsFile, ExportError> {
        self.read_stats_if_present()?.ok_or_else(|| {
            let path = stats_path(&self.root);
            ExportError::io(&path)(std::io::ErrorKind::NotFound.into())
        })
    }

    /// As [`RunFolder::read_stats`], but `None` when `stats.msdem` does not exist (a run
    /// killed before its first chunk of statistics). A statistics file that exists but
    /// cannot be read is still an error; see [`RunFolder::read_stats_complete`].
    pub fn read_stats_if_present(&self) -> Result<Option<StatsFile>, ExportError> {
        let path = stats_path(&self.root);
        let mut stats = match StatsFile::read(&path) {
            Err(FrameError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None)
            }
            other => other?,
        };
        let timings_file = timings_path(&self.root);
        if timings_file.is_file() {
            let timings = TimingsFile::read(&timings_file)?;
            for (step, wall) in stats.steps.iter_mut().zip(timings.steps) {
                step.wall = wall;
            }
        }
        Ok(Some(stats))
    }

    /// As [`RunFolder::read_stats_if_present`], but a last chunk cut by a killed run
    /// (`stats.msdem` or `timings.msdem` are streamed in chunks) leaves its steps out and
    /// is returned as a warning line instead of an error.
    pub fn read_stats_complete(&self) -> Result<Option<(StatsFile, Option<String>)>, ExportError> {
        let path = stats_path(&self.root);
        let (mut stats, cut) = match StatsFile::read_complete(&path) {
            Err(FrameError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None)
            }
            other => other?,
        };
        let mut warning = cut.map(|e| {
            format!(
                "{e} (the run was killed while writing it?): plots show the {} complete steps",
                stats.steps.len()
            )
        });
        let timings_file = timings_path(&self.root);
        if timings_file.is_file() {
            let (timings, cut) = TimingsFile::read_complete(&timings_file)?;
            if warning.is_none() {
                warning = cut.map(|e| format!("{e}: wall times of later steps are left out"));
            }
            for (step, wall) in stats.steps.iter_mut().zip(timings.steps) {
                step.wall = wall;
            }
        }
        Ok(Some((stats, warning)))
    }

    /// The local time stepping statistics (`lts.msdem`, and the phase times of
    /// `lts_timings.msdem` when present), `None` for runs of other integrators (no
    /// `lts.msdem`). A file that exists but cannot be read is an error.
    pub fn read_lts_if_present(&self) -> Result<Option<LtsRun>, ExportError> {
        let path = lts_stats_path(&self.root);
        let stats: LtsStatsFile = match LtsStatsFile::read(&path) {
            Err(FrameError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None)
            }
            other => other?,
        };
        let timings_file = lts_timings_path(&self.root);
        let timings = if timings_file.is_file() {
            LtsTimingsFile::read(&timings_file)?.steps
        } else {
            Vec::new()
        };
        Ok(Some(LtsRun {
            steps: stats.steps,
            timings,
        }))
    }
}

fn check_manifest(path: &Path, m: &RunManifest) -> Result<(), ExportError> {
    for (i, p) in m.particles.iter().enumerate() {
        let finite = [p.mass, p.radius, p.epsilon]
            .iter()
            .chain(p.inertia.iter().flatten())
            .all(|v| v.is_finite());
        if !finite {
            return Err(ExportError::Inconsistent {
                path: path.to_path_buf(),
                detail: format!("particle {i} has a non-finite mass, radius or inertia"),
            });
        }
        if p.shape as usize >= m.shapes.len() {
            return Err(ExportError::Inconsistent {
                path: path.to_path_buf(),
                detail: format!(
                    "particle {i} uses shape {} but the manifest has {} shapes",
                    p.shape,
                    m.shapes.len()
                ),
            });
        }
    }
    for (i, o) in m.obstacles.iter().enumerate() {
        let finite = o
            .translation
            .iter()
            .chain(&o.rotation)
            .all(|v| v.is_finite());
        if !finite || o.rotation.iter().all(|v| *v == 0.0) {
            return Err(ExportError::Inconsistent {
                path: path.to_path_buf(),
                detail: format!("obstacle {i} ({}) has an invalid pose", o.name),
            });
        }
    }
    Ok(())
}

fn check_frame(path: &Path, m: &RunManifest, f: &Frame) -> Result<(), ExportError> {
    let bad = |detail: String| ExportError::Inconsistent {
        path: path.to_path_buf(),
        detail,
    };
    if f.bodies.len() != m.particles.len() {
        return Err(bad(format!(
            "{} bodies, the manifest has {} particles",
            f.bodies.len(),
            m.particles.len()
        )));
    }
    if !f.time.is_finite() {
        return Err(bad(format!("time is {}", f.time)));
    }
    for (i, b) in f.bodies.iter().enumerate() {
        let finite = b
            .position
            .iter()
            .chain(&b.orientation)
            .chain(&b.velocity)
            .chain(&b.angular_velocity)
            .all(|v| v.is_finite());
        if !finite {
            return Err(bad(format!("body {i} has a non-finite state")));
        }
        if b.orientation.iter().all(|v| *v == 0.0) {
            return Err(bad(format!("body {i} has a zero orientation quaternion")));
        }
    }
    if f.loads.len() != f.bodies.len() {
        return Err(bad(format!(
            "{} particle loads for {} bodies",
            f.loads.len(),
            f.bodies.len()
        )));
    }
    for (i, l) in f.loads.iter().enumerate() {
        if !l.force.iter().chain(&l.torque).all(|v| v.is_finite()) {
            return Err(bad(format!("load of body {i} is not finite")));
        }
    }
    for (i, c) in f.contacts.iter().enumerate() {
        let (other_ok, other) = match c.b {
            Other::Particle(j) => ((j as usize) < m.particles.len(), format!("particle {j}")),
            Other::Obstacle(j) => ((j as usize) < m.obstacles.len(), format!("obstacle {j}")),
        };
        if (c.a as usize) >= m.particles.len() || !other_ok {
            return Err(bad(format!(
                "contact {i} refers to particle {} and {other}, which do not exist",
                c.a
            )));
        }
        let finite = c
            .point
            .iter()
            .chain(&c.normal)
            .chain(&c.force)
            .all(|v| v.is_finite());
        if !finite {
            return Err(bad(format!("contact {i} has a non-finite value")));
        }
    }
    Ok(())
}

/// Lists `RUN/frames/frame_NNNNNN.msdem` (other files are ignored), ascending.
fn list_frames(root: &Path) -> Result<Vec<u32>, ExportError> {
    let dir = root.join("frames");
    let entries = std::fs::read_dir(&dir).map_err(ExportError::io(&dir))?;
    let mut frames = Vec::new();
    for entry in entries {
        let entry = entry.map_err(ExportError::io(&dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let index = name
            .strip_prefix("frame_")
            .and_then(|s| s.strip_suffix(".msdem"))
            .filter(|s| s.len() >= 6 && s.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|i| name == format!("frame_{i:06}.msdem"));
        if let Some(index) = index {
            frames.push(index);
        }
    }
    if frames.is_empty() {
        return Err(ExportError::NoFrames { path: dir });
    }
    frames.sort_unstable();
    Ok(frames)
}

/// Subdivisions of the icosphere an ellipsoid shape is drawn with (1,280 triangles).
const ELLIPSOID_SUBDIVISIONS: u32 = 3;

/// The triangle mesh an ellipsoid shape `name` of the manifest at `path` is drawn with:
/// an icosphere with its vertices on the ellipsoid's surface (semi-axes `radii` \[m\]).
fn ellipsoid_mesh(path: &Path, name: &str, radii: [f64; 3]) -> Result<TriMesh, ExportError> {
    let bad = |detail: String| ExportError::Inconsistent {
        path: path.to_path_buf(),
        detail,
    };
    if !radii.iter().all(|r| r.is_finite() && *r > 0.0) {
        return Err(bad(format!(
            "shape `{name}`: ellipsoid semi-axes {radii:?} are not all finite and > 0"
        )));
    }
    msdem_mesh::generate::ellipsoid(radii, ELLIPSOID_SUBDIVISIONS)
        .map_err(|e| bad(format!("shape `{name}`: {e}")))
}
