//! Contact-detection phase of seed 001 §2.2 over a built [`Grid`]: the driver. The work is
//! cut into tasks (groups of z-planes of a dense level, or runs of entries of a folded
//! level), run in parallel, each into its own [`Sink`]; the packed pairs are then merged
//! and radix-sorted, so the output does not depend on the task split or thread count.
//! The per-cell and per-sphere searches themselves live in [`crate::sweep`].

use crate::cells::{Grid, BLOCK};
use crate::sweep::{search_folded, sweep_planes, top_down};
use crate::BroadPhaseStats;
use rayon::prelude::*;
use std::ops::Range;

/// Entries per parallel task; small enough that work stealing balances the expensive
/// large spheres (sorted last).
const CHUNK: usize = 4096;

/// Output of one task: packed pairs and counters.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    /// Packed pairs `i << shift | j`.
    pub pairs: Vec<u64>,
    /// Bits of the largest sphere index.
    pub shift: u32,
    /// Work counters.
    pub stats: BroadPhaseStats,
}

impl Sink {
    /// Tests sphere `p` (input index `pid`) against the entries `range`.
    #[inline(always)]
    pub fn test(&mut self, grid: &Grid, p: &[f64; 4], pid: u32, range: Range<usize>) {
        self.stats.sphere_tests += range.len() as u64;
        self.test_uncounted(grid, p, pid, range);
    }

    /// [`Sink::test`] without touching the counters (the caller counts).
    #[inline(always)]
    pub fn test_uncounted(&mut self, grid: &Grid, p: &[f64; 4], pid: u32, range: Range<usize>) {
        let first = range.start;
        for (k, o) in grid.pos[range].iter().enumerate() {
            let (dx, dy, dz) = (p[0] - o[0], p[1] - o[1], p[2] - o[2]);
            let rs = p[3] + o[3];
            if dx * dx + dy * dy + dz * dz <= rs * rs {
                self.push(pid, grid.ids[first + k]);
            }
        }
    }

    /// [`Sink::test_uncounted`] for runs of at most [`BLOCK`] entries: one fixed-size
    /// block, masked to the run, so the loop exit is not a data-dependent branch (short,
    /// random-length runs made those mispredictions the largest cost of the search).
    #[inline(always)]
    pub fn test_short(&mut self, grid: &Grid, p: &[f64; 4], pid: u32, range: Range<usize>) {
        let len = range.end - range.start;
        if len > BLOCK {
            self.test_uncounted(grid, p, pid, range);
            return;
        }
        let first = range.start;
        let block: &[[f64; 4]; BLOCK] = match grid.pos[first..first + BLOCK].try_into() {
            Ok(b) => b,
            Err(_) => return,
        };
        let mut mask = 0u32;
        for (k, o) in block.iter().enumerate() {
            let (dx, dy, dz) = (p[0] - o[0], p[1] - o[1], p[2] - o[2]);
            let rs = p[3] + o[3];
            let hit = dx * dx + dy * dy + dz * dz <= rs * rs;
            mask |= u32::from(hit & (k < len)) << k;
        }
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            self.push(pid, grid.ids[first + k]);
            mask &= mask - 1;
        }
    }

    /// As [`Sink::test`] on a folded level: only the entries that lie in `cell`.
    #[inline]
    pub fn test_in_cell(
        &mut self,
        grid: &Grid,
        p: &[f64; 4],
        pid: u32,
        range: Range<usize>,
        cell: [i64; 3],
    ) {
        for q in range {
            if grid.cells[q] == cell {
                self.test(grid, p, pid, q..q + 1);
            }
        }
    }

    #[inline(always)]
    fn push(&mut self, pid: u32, qid: u32) {
        let (i, j) = if pid < qid { (pid, qid) } else { (qid, pid) };
        self.pairs.push(u64::from(i) << self.shift | u64::from(j));
    }
}

