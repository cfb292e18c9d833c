//! What a stage made, as its stamp records it (issue 16, defect 2): every file under the
//! stage's products ([`crate::plan::Stage::products`]) with its path relative to the output
//! folder, its size and its SHA-256. A stage is reused only when the files under its
//! products are exactly the recorded ones, each with the recorded size and content, so a
//! deleted, truncated, edited or replaced output (a `.ply`, a tree, a frame, a `.vtp`)
//! makes the stage run again, and through the input digests the stages after it.
//!
//! Names starting with `.` are not products: the folder lock, the exporter's staging
//! folder and the temporary files of atomic writes.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::PipelineError;
use crate::stamp::Digest32;

/// One output file as recorded in a stamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// Path relative to the output folder, `/`-separated.
    pub path: String,
    /// Size \[bytes\].
    pub size: u64,
    /// SHA-256 of the content.
    pub sha256: Digest32,
}

/// Why recorded outputs no longer stand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// A recorded file is gone.
    Missing(String),
    /// A recorded file has another size or content.
    Changed(String),
    /// A file under a product that the stage did not make.
    Unexpected(String),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing(p) => write!(f, "{p} is missing"),
            Self::Changed(p) => write!(f, "{p} changed since the stage made it"),
            Self::Unexpected(p) => write!(f, "{p} was not made by the stage"),
        }
    }
}

fn read_err(path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Read {
        path: path.to_owned(),
        source,
    }
}

/// `rel` as recorded: `/`-separated.
fn key(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `rel` (relative to the output folder) is skipped: a dot name anywhere below a
/// product, or one of `skip`.
fn skipped(rel: &Path, skip: &[PathBuf]) -> bool {
    skip.iter().any(|s| rel.starts_with(s))
        || rel
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// The files under `products` (files or folders, relative to `out_dir`), minus `skip` and
/// dot names, with their sizes, sorted by recorded path. A product that does not exist
/// contributes nothing.
pub fn list(
    out_dir: &Path,
    products: &[PathBuf],
    skip: &[PathBuf],
) -> Result<Vec<(String, PathBuf, u64)>, PipelineError> {
    let mut found = Vec::new();
    let mut pending: Vec<PathBuf> = products.to_vec();
    while let Some(rel) = pending.pop() {
        let path = out_dir.join(&rel);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(read_err(&path)(e)),
        };
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).map_err(read_err(&path))? {
                let name = entry.map_err(read_err(&path))?.file_name();
                let child = rel.join(name);
                if !skipped(&child, skip) {
                    pending.push(child);
                }
            }
        } else {
            // A link is followed for its size, as a reader of the file would.
            let size = std::fs::metadata(&path).map_or(meta.len(), |m| m.len());
            found.push((key(&rel), path, size));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|a, b| a.0 == b.0);
    Ok(found)
}

/// SHA-256 of a file, read in blocks.
pub fn sha256_file(path: &Path) -> Result<Digest32, PipelineError> {
    let mut file = std::fs::File::open(path).map_err(read_err(path))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer).map_err(read_err(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher.finalize().into())
}

/// Records the files under `products` (see [`list`]) for a stamp.
pub fn record(
    out_dir: &Path,
    products: &[PathBuf],
    skip: &[PathBuf],
) -> Result<Vec<OutputFile>, PipelineError> {
    list(out_dir, products, skip)?
        .into_iter()
        .map(|(path, file, size)| {
            Ok(OutputFile {
                path,
                size,
                sha256: sha256_file(&file)?,
            })
        })
        .collect()
}

/// The first way the files under `products` differ from `recorded` (`None`: they are
/// exactly the recorded ones). Sizes are compared first; contents are hashed only for
/// files of the recorded size. An unreadable file counts as changed.
pub fn verify(
    out_dir: &Path,
    products: &[PathBuf],
    skip: &[PathBuf],
    recorded: &[OutputFile],
) -> Result<Option<Mismatch>, PipelineError> {
    let present = list(out_dir, products, skip)?;
    let mut present_iter = present.iter().peekable();
    // Both sorted by path: a merge finds missing and unexpected files.
    for want in recorded {
        if let Some(extra) = present_iter.next_if(|p| p.0 < want.path) {
            return Ok(Some(Mismatch::Unexpected(extra.0.clone())));
        }
        match present_iter.next_if(|p| p.0 == want.path) {
            None => return Ok(Some(Mismatch::Missing(want.path.clone()))),
            Some((_, _, size)) if *size != want.size => {
                return Ok(Some(Mismatch::Changed(want.path.clone())))
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = present_iter.next() {
        return Ok(Some(Mismatch::Unexpected(extra.0.clone())));
    }
    for (want, (_, file, _)) in recorded.iter().zip(&present) {
        if sha256_file(file).ok() != Some(want.sha256) {
            return Ok(Some(Mismatch::Changed(want.path.clone())));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn recorded_outputs_verify_until_one_is_deleted_resized_edited_or_added() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path();
        write(out, "run/run.msdem", "manifest");
        write(out, "run/frames/frame_000000.msdem", "f0");
        write(out, "run/frames/frame_000001.msdem", "f1");
        write(out, "run/frames/.tmp123", "half");
        write(out, "run/.lock", "solver 1");
        write(out, "run/vtk/a.vtp", "export's");
        let products = [PathBuf::from("run")];
        let skip = [PathBuf::from("run/vtk")];
        let rec = record(out, &products, &skip).unwrap();
        let paths: Vec<&str> = rec.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "run/frames/frame_000000.msdem",
                "run/frames/frame_000001.msdem",
                "run/run.msdem"
            ]
        );
        // Independent truth: the SHA-256 of the bytes.
        assert_eq!(rec[2].sha256, <[u8; 32]>::from(Sha256::digest(b"manifest")));
        assert_eq!(rec[2].size, 8);
        let check = || verify(out, &products, &skip, &rec).unwrap();
        assert_eq!(check(), None);
        // Same size, other content: found by the hash.
        write(out, "run/frames/frame_000001.msdem", "F1");
        assert_eq!(
            check(),
            Some(Mismatch::Changed("run/frames/frame_000001.msdem".into()))
        );
        write(out, "run/frames/frame_000001.msdem", "f1");
        write(out, "run/run.msdem", "manif");
        assert_eq!(check(), Some(Mismatch::Changed("run/run.msdem".into())));
        write(out, "run/run.msdem", "manifest");
        std::fs::remove_file(out.join("run/frames/frame_000000.msdem")).unwrap();
        assert_eq!(
            check(),
            Some(Mismatch::Missing("run/frames/frame_000000.msdem".into()))
        );
        write(out, "run/frames/frame_000000.msdem", "f0");
        write(out, "run/frames/frame_000002.msdem", "f2");
        assert_eq!(
            check(),
            Some(Mismatch::Unexpected("run/frames/frame_000002.msdem".into()))
        );
        std::fs::remove_file(out.join("run/frames/frame_000002.msdem")).unwrap();
        write(out, "run/a_first.msdem", "x");
        assert_eq!(
            check(),
            Some(Mismatch::Unexpected("run/a_first.msdem".into()))
        );
        std::fs::remove_file(out.join("run/a_first.msdem")).unwrap();
        assert_eq!(check(), None);
        std::fs::remove_dir_all(out.join("run")).unwrap();
        assert_eq!(
            check(),
            Some(Mismatch::Missing("run/frames/frame_000000.msdem".into()))
        );
    }
}
