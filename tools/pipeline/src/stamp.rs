//! Stage stamps: a stage is up to date when the SHA-256 of everything that determines its
//! output — stage kind, command line, the bytes of its input files and of the stage binary
//! — equals the digest stored in its stamp file, and the outputs recorded in the stamp are
//! still there, unchanged ([`crate::outputs`]).
//!
//! Stamp file (text, format version 2):
//!
//! ```text
//! msdem-pipeline-stamp 2
//! <input digest, lowercase hex>
//! <size in bytes> <SHA-256 of the content, lowercase hex> <path relative to the output folder>
//! …                                                   (one line per output file, sorted)
//! ```
//!
//! Anything else (version 1, which recorded no outputs, another version, a truncated or
//! edited file) counts as "no stamp": the stage runs again.
//!
//! A stage that can be continued after a kill (the solver, [`crate::plan::Restart`]) also
//! gets a *start stamp* `.stamps/KIND-NAME.started`, same format without output lines,
//! written just before it runs and removed once it succeeded: `pipeline --resume`
//! continues the stage from its checkpoint only when the start stamp holds the digest the
//! stage has now, so a checkpoint left by a run of other inputs is never continued.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::PipelineError;
use crate::outputs::OutputFile;
use crate::plan::Stage;

/// First line of a stamp file (magic and format version).
const STAMP_HEADER: &str = "msdem-pipeline-stamp 2";

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

/// A stage's stamp: the input digest it was made with and the files it made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// [`stage_digest`] when the stage ran.
    pub digest: Digest32,
    /// The stage's output files, sorted by path (none in a start stamp).
    pub outputs: Vec<OutputFile>,
}

fn parse_hex(text: &str) -> Option<Digest32> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The stamp at `path`; `None` when missing or not a valid version-2 stamp.
pub fn read_stamp(path: &Path) -> Option<Stamp> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != STAMP_HEADER {
        return None;
    }
    let digest = parse_hex(lines.next()?)?;
    let outputs = lines
        .map(|line| {
            let (size, rest) = line.split_once(' ')?;
            let (hash, path) = rest.split_once(' ')?;
            Some(OutputFile {
                path: path.to_owned(),
                size: size.parse().ok()?,
                sha256: parse_hex(hash)?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Stamp { digest, outputs })
}

/// The start stamp of the stage whose stamp is `stamp_path` (see the module documentation).
pub fn started_path(stamp_path: &Path) -> PathBuf {
    stamp_path.with_extension("started")
}

/// Writes a stamp atomically (temporary file in the same folder, then rename).
pub fn write_stamp(path: &Path, stamp: &Stamp) -> Result<(), PipelineError> {
    let mut text = format!("{STAMP_HEADER}\n{}\n", hex(&stamp.digest));
    for file in &stamp.outputs {
        text.push_str(&format!(
            "{} {} {}\n",
            file.size,
            hex(&file.sha256),
            file.path
        ));
    }
    write_atomic(path, text.as_bytes())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_reads_back_as_written_and_anything_else_is_no_stamp() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.stamp");
        let stamp = Stamp {
            digest: [7; 32],
            outputs: vec![OutputFile {
                path: "run/frames/frame 1.msdem".into(),
                size: 12,
                sha256: [0xab; 32],
            }],
        };
        write_stamp(&path, &stamp).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "msdem-pipeline-stamp 2\n{}\n12 {} run/frames/frame 1.msdem\n",
                "07".repeat(32),
                "ab".repeat(32)
            )
        );
        assert_eq!(read_stamp(&path), Some(stamp));
        for bad in [
            text.replace("stamp 2", "stamp 1"),
            text.replace("12 ", "x "),
            text.replace(&"ab".repeat(32), "ab"),
            format!("{text}garbage\n"),
            text[..30].to_owned(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(read_stamp(&path), None, "{bad}");
        }
    }
}
