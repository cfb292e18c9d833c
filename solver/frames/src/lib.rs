//! On-disk run output of the multiresolution DEM solver: a manifest, one file per output
//! frame, the per-step statistics and the wall-clock timings.
//!
//! The solver (`msdem-solver`, pipeline stage 3) writes these files and the exporter
//! (`msdem-export`, stage 4) reads them; this crate is all the two share, so the exporter
//! does not depend on the solver.
//!
//! Layout of a run folder `OUT/`:
//! * `OUT/run.msdem` — [`RunManifest`] (shapes, obstacles, particles, time step), magic
//!   [`MANIFEST_MAGIC`], path [`manifest_path`];
//! * `OUT/frames/frame_000042.msdem` — [`Frame`] for output frame 42, magic
//!   [`FRAME_MAGIC`], path [`frame_path`];
//! * `OUT/stats.msdem` — [`StatsFile`], one [`StepStats`] per step (deterministic: its
//!   `wall` fields are zero), magic [`STATS_MAGIC`], path [`stats_path`];
//! * `OUT/timings.msdem` — [`TimingsFile`], the wall-clock time per phase of every step,
//!   magic [`TIMINGS_MAGIC`], path [`timings_path`]. The only output that differs between
//!   two runs of the same inputs, so it lives apart;
//! * the per-step files (`stats.msdem`, `timings.msdem` and the [`lts`] files) are
//!   *streams*: appended in checksummed chunks during the run ([`stream`], format version
//!   [`stream::STREAM_FORMAT_VERSION`]), read with [`StatsFile::read`] and its siblings;
//! * `OUT/checkpoint.msdem`, `OUT/checkpoint.prev.msdem` — the solver's latest and
//!   previous checkpoint of an unfinished run (its own record, magic [`CHECKPOINT_MAGIC`],
//!   paths [`checkpoint_path`], [`previous_checkpoint_path`]); removed when the run ends.
//!
//! Every other file (format version 5, [`FORMAT_VERSION`]) is a 52-byte header ([`HEADER_LEN`])
//! followed by the body, the postcard encoding of the record (fields in declaration order):
//!
//! | offset | size | field                                              |
//! |-------:|-----:|----------------------------------------------------|
//! |      0 |    8 | magic: kind of file (`MSDEMRUN`, `MSDEMFRM`, …)    |
//! |      8 |    4 | format version, `u32` little-endian (5)            |
//! |     12 |    8 | body length `n` \[bytes\], `u64` little-endian     |
//! |     20 |   32 | SHA-256 of the body                                |
//! |     52 |    n | body: `postcard(record)`                           |
//!
//! Files are written atomically (temporary file in the same folder + rename,
//! [`write_record`]). No `usize` is serialised. Reading ([`read_record`], [`decode`])
//! checks, in this order, the magic, the version (a file of an older version, e.g. a
//! version-2 file, which had no length and checksum, is refused as "format version 2, this
//! build reads version 5; rerun the solver …"), the length (a cut file is reported as
//! truncated), the checksum (an edited or damaged body is reported as a checksum mismatch)
//! and that the body decodes completely; every failure is a [`FrameError`] naming the
//! file, never a panic.
//!
//! Conventions: positions of bodies are the world positions of their centres of mass \[m\];
//! orientation quaternions are `[w, x, y, z]`; a mesh vertex `x` (mesh frame) is at
//! `position + R(orientation)·(x − com)` in the world, with `com` from the shape record.
//!
//! Modules: `records` (the record types), `io` (magics, version, encode/decode,
//! atomic read/write, paths), `error` ([`FrameError`]); everything is re-exported at the
//! crate root. [`lock`] is the output-folder lock the solver and the pipeline runner take
//! while they write a folder.
#![warn(missing_docs)]

mod error;
mod io;
pub mod lock;
pub mod lts;
mod records;
pub mod stream;
#[cfg(test)]
mod tests;

pub use error::FrameError;
pub use io::{
    checkpoint_path, decode, encode, frame_path, manifest_path, previous_checkpoint_path,
    read_record, stats_path, timings_path, write_record, CHECKPOINT_MAGIC, FORMAT_VERSION,
    FRAME_MAGIC, HEADER_LEN, MANIFEST_MAGIC, STATS_MAGIC, TIMINGS_MAGIC,
};
pub use records::{
    BodyLoad, BodyState, ContactRecord, Frame, ObstacleRecord, Other, ParticleRecord, PhaseTimes,
    RunManifest, ShapeRecord, StatsFile, StepStats, TimingsFile,
};
