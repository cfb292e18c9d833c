//! Streamed per-step files (`stats.msdem`, `timings.msdem`, `lts.msdem`,
//! `lts_timings.msdem`; issue 16): records appended to disk in checksummed chunks while the
//! run goes, so that the solver's memory stays flat over a long run and a killed run keeps
//! every step up to its last complete chunk.
//!
//! Layout (format version [`STREAM_FORMAT_VERSION`]):
//!
//! | offset | size | field                                                  |
//! |-------:|-----:|--------------------------------------------------------|
//! |      0 |    8 | magic: kind of file (`MSDEMSTA`, `MSDEMTIM`, …)        |
//! |      8 |    4 | format version, `u32` little-endian (5)                |
//! |     12 |      | chunks, each:                                          |
//! |     +0 |    4 | records `k` in the chunk, `u32` little-endian (≥ 1)    |
//! |     +4 |    8 | body length `n` \[bytes\], `u64` little-endian         |
//! |    +12 |   32 | SHA-256 of the body                                    |
//! |    +44 |    n | body: the `k` records, postcard, one after the other   |
//!
//! The solver ends a chunk after every step whose number is a multiple of
//! [`CHUNK_STEPS`] and at the end of the run, so chunk boundaries depend on step numbers
//! only and a resumed run writes the same bytes as an uninterrupted one. Reading
//! ([`read_stream`], [`StreamReader`]) checks the magic, the version, then every chunk's
//! length and checksum and that its body decodes to exactly `k` records; a cut last chunk
//! (a killed run) is reported as a truncated file, naming it.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::io::kind_of;
use crate::FrameError;

/// Format version of the streamed files (6: `lts.msdem` records carry the collision
/// fallback's counts; 5: chunked; version 4 held one record).
pub const STREAM_FORMAT_VERSION: u32 = 6;
/// Bytes before the first chunk: magic and version.
pub const STREAM_HEADER_LEN: u64 = 12;
/// Bytes of a chunk's header: record count, body length, SHA-256.
pub const CHUNK_HEADER_LEN: u64 = 4 + 8 + 32;
/// Steps per chunk: the solver buffers at most this many records per file.
pub const CHUNK_STEPS: u64 = 1024;
/// Largest chunk body a reader accepts \[bytes\]: a damaged length cannot make it
/// allocate more.
pub const MAX_CHUNK_BYTES: u64 = 1 << 30;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> FrameError + '_ {
    move |source| FrameError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The magic and version bytes that start a stream.
fn header(magic: &[u8; 8]) -> [u8; 12] {
    let mut h = [0u8; 12];
    h[..8].copy_from_slice(magic);
    h[8..].copy_from_slice(&STREAM_FORMAT_VERSION.to_le_bytes());
    h
}

/// Encodes `records` as one chunk (header + body).
pub fn encode_chunk<T: Serialize>(records: &[T]) -> Vec<u8> {
    let mut body = Vec::new();
    for r in records {
        // Encoding plain structs into a Vec cannot fail.
        body.extend_from_slice(&postcard::to_allocvec(r).unwrap_or_default());
    }
    let mut out = Vec::with_capacity(CHUNK_HEADER_LEN as usize + body.len());
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend_from_slice(&body);
    out
}

/// Writes a whole stream at once, atomically (temporary file + rename), in chunks of
/// [`CHUNK_STEPS`] records: the bytes the solver writes for the same records.
pub fn write_stream<T: Serialize>(
    path: &Path,
    magic: &[u8; 8],
    records: &[T],
) -> Result<(), FrameError> {
    let mut bytes = header(magic).to_vec();
    for chunk in records.chunks(CHUNK_STEPS as usize) {
        bytes.extend_from_slice(&encode_chunk(chunk));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let io = io_error(path);
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io_error(path))?;
    tmp.write_all(&bytes).map_err(io_error(path))?;
    tmp.as_file().sync_all().map_err(io_error(path))?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Reads every record of a stream; any damage, a cut last chunk included, is an error
/// naming the file.
pub fn read_stream<T: for<'de> Deserialize<'de>>(
    path: &Path,
    magic: &[u8; 8],
) -> Result<Vec<T>, FrameError> {
    let mut reader = StreamReader::open(path, magic)?;
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        out.extend(chunk);
    }
    Ok(out)
}

/// Reads the complete chunks of a stream. A cut last chunk (a run killed while it wrote
/// it) is no error here: its records are left out and the truncation is returned beside
/// the records, for a warning. Any other damage is an error naming the file.
pub fn read_stream_complete<T: for<'de> Deserialize<'de>>(
    path: &Path,
    magic: &[u8; 8],
) -> Result<(Vec<T>, Option<FrameError>), FrameError> {
    let mut reader = StreamReader::open(path, magic)?;
    let mut out = Vec::new();
    loop {
        match reader.next_chunk() {
            Ok(Some(chunk)) => out.extend(chunk),
            Ok(None) => return Ok((out, None)),
            Err(e @ FrameError::Truncated { .. }) => return Ok((out, Some(e))),
            Err(e) => return Err(e),
        }
    }
}

