//! Encoding, decoding, atomic reading and writing of run-output files, and the paths of
//! the files inside a run folder.
//!
//! A file is `magic (8) + FORMAT_VERSION (u32 LE) + body length (u64 LE) + SHA-256(body)
//! (32) + body`, body = `postcard(record)`; the table is in the crate documentation.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::FrameError;

/// Format version of every run-output record file (the streamed statistics have their own,
/// [`crate::stream::STREAM_FORMAT_VERSION`]). 5: a checkpoint's kept active sets carry
/// their held narrowing vetoes (`detect/active/held.rs` of the solver); 4: frames carry the contact load of every
/// particle ([`Frame::loads`](crate::Frame::loads)), particle records their material and
/// inertia tensor; 3: a body length and the SHA-256 of the body follow the version (see
/// the module table); 2: [`StepStats`](crate::StepStats) gained
/// `unfolds`, `narrows`, `skipped` and `iteration_checks`. Files of other versions are
/// refused with a version error.
pub const FORMAT_VERSION: u32 = 5;
/// Length of the header before the postcard body: magic, version, body length, SHA-256.
pub const HEADER_LEN: usize = 8 + 4 + 8 + 32;
/// Magic of the manifest file.
pub const MANIFEST_MAGIC: [u8; 8] = *b"MSDEMRUN";
/// Magic of a frame file.
pub const FRAME_MAGIC: [u8; 8] = *b"MSDEMFRM";
/// Magic of the statistics file.
pub const STATS_MAGIC: [u8; 8] = *b"MSDEMSTA";
/// Magic of the wall-clock timings file.
pub const TIMINGS_MAGIC: [u8; 8] = *b"MSDEMTIM";
/// Magic of a solver checkpoint (the body is the solver's own record; this crate only
/// frames, checks and names it).
pub const CHECKPOINT_MAGIC: [u8; 8] = *b"MSDEMCKP";

/// Kind of file named in errors, from its magic.
pub(crate) fn kind_of(magic: &[u8; 8]) -> &'static str {
    match magic {
        m if m == &MANIFEST_MAGIC => "run manifest",
        m if m == &FRAME_MAGIC => "frame",
        m if m == &STATS_MAGIC => "statistics",
        m if m == &TIMINGS_MAGIC => "timings",
        m if m == &CHECKPOINT_MAGIC => "checkpoint",
        m if m == &crate::lts::LTS_STATS_MAGIC => "local time stepping statistics",
        m if m == &crate::lts::LTS_TIMINGS_MAGIC => "local time stepping timings",
        _ => "run output",
    }
}

/// Encodes `magic + version + body length + SHA-256(body) + body`, body = postcard(record).
pub fn encode<T: Serialize>(magic: &[u8; 8], record: &T) -> Vec<u8> {
    // Encoding plain structs into a Vec cannot fail.
    let body = postcard::to_allocvec(record).unwrap_or_default();
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend_from_slice(&body);
    out
}

/// Decodes bytes written by [`encode`]; `path` only names the file in errors.
///
/// Checks, in this order: magic, version (so a file of another version is always reported
/// as such), length (truncation), checksum, then that the body decodes completely.
pub fn decode<T: for<'de> Deserialize<'de>>(
    path: &std::path::Path,
    magic: &[u8; 8],
    bytes: &[u8],
) -> Result<T, FrameError> {
    let what = kind_of(magic);
    let truncated = |expected: u64| FrameError::Truncated {
        path: path.to_path_buf(),
        what,
        found: bytes.len() as u64,
        expected,
    };
    if bytes.len() < 8 && magic.starts_with(bytes) {
        return Err(truncated(HEADER_LEN as u64));
    }
    if bytes.len() < 8 || &bytes[..8] != magic {
        return Err(FrameError::Magic {
            path: path.to_path_buf(),
            what,
        });
    }
    let Some(version) = bytes.get(8..12) else {
        return Err(truncated(HEADER_LEN as u64));
    };
    let version = u32::from_le_bytes([version[0], version[1], version[2], version[3]]);
    if version != FORMAT_VERSION {
        return Err(FrameError::Version {
            path: path.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(truncated(HEADER_LEN as u64));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[12..20]);
    let body_len = u64::from_le_bytes(len);
    let body = &bytes[HEADER_LEN..];
    let expected = body_len.saturating_add(HEADER_LEN as u64);
    if (bytes.len() as u64) < expected {
        return Err(truncated(expected));
    }
    if (bytes.len() as u64) > expected {
        return Err(FrameError::Corrupt {
            path: path.to_path_buf(),
            what,
            detail: format!(
                "{} bytes after the {body_len}-byte body",
                bytes.len() as u64 - expected
            ),
        });
    }
    if Sha256::digest(body).as_slice() != &bytes[20..HEADER_LEN] {
        return Err(FrameError::Checksum {
            path: path.to_path_buf(),
            what,
        });
    }
    let (value, rest) = postcard::take_from_bytes::<T>(body).map_err(|e| FrameError::Corrupt {
        path: path.to_path_buf(),
        what,
        detail: e.to_string(),
    })?;
    if !rest.is_empty() {
        return Err(FrameError::Corrupt {
            path: path.to_path_buf(),
            what,
            detail: format!("{} bytes left after the record", rest.len()),
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

/// Reads a record written by [`write_record`], checking magic, version, length and
/// checksum first ([`decode`]).
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

/// Path of the latest checkpoint inside a run folder.
pub fn checkpoint_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("checkpoint.msdem")
}

/// Path of the previous checkpoint inside a run folder (the fallback when the latest one
/// is unreadable).
pub fn previous_checkpoint_path(run: &std::path::Path) -> std::path::PathBuf {
    run.join("checkpoint.prev.msdem")
}
