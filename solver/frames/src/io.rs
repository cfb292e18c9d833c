//! Encoding, decoding, atomic reading and writing of run-output files, and the paths of
//! the files inside a run folder.
//!
//! A file is `magic (8 bytes) + FORMAT_VERSION (u32, little-endian) + postcard(record)`.

use serde::{Deserialize, Serialize};

use crate::FrameError;

/// Format version of every run-output file. 2: [`StepStats`](crate::StepStats) gained
/// `unfolds`, `narrows`, `skipped` and `iteration_checks` (version-1 files are refused with
/// a version error).
pub const FORMAT_VERSION: u32 = 2;
/// Magic of the manifest file.
pub const MANIFEST_MAGIC: [u8; 8] = *b"MSDEMRUN";
/// Magic of a frame file.
pub const FRAME_MAGIC: [u8; 8] = *b"MSDEMFRM";
/// Magic of the statistics file.
pub const STATS_MAGIC: [u8; 8] = *b"MSDEMSTA";
/// Magic of the wall-clock timings file.
pub const TIMINGS_MAGIC: [u8; 8] = *b"MSDEMTIM";

/// Kind of file named in errors, from its magic.
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