/// Reads a stream chunk by chunk (memory: one chunk).
pub struct StreamReader<R> {
    path: PathBuf,
    what: &'static str,
    input: R,
    /// Bytes of the file.
    size: u64,
    /// Bytes read so far (header and complete chunks).
    offset: u64,
}

impl StreamReader<BufReader<File>> {
    /// Opens `path` and checks its magic and version.
    pub fn open(path: &Path, magic: &[u8; 8]) -> Result<Self, FrameError> {
        let file = File::open(path).map_err(io_error(path))?;
        let size = file.metadata().map_err(io_error(path))?.len();
        StreamReader::new(path, magic, BufReader::new(file), size)
    }
}

impl<R: Read> StreamReader<R> {
    /// Reads a stream of `size` bytes from `input`; `path` names it in errors.
    pub fn new(path: &Path, magic: &[u8; 8], mut input: R, size: u64) -> Result<Self, FrameError> {
        let what = kind_of(magic);
        let mut head = [0u8; 12];
        let got = read_up_to(&mut input, &mut head).map_err(io_error(path))?;
        if got < 8 && magic.starts_with(&head[..got]) {
            return Err(FrameError::Truncated {
                path: path.to_path_buf(),
                what,
                found: size,
                expected: STREAM_HEADER_LEN,
            });
        }
        if got < 8 || &head[..8] != magic {
            return Err(FrameError::Magic {
                path: path.to_path_buf(),
                what,
            });
        }
        if got < 12 {
            return Err(FrameError::Truncated {
                path: path.to_path_buf(),
                what,
                found: size,
                expected: STREAM_HEADER_LEN,
            });
        }
        let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
        if version != STREAM_FORMAT_VERSION {
            return Err(FrameError::Version {
                path: path.to_path_buf(),
                found: version,
                expected: STREAM_FORMAT_VERSION,
            });
        }
        Ok(StreamReader {
            path: path.to_path_buf(),
            what,
            input,
            size,
            offset: STREAM_HEADER_LEN,
        })
    }

    /// Bytes of the header and the complete chunks read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next chunk's records, `None` at the end of the file.
    pub fn next_chunk<T: for<'de> Deserialize<'de>>(
        &mut self,
    ) -> Result<Option<Vec<T>>, FrameError> {
        if self.offset == self.size {
            return Ok(None);
        }
        let truncated = |expected: u64| FrameError::Truncated {
            path: self.path.clone(),
            what: self.what,
            found: self.size,
            expected,
        };
        let corrupt = |detail: String| FrameError::Corrupt {
            path: self.path.clone(),
            what: self.what,
            detail,
        };
        let mut head = [0u8; CHUNK_HEADER_LEN as usize];
        let got = read_up_to(&mut self.input, &mut head).map_err(io_error(&self.path))?;
        if got < head.len() {
            return Err(truncated(self.offset + CHUNK_HEADER_LEN));
        }
        let count = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let mut len = [0u8; 8];
        len.copy_from_slice(&head[4..12]);
        let body_len = u64::from_le_bytes(len);
        let end = self
            .offset
            .saturating_add(CHUNK_HEADER_LEN)
            .saturating_add(body_len);
        if end > self.size {
            return Err(truncated(end));
        }
        if count == 0 || body_len > MAX_CHUNK_BYTES || u64::from(count) > body_len {
            return Err(corrupt(format!(
                "chunk at byte {} claims {count} records in {body_len} bytes",
                self.offset
            )));
        }
        let mut body = vec![0u8; body_len as usize];
        self.input
            .read_exact(&mut body)
            .map_err(io_error(&self.path))?;
        if Sha256::digest(&body).as_slice() != &head[12..] {
            return Err(FrameError::Checksum {
                path: self.path.clone(),
                what: self.what,
            });
        }
        let mut rest: &[u8] = &body;
        let mut out = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let (value, tail) = postcard::take_from_bytes::<T>(rest)
                .map_err(|e| corrupt(format!("chunk at byte {}: {e}", self.offset)))?;
            out.push(value);
            rest = tail;
        }
        if !rest.is_empty() {
            return Err(corrupt(format!(
                "chunk at byte {}: {} bytes left after its {count} records",
                self.offset,
                rest.len()
            )));
        }
        self.offset = end;
        Ok(Some(out))
    }
}

