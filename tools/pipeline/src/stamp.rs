//! Stage stamps: a stage is up to date when the SHA-256 of everything that determines its
//! output — stage kind, command line, the bytes of its input files and of the stage binary
//! — equals the digest stored in its stamp file, and its outputs exist.
//!
//! Stamp file (text): `msdem-pipeline-stamp 1\n` followed by the lowercase hex digest and a
//! newline. Anything else (other version, truncated file) counts as "no stamp".
//!
//! A stage that can be continued after a kill (the solver, [`crate::plan::Restart`]) also
//! gets a *start stamp* `.stamps/KIND-NAME.started`, same format, written just before it
//! runs and removed once it succeeded: `pipeline --resume` continues the stage from its
//! checkpoint only when the start stamp holds the digest the stage has now, so a
//! checkpoint left by a run of other inputs is never continued.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::PipelineError;
use crate::plan::Stage;

/// First line of a stamp file (magic and format version).
const STAMP_HEADER: &str = "msdem-pipeline-stamp 1";

/// A SHA-256 digest.
pub type Digest32 = [u8; 32];

/// Lowercase hex of a digest.
pub fn hex(d: &Digest32) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn read(path: &Path) -> Result<Vec<u8>, PipelineError> {
    std::fs::read(path).map_err(|source| PipelineError::Read {
        path: path.to_owned(),
        source,
    })
}

/// SHA-256 of a file's bytes (used for the stage binaries).
pub fn file_digest(path: &Path) -> Result<Digest32, PipelineError> {
    Ok(Sha256::digest(read(path)?).into())
}

/// Feeds a length-prefixed field, so that no two field lists hash alike.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The files under `dir` (recursively), sorted by path so the digest is deterministic.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| PipelineError::Read {
            path: d.clone(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| PipelineError::Read {
                    path: d.clone(),
                    source,
                })?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The digest that decides whether `stage` must run. Input paths are relative to
/// `out_dir` (or absolute); `program` is the digest of the stage binary.
pub fn stage_digest(
    stage: &Stage,
    program: &Digest32,
    out_dir: &Path,
) -> Result<Digest32, PipelineError> {
    let mut h = Sha256::new();
    field(&mut h, STAMP_HEADER.as_bytes());
    field(&mut h, stage.kind.word().as_bytes());
    field(&mut h, program);
    field(&mut h, &(stage.args.len() as u64).to_le_bytes());
    for arg in &stage.args {
        field(&mut h, arg.as_bytes());
    }
    let mut inputs: Vec<(String, PathBuf)> = stage
        .inputs
        .iter()
        .map(|p| (p.display().to_string(), out_dir.join(p)))
        .collect();
    if let Some(dir) = &stage.input_dir {
        let root = out_dir.join(dir);
        for file in files_under(&root)? {
            let rel = file.strip_prefix(out_dir).unwrap_or(&file);
            inputs.push((rel.display().to_string(), file.clone()));
        }
    }
    field(&mut h, &(inputs.len() as u64).to_le_bytes());
    for (name, path) in inputs {
        field(&mut h, name.as_bytes());
        field(&mut h, &read(&path)?);
    }
    Ok(h.finalize().into())
}

/// The digest stored in the stamp at `path`; `None` when missing or not a valid stamp.
pub fn read_stamp(path: &Path) -> Option<Digest32> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != STAMP_HEADER {
        return None;
    }
    let digest = lines.next()?;
    if digest.len() != 64 || lines.next().is_some() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(digest.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The start stamp of the stage whose stamp is `stamp_path` (see the module documentation).
pub fn started_path(stamp_path: &Path) -> PathBuf {
    stamp_path.with_extension("started")
}

/// Writes a stamp atomically (temporary file in the same folder, then rename).
pub fn write_stamp(path: &Path, digest: &Digest32) -> Result<(), PipelineError> {
    write_atomic(
        path,
        format!("{STAMP_HEADER}\n{}\n", hex(digest)).as_bytes(),
    )
}

/// Writes `bytes` to `path` atomically, creating the parent folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PipelineError> {
    let err = |source| PipelineError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}
