//! The run folder: checks before anything is written, clearing a previous run's files,
//! the manifest with mesh paths relative to the run folder.

use std::path::{Component, Path, PathBuf};

use crate::error::SolverError;
use crate::frames::{
    self, ObstacleRecord, ParticleRecord, RunManifest, ShapeRecord, MANIFEST_MAGIC,
};
use crate::model::{Geometry, Model};
use crate::state::State;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SolverError + '_ {
    move |source| SolverError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Checks that `out` can hold a run without touching it: it is a folder or does not exist,
/// and so is its `frames` entry.
pub fn check_output_folder(out: &Path) -> Result<(), SolverError> {
    let bad = |message: &str| SolverError::Output {
        path: out.to_path_buf(),
        message: message.to_owned(),
    };
    if out.exists() && !out.is_dir() {
        return Err(bad("exists and is not a folder"));
    }
    let frames = out.join("frames");
    if frames.exists() && !frames.is_dir() {
        return Err(bad("its `frames` entry exists and is not a folder"));
    }
    Ok(())
}

/// Creates `out/frames`, removing the files of a previous run (`run.msdem`, `stats.msdem`,
/// `timings.msdem`, `lts.msdem`, `lts_timings.msdem`, `frames/frame_*.msdem`) and nothing
/// else.
pub fn prepare_output_folder(out: &Path) -> Result<(), SolverError> {
    let frames_dir = out.join("frames");
    std::fs::create_dir_all(&frames_dir).map_err(io(&frames_dir))?;
    for file in [
        frames::manifest_path(out),
        frames::stats_path(out),
        frames::timings_path(out),
        frames::lts::lts_stats_path(out),
        frames::lts::lts_timings_path(out),
    ] {
        if file.is_file() {
            std::fs::remove_file(&file).map_err(io(&file))?;
        }
    }
    let entries = std::fs::read_dir(&frames_dir).map_err(io(&frames_dir))?;
    for entry in entries {
        let path = entry.map_err(io(&frames_dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("frame_") && name.ends_with(".msdem") && path.is_file() {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// Removes the frames with index `from` and above from `out/frames` (frames a killed run
/// wrote after its checkpoint) and the temporary files of interrupted atomic writes.
pub fn remove_later_frames(out: &Path, from: u32) -> Result<(), SolverError> {
    let frames_dir = out.join("frames");
    let entries = std::fs::read_dir(&frames_dir).map_err(io(&frames_dir))?;
    for entry in entries {
        let path = entry.map_err(io(&frames_dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let index = name
            .strip_prefix("frame_")
            .and_then(|n| n.strip_suffix(".msdem"))
            .and_then(|n| n.parse::<u32>().ok());
        // `.tmp*`: a temporary file of an atomic write the kill interrupted.
        let stale = index.is_some_and(|i| i >= from) || name.starts_with(".tmp");
        if stale && path.is_file() {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// `target` relative to the folder `base` (both made absolute first); `target` itself when
/// no relative path exists (e.g. another drive).
pub fn relative_to(base: &Path, target: &Path) -> PathBuf {
    // A path that does not exist yet (a run folder before its run starts) is taken as its
    // parent's canonical path plus its name, so that the result does not depend on
    // whether the folder exists: the manifest, and with it a checkpoint's run identity,
    // must be the same for a run and its restart (issue 16).
    let abs = |p: &Path| match std::fs::canonicalize(p) {
        Ok(c) => c,
        Err(_) => {
            let a = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            match (a.parent(), a.file_name()) {
                (Some(parent), Some(name)) => std::fs::canonicalize(parent)
                    .map(|c| c.join(name))
                    .unwrap_or(a),
                _ => a,
            }
        }
    };
    let (base, target) = (abs(base), abs(target));
    let b: Vec<Component> = base.components().collect();
    let t: Vec<Component> = target.components().collect();
    if b.first() != t.first() {
        return target;
    }
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// Path string for the manifest: relative to `out`, with `/` separators.
fn manifest_mesh_path(out: &Path, mesh: &str) -> String {
    let rel = relative_to(out, Path::new(mesh));
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Mesh file (as written into the manifest), hash and triangle count of a geometry.
fn mesh_fields(out: &Path, g: &Geometry) -> (String, [u8; 32], u32) {
    match g.mesh() {
        Some(m) => (
            manifest_mesh_path(out, &m.mesh_path),
            m.mesh_hash,
            m.triangles,
        ),
        None => (String::new(), [0; 32], 0),
    }
}

/// The manifest of a run of `model` from `state` with time step `dt` \[s\] and a frame
/// every `output_every` steps, for the run folder `out`.
pub fn manifest(
    model: &Model,
    state: &State,
    dt: f64,
    output_every: u32,
    out: &Path,
    levels: u32,
) -> RunManifest {
    RunManifest {
        name: model.name.clone(),
        dt,
        output_every,
        shapes: model
            .shapes
            .iter()
            .map(|s| {
                let (mesh, mesh_hash, triangles) = mesh_fields(out, &s.geometry);
                ShapeRecord {
                    name: s.name.clone(),
                    mesh,
                    mesh_hash,
                    com: s.com.into(),
                    triangles,
                    ellipsoid: s.geometry.ellipsoid().map(|e| e.radii()),
                }
            })
            .collect(),
        obstacles: model
            .obstacles
            .iter()
            .map(|o| {
                let (mesh, mesh_hash, _) = mesh_fields(out, &o.geometry);
                ObstacleRecord {
                    name: o.name.clone(),
                    mesh,
                    mesh_hash,
                    translation: o.pose.translation.vector.into(),
                    rotation: {
                        let q = o.pose.rotation.quaternion();
                        [q.w, q.i, q.j, q.k]
                    },
                }
            })
            .collect(),
        particles: state
            .bodies
            .iter()
            .map(|b| ParticleRecord {
                shape: b.shape,
                mass: b.mass,
                radius: b.radius,
                epsilon: b.epsilon,
                material: b.material,
                inertia: std::array::from_fn(|r| std::array::from_fn(|c| b.inertia[(r, c)])),
            })
            .collect(),
        levels,
    }
}

/// Writes the manifest atomically.
pub fn write_manifest(out: &Path, manifest: &RunManifest) -> Result<(), SolverError> {
    frames::write_record(&frames::manifest_path(out), &MANIFEST_MAGIC, manifest)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_and_descend() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("out/run1");
        let mesh = dir.path().join("meshes/grain.ply");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(mesh.parent().unwrap()).unwrap();
        std::fs::write(&mesh, b"x").unwrap();
        let rel = relative_to(&run, &mesh);
        assert_eq!(rel, Path::new("../../meshes/grain.ply"));
        assert_eq!(std::fs::read(run.join(&rel)).unwrap(), b"x");
        assert_eq!(
            manifest_mesh_path(&run, mesh.to_str().unwrap()),
            "../../meshes/grain.ply"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_run_folder_gets_the_same_mesh_paths_before_and_after_it_exists() {
        // Regression (issue 16): the manifest of a run into a folder not made yet named
        // its meshes by another path than its restart into the existing folder, so the
        // restart refused the checkpoint as "of another run".
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        let mesh = real.join("meshes/grain.ply");
        std::fs::create_dir_all(mesh.parent().unwrap()).unwrap();
        std::fs::write(&mesh, b"x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let run = link.join("run");
        let before = relative_to(&run, &mesh);
        std::fs::create_dir(&run).unwrap();
        assert_eq!(before, relative_to(&run, &mesh));
        assert_eq!(before, Path::new("../meshes/grain.ply"));
    }

    #[test]
    fn only_previous_run_files_are_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir_all(out.join("frames")).unwrap();
        for f in [
            "run.msdem",
            "stats.msdem",
            "frames/frame_000007.msdem",
            "notes.txt",
            "frames/keep.txt",
        ] {
            std::fs::write(out.join(f), b"old").unwrap();
        }
        check_output_folder(out).unwrap();
        prepare_output_folder(out).unwrap();
        assert!(!out.join("run.msdem").exists());
        assert!(!out.join("stats.msdem").exists());
        assert!(!out.join("frames/frame_000007.msdem").exists());
        assert!(out.join("notes.txt").exists());
        assert!(out.join("frames/keep.txt").exists());
        let file = out.join("notes.txt");
        assert!(check_output_folder(&file).is_err());
    }
}