/// Reads into `buf` until it is full or the input ends; the bytes read.
fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Appends records to a stream, a chunk at a time. At most [`CHUNK_STEPS`] records are held
/// in memory by a caller that ends a chunk at the multiples of [`CHUNK_STEPS`].
pub struct StreamWriter<T> {
    path: PathBuf,
    file: File,
    /// Bytes written (header and complete chunks).
    len: u64,
    pending: Vec<T>,
}

impl<T: Serialize + for<'de> Deserialize<'de>> StreamWriter<T> {
    /// Creates (or empties) `path` and writes the stream header.
    pub fn create(path: &Path, magic: &[u8; 8]) -> Result<Self, FrameError> {
        let mut file = File::create(path).map_err(io_error(path))?;
        file.write_all(&header(magic)).map_err(io_error(path))?;
        Ok(StreamWriter {
            path: path.to_path_buf(),
            file,
            len: STREAM_HEADER_LEN,
            pending: Vec::new(),
        })
    }

    /// Reopens the stream `path` written up to `len` bytes (a checkpoint's mark): checks
    /// that those bytes are the header and complete chunks, cuts everything after them
    /// (chunks written after the checkpoint), and continues with `pending` buffered.
    /// Calls `each` with every record of the kept chunks, in order.
    pub fn reopen(
        path: &Path,
        magic: &[u8; 8],
        len: u64,
        pending: Vec<T>,
        mut each: impl FnMut(&T),
    ) -> Result<Self, FrameError> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_error(path))?;
        let size = file.metadata().map_err(io_error(path))?.len();
        if size < len {
            return Err(FrameError::Truncated {
                path: path.to_path_buf(),
                what: kind_of(magic),
                found: size,
                expected: len,
            });
        }
        {
            let input = BufReader::new((&file).take(len));
            let mut reader = StreamReader::new(path, magic, input, len)?;
            while let Some(chunk) = reader.next_chunk::<T>()? {
                chunk.iter().for_each(&mut each);
            }
        }
        file.set_len(len).map_err(io_error(path))?;
        let mut file = file;
        file.seek(SeekFrom::Start(len)).map_err(io_error(path))?;
        Ok(StreamWriter {
            path: path.to_path_buf(),
            file,
            len,
            pending,
        })
    }

    /// Appends the buffered records as one chunk (nothing when none are buffered).
    pub fn end_chunk(&mut self) -> Result<(), FrameError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let bytes = encode_chunk(&self.pending);
        self.file.write_all(&bytes).map_err(io_error(&self.path))?;
        self.len += bytes.len() as u64;
        self.pending.clear();
        Ok(())
    }
}

impl<T> StreamWriter<T> {
    /// Buffers one record.
    pub fn push(&mut self, record: T) {
        self.pending.push(record);
    }

    /// Forces the written chunks to disk (before a checkpoint names their length).
    pub fn sync(&self) -> Result<(), FrameError> {
        self.file.sync_data().map_err(io_error(&self.path))
    }

    /// Bytes written: header and complete chunks.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no chunk has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len == STREAM_HEADER_LEN
    }

    /// The records buffered since the last chunk.
    pub fn pending(&self) -> &[T] {
        &self.pending
    }
}

macro_rules! streamed_file {
    ($file:ty, $record:ty, $magic:expr, $name:literal) => {
        impl $file {
            #[doc = concat!("Reads `", $name, "` ([`read_stream`]).")]
            pub fn read(path: &Path) -> Result<Self, FrameError> {
                Ok(Self {
                    steps: read_stream::<$record>(path, &$magic)?,
                })
            }

            #[doc = concat!("Reads the complete chunks of `", $name, "` and the cut of its last chunk, if any ([`read_stream_complete`]).")]
            pub fn read_complete(path: &Path) -> Result<(Self, Option<FrameError>), FrameError> {
                let (steps, cut) = read_stream_complete::<$record>(path, &$magic)?;
                Ok((Self { steps }, cut))
            }

            #[doc = concat!("Writes `", $name, "` at once ([`write_stream`]).")]
            pub fn write(&self, path: &Path) -> Result<(), FrameError> {
                write_stream(path, &$magic, &self.steps)
            }
        }
    };
}