/// One unit of parallel work.
#[derive(Clone, Debug)]
enum Task {
    /// Same-level sweep over the z-planes `z` of a dense level, then Top-Down for the
    /// entries of those planes.
    Planes { level: usize, z: Range<u64> },
    /// Per-sphere search of the entries `range` of a folded level.
    Entries { level: usize, range: Range<usize> },
}

/// Buffers reused between queries (no allocation per query once warm).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    tasks: Vec<Task>,
    sinks: Vec<Sink>,
    packed: Vec<u64>,
    radix: Vec<u64>,
}

impl Clone for Scratch {
    /// Scratch buffers carry no state: a clone starts empty.
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

/// Finds every overlapping pair of the grid's spheres (with their stored, possibly
/// inflated, radii), sorted ascending, each once as `(i, j)` with `i < j`.
pub(crate) fn find_all(
    grid: &Grid,
    scratch: &mut Scratch,
    out: &mut Vec<(u32, u32)>,
) -> BroadPhaseStats {
    let n = grid.ids.len();
    // Indices are < n ≤ 2^32, so two of them fit one u64 key.
    let shift = u64::BITS - (n as u64).leading_zeros();
    plan_tasks(grid, &mut scratch.tasks);
    let tasks = &scratch.tasks;
    scratch.sinks.truncate(tasks.len());
    scratch.sinks.resize_with(tasks.len(), Sink::default);
    let run = |(task, sink): (&Task, &mut Sink)| {
        sink.pairs.clear();
        sink.shift = shift;
        sink.stats = BroadPhaseStats::default();
        match task {
            Task::Planes { level, z } => {
                sweep_planes(grid, *level, z.clone(), sink);
                if *level > 0 {
                    let l = &grid.levels[*level];
                    let plane = (l.dims[0] * l.dims[1]) as usize;
                    let b0 = l.base + z.start as usize * plane;
                    let b1 = l.base + z.end as usize * plane;
                    for pos in grid.start[b0] as usize..grid.start[b1] as usize {
                        top_down(grid, *level, pos, sink);
                    }
                }
            }
            Task::Entries { level, range } => {
                for pos in range.clone() {
                    search_folded(grid, *level, pos, sink);
                    top_down(grid, *level, pos, sink);
                }
            }
        }
    };
    if n < crate::PARALLEL_MIN {
        tasks.iter().zip(scratch.sinks.iter_mut()).for_each(run);
    } else {
        tasks
            .par_iter()
            .zip(scratch.sinks.par_iter_mut())
            .for_each(run);
    }
    let mut stats = BroadPhaseStats {
        rebuilt: true,
        ..Default::default()
    };
    let packed = &mut scratch.packed;
    packed.clear();
    for sink in &scratch.sinks {
        packed.extend_from_slice(&sink.pairs);
        stats.merge(&sink.stats);
    }
    crate::radix::sort_unpack(packed, shift, &mut scratch.radix, out);
    stats
}

/// Cuts the grid into tasks of about [`CHUNK`] entries: whole z-planes of dense levels,
/// entry runs of folded ones.
fn plan_tasks(grid: &Grid, tasks: &mut Vec<Task>) {
    tasks.clear();
    for (level, l) in grid.levels.iter().enumerate() {
        if l.count == 0 {
            continue;
        }
        if !l.dense {
            let end = l.first + l.count;
            let mut at = l.first;
            while at < end {
                let next = (at + CHUNK).min(end);
                tasks.push(Task::Entries {
                    level,
                    range: at..next,
                });
                at = next;
            }
            continue;
        }
        let plane = (l.dims[0] * l.dims[1]) as usize;
        let entry = |z: u64| grid.start[l.base + z as usize * plane] as usize;
        let mut z0 = 0;
        for z in 1..=l.dims[2] {
            if z == l.dims[2] || entry(z) - entry(z0) >= CHUNK {
                tasks.push(Task::Planes { level, z: z0..z });
                z0 = z;
            }
        }
    }
}
