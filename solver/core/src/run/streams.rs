//! The per-step output files of a run, streamed (issue 16): `stats.msdem`, `timings.msdem`
//! and, for the local time stepping integrators, `lts.msdem` and `lts_timings.msdem`,
//! appended in chunks of [`CHUNK_STEPS`] steps ([`crate::frames::stream`]). The run holds
//! at most one chunk per file in memory, however long it runs; a checkpoint stores each
//! file's written length and the steps buffered since ([`Marks`]), so a resumed run cuts
//! the files back to the checkpoint and writes the same bytes as an uninterrupted run.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::SolverError;
use crate::frames::lts::{
    lts_stats_path, lts_timings_path, LtsPhaseTimes, LtsStepStats, LTS_STATS_MAGIC,
    LTS_TIMINGS_MAGIC,
};
use crate::frames::stream::{StreamWriter, CHUNK_STEPS};
use crate::frames::{self, PhaseTimes, StepStats, STATS_MAGIC, TIMINGS_MAGIC};

/// Where one streamed file stood at a checkpoint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Mark<T> {
    /// Bytes written: header and complete chunks.
    pub len: u64,
    /// Records buffered since the last chunk (fewer than [`CHUNK_STEPS`]).
    pub pending: Vec<T>,
}

/// The marks of every streamed file (`None`: the run does not write that file).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Marks {
    /// `stats.msdem`.
    pub stats: Option<Mark<StepStats>>,
    /// `timings.msdem`.
    pub timings: Option<Mark<PhaseTimes>>,
    /// `lts.msdem`.
    pub lts: Option<Mark<LtsStepStats>>,
    /// `lts_timings.msdem`.
    pub lts_timings: Option<Mark<LtsPhaseTimes>>,
}

/// The streamed files of a run being written.
pub struct Streams {
    stats: StreamWriter<StepStats>,
    timings: Option<StreamWriter<PhaseTimes>>,
    lts: Option<StreamWriter<LtsStepStats>>,
    lts_timings: Option<StreamWriter<LtsPhaseTimes>>,
    wall_times: bool,
    /// Most records ever buffered in one file (the memory test's witness).
    peak_buffered: usize,
}

fn mark<T: Clone>(w: &Option<StreamWriter<T>>) -> Option<Mark<T>> {
    w.as_ref().map(|w| Mark {
        len: w.len(),
        pending: w.pending().to_vec(),
    })
}

impl Streams {
    /// Starts the files of a new run in `out` (`timings.msdem` only with `wall_times`).
    pub fn create(out: &Path, wall_times: bool) -> Result<Streams, SolverError> {
        let timings = match wall_times {
            true => Some(StreamWriter::create(
                &frames::timings_path(out),
                &TIMINGS_MAGIC,
            )?),
            false => None,
        };
        Ok(Streams {
            stats: StreamWriter::create(&frames::stats_path(out), &STATS_MAGIC)?,
            timings,
            lts: None,
            lts_timings: None,
            wall_times,
            peak_buffered: 0,
        })
    }

    /// Continues the files of `out` from a checkpoint's `marks`, cutting what the killed
    /// run wrote after it; calls `each` with the statistics of every step before the
    /// checkpoint, in order (kept chunks, then the buffered steps).
    pub fn resume(
        out: &Path,
        marks: Marks,
        wall_times: bool,
        mut each: impl FnMut(&StepStats),
    ) -> Result<Streams, SolverError> {
        let Some(stats) = marks.stats else {
            return Err(SolverError::Output {
                path: frames::checkpoint_path(out),
                message: "checkpoint without statistics".to_owned(),
            });
        };
        let pending = stats.pending.clone();
        let stats = StreamWriter::reopen(
            &frames::stats_path(out),
            &STATS_MAGIC,
            stats.len,
            stats.pending,
            &mut each,
        )?;
        pending.iter().for_each(&mut each);
        let timings = match (wall_times, marks.timings) {
            (true, Some(m)) => Some(StreamWriter::reopen(
                &frames::timings_path(out),
                &TIMINGS_MAGIC,
                m.len,
                m.pending,
                |_| {},
            )?),
            // The checkpointed run kept no wall times: they start now.
            (true, None) => Some(StreamWriter::create(
                &frames::timings_path(out),
                &TIMINGS_MAGIC,
            )?),
            (false, _) => None,
        };
        let lts = match marks.lts {
            Some(m) => Some(StreamWriter::reopen(
                &lts_stats_path(out),
                &LTS_STATS_MAGIC,
                m.len,
                m.pending,
                |_| {},
            )?),
            None => None,
        };
        let lts_timings = match (wall_times, marks.lts_timings) {
            (true, Some(m)) => Some(StreamWriter::reopen(
                &lts_timings_path(out),
                &LTS_TIMINGS_MAGIC,
                m.len,
                m.pending,
                |_| {},
            )?),
            _ => None,
        };
        Ok(Streams {
            stats,
            timings,
            lts,
            lts_timings,
            wall_times,
            peak_buffered: 0,
        })
    }

    /// Buffers the records of step `step` and ends a chunk after every multiple of
    /// [`CHUNK_STEPS`]. `lts`: the local time stepping records of the step, if any (their
    /// files are created at the first).
    pub fn push(
        &mut self,
        out: &Path,
        step: StepStats,
        wall: PhaseTimes,
        lts: Option<(LtsStepStats, LtsPhaseTimes)>,
    ) -> Result<(), SolverError> {
        let n = step.step;
        self.stats.push(step);
        if let Some(t) = &mut self.timings {
            t.push(wall);
        }
        if let Some((s, w)) = lts {
            if self.lts.is_none() {
                self.lts = Some(StreamWriter::create(
                    &lts_stats_path(out),
                    &LTS_STATS_MAGIC,
                )?);
                if self.wall_times {
                    self.lts_timings = Some(StreamWriter::create(
                        &lts_timings_path(out),
                        &LTS_TIMINGS_MAGIC,
                    )?);
                }
            }
            if let Some(l) = &mut self.lts {
                l.push(s);
            }
            if let Some(l) = &mut self.lts_timings {
                l.push(w);
            }
        }
        self.peak_buffered = self.peak_buffered.max(self.stats.pending().len());
        if n % CHUNK_STEPS == 0 {
            self.end_chunks()?;
        }
        Ok(())
    }

    /// Writes every buffered record (the end of the run, or of a failed one).
    pub fn end_chunks(&mut self) -> Result<(), SolverError> {
        self.stats.end_chunk()?;
        if let Some(t) = &mut self.timings {
            t.end_chunk()?;
        }
        if let Some(l) = &mut self.lts {
            l.end_chunk()?;
        }
        if let Some(l) = &mut self.lts_timings {
            l.end_chunk()?;
        }
        Ok(())
    }

    /// Forces the written chunks to disk and returns the marks for a checkpoint.
    pub fn marks(&self) -> Result<Marks, SolverError> {
        self.stats.sync()?;
        for w in [&self.timings].into_iter().flatten() {
            w.sync()?;
        }
        for w in [&self.lts].into_iter().flatten() {
            w.sync()?;
        }
        for w in [&self.lts_timings].into_iter().flatten() {
            w.sync()?;
        }
        Ok(Marks {
            stats: Some(Mark {
                len: self.stats.len(),
                pending: self.stats.pending().to_vec(),
            }),
            timings: mark(&self.timings),
            lts: mark(&self.lts),
            lts_timings: mark(&self.lts_timings),
        })
    }

    /// Most steps ever buffered in memory at once (≤ [`CHUNK_STEPS`]).
    pub fn peak_buffered(&self) -> usize {
        self.peak_buffered
    }
}