streamed_file!(
    crate::StatsFile,
    crate::StepStats,
    crate::STATS_MAGIC,
    "stats.msdem"
);
streamed_file!(
    crate::TimingsFile,
    crate::PhaseTimes,
    crate::TIMINGS_MAGIC,
    "timings.msdem"
);
streamed_file!(
    crate::lts::LtsStatsFile,
    crate::lts::LtsStepStats,
    crate::lts::LTS_STATS_MAGIC,
    "lts.msdem"
);
streamed_file!(
    crate::lts::LtsTimingsFile,
    crate::lts::LtsPhaseTimes,
    crate::lts::LTS_TIMINGS_MAGIC,
    "lts_timings.msdem"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{StatsFile, StepStats, STATS_MAGIC};

    fn steps(n: u64) -> Vec<StepStats> {
        (1..=n)
            .map(|i| StepStats {
                step: i,
                time: i as f64 * 1e-3,
                checks_per_level: vec![i, 2 * i],
                contacts: (i % 7) as u32,
                ..StepStats::default()
            })
            .collect()
    }

    /// What the solver does: a chunk after every multiple of CHUNK_STEPS and at the end.
    fn solver_like(path: &Path, records: &[StepStats]) {
        let mut w = StreamWriter::create(path, &STATS_MAGIC).unwrap();
        for r in records {
            w.push(r.clone());
            assert!(w.pending().len() as u64 <= CHUNK_STEPS);
            if r.step % CHUNK_STEPS == 0 {
                w.end_chunk().unwrap();
            }
        }
        w.end_chunk().unwrap();
    }

    #[test]
    fn appended_chunks_equal_a_whole_write_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        for n in [0, 1, CHUNK_STEPS, 2 * CHUNK_STEPS + 5] {
            let (a, b) = (dir.path().join("a"), dir.path().join("b"));
            let records = steps(n);
            solver_like(&a, &records);
            StatsFile {
                steps: records.clone(),
            }
            .write(&b)
            .unwrap();
            assert_eq!(
                std::fs::read(&a).unwrap(),
                std::fs::read(&b).unwrap(),
                "{n}"
            );
            assert_eq!(StatsFile::read(&a).unwrap().steps, records);
        }
    }

    #[test]
    fn a_cut_or_edited_chunk_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stats.msdem");
        solver_like(&path, &steps(CHUNK_STEPS + 10));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = StatsFile::read(&path).unwrap_err().to_string();
        assert!(e.contains("stats.msdem: truncated statistics file"), "{e}");
        // What a killed run left: the complete first chunk, the cut second one reported.
        let (kept, cut) = StatsFile::read_complete(&path).unwrap();
        assert_eq!(kept.steps, steps(CHUNK_STEPS));
        assert!(matches!(cut, Some(FrameError::Truncated { .. })));
        let mut edited = bytes.clone();
        let last = edited.len() - 1;
        edited[last] ^= 1;
        std::fs::write(&path, &edited).unwrap();
        let e = StatsFile::read(&path).unwrap_err().to_string();
        assert!(e.contains("checksum mismatch"), "{e}");
        // A single-record statistics file of an older build (record format version 5).
        let old = crate::encode(&STATS_MAGIC, &StatsFile { steps: steps(2) });
        std::fs::write(&path, old).unwrap();
        let e = StatsFile::read(&path).unwrap_err().to_string();
        assert!(
            e.contains("format version 5, this build reads version 6"),
            "{e}"
        );
        std::fs::write(&path, b"MSDEM").unwrap();
        let e = StatsFile::read(&path).unwrap_err().to_string();
        assert!(
            e.contains("truncated statistics file: 5 bytes, expected 12"),
            "{e}"
        );
    }

    #[test]
    fn reopen_cuts_back_to_the_mark_and_continues_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (whole, resumed) = (dir.path().join("whole"), dir.path().join("resumed"));
        let records = steps(3 * CHUNK_STEPS + 7);
        solver_like(&whole, &records);
        // A "checkpoint" after step CHUNK_STEPS + 3: one chunk written, 3 records pending;
        // the killed run went on and wrote a second chunk and part of a third.
        let mark_step = CHUNK_STEPS + 3;
        let mut w = StreamWriter::create(&resumed, &STATS_MAGIC).unwrap();
        let mut mark = (0, Vec::new());
        for r in &records[..(2 * CHUNK_STEPS + 20) as usize] {
            w.push(r.clone());
            if r.step % CHUNK_STEPS == 0 {
                w.end_chunk().unwrap();
            }
            if r.step == mark_step {
                mark = (w.len(), w.pending().to_vec());
            }
        }
        w.end_chunk().unwrap();
        drop(w);
        let mut seen = Vec::new();
        let mut w =
            StreamWriter::reopen(&resumed, &STATS_MAGIC, mark.0, mark.1, |s: &StepStats| {
                seen.push(s.step)
            })
            .unwrap();
        assert_eq!(seen, (1..=CHUNK_STEPS).collect::<Vec<_>>());
        for r in &records[mark_step as usize..] {
            w.push(r.clone());
            if r.step % CHUNK_STEPS == 0 {
                w.end_chunk().unwrap();
            }
        }
        w.end_chunk().unwrap();
        drop(w);
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&resumed).unwrap()
        );
        // A mark past the end of the file is refused.
        let e = StreamWriter::<StepStats>::reopen(&resumed, &STATS_MAGIC, 1 << 40, vec![], |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("truncated statistics file"), "{e}");
    }
}
