//! Contact-detection phase of seed 001 §2.2 over a built [`Grid`]: same-level search over
//! the own cell and half of the 26 neighbours, then the **Top-Down** cross-level search
//! (each sphere scans only the levels of smaller spheres, eqs. 4–5).
//!
//! On a dense level the cells `x−1..=x+1` of a row are one contiguous run of entries, so
//! the half stencil is five runs and a cross-level box one run per row.

use crate::cells::{cell_coord, Grid, FIT_MARGIN};
use crate::BroadPhaseStats;
use rayon::prelude::*;
use std::ops::Range;

/// The 13 neighbour offsets that are lexicographically positive in (z, y, x): together with
/// their negatives they are the 26 neighbours, so each neighbouring cell pair is visited
/// exactly once (seed 001 §2.2, "only half of the surrounding cells").
const HALF_NEIGHBOURS: [[i64; 3]; 13] = [
    [1, 0, 0],
    [-1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
    [-1, -1, 1],
    [0, -1, 1],
    [1, -1, 1],
    [-1, 0, 1],
    [0, 0, 1],
    [1, 0, 1],
    [-1, 1, 1],
    [0, 1, 1],
    [1, 1, 1],
];

/// The rows `(dy, dz)` of the half stencil other than the own row, each searched over
/// `x−1..=x+1`.
const HALF_ROWS: [[i64; 2]; 4] = [[1, 0], [-1, 1], [0, 1], [1, 1]];

/// Spheres per parallel task; small enough that work stealing balances the expensive
/// large spheres (sorted last).
const CHUNK: usize = 4096;

/// Per-task output: packed pairs and counters.
struct Sink {
    /// Packed pairs `i << shift | j`.
    pairs: Vec<u64>,
    /// Bits of the largest sphere index.
    shift: u32,
    stats: BroadPhaseStats,
}

impl Sink {
    /// Tests sphere `p` (input index `pid`) against the entries `range` of a dense level.
    #[inline(always)]
    fn test(&mut self, grid: &Grid, p: &[f64; 4], pid: u32, range: Range<usize>) {
        self.stats.sphere_tests += range.len() as u64;
        for (o, &qid) in grid.pos[range.clone()].iter().zip(&grid.ids[range]) {
            let (dx, dy, dz) = (p[0] - o[0], p[1] - o[1], p[2] - o[2]);
            let rs = p[3] + o[3];
            if dx * dx + dy * dy + dz * dz <= rs * rs {
                self.push(pid, qid);
            }
        }
    }

    /// As [`Sink::test`] on a folded level: only the entries that lie in `cell`.
    #[inline]
    fn test_in_cell(
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

/// Finds every overlapping pair of the grid's spheres (with their stored, possibly
/// inflated, radii), sorted ascending, each once as `(i, j)` with `i < j`.
pub(crate) fn find_all(grid: &Grid, out: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
    let n = grid.pos.len();
    let chunks = n.div_ceil(CHUNK);
    // Indices are < n ≤ 2^32, so two of them fit one u64 key.
    let shift = u64::BITS - (n as u64).leading_zeros();
    let task = |c: usize| {
        let mut sink = Sink {
            pairs: Vec::new(),
            shift,
            stats: BroadPhaseStats::default(),
        };
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        for (h, l) in grid.levels.iter().enumerate() {
            let lo = range.start.max(l.first);
            let hi = range.end.min(l.first + l.count);
            for pos in lo..hi {
                search_one(grid, h, pos, &mut sink);
            }
        }
        sink
    };
    let parts: Vec<Sink> = if chunks <= 1 {
        (0..chunks).map(task).collect()
    } else {
        (0..chunks).into_par_iter().map(task).collect()
    };
    let mut stats = BroadPhaseStats {
        rebuilt: true,
        ..Default::default()
    };
    let mut packed = Vec::with_capacity(parts.iter().map(|p| p.pairs.len()).sum());
    for part in &parts {
        packed.extend_from_slice(&part.pairs);
        stats.merge(&part.stats);
    }
    crate::radix::sort_keys(&mut packed, 2 * shift, &mut Vec::new());
    let low = (1u64 << shift) - 1;
    out.clear();
    out.extend(
        packed
            .iter()
            .map(|&k| ((k >> shift) as u32, (k & low) as u32)),
    );
    stats
}

/// All pairs in which the entry at `pos` (on `level`) is the searching side.
fn search_one(grid: &Grid, level: usize, pos: usize, sink: &mut Sink) {
    let p = grid.pos[pos];
    let pid = grid.ids[pos];
    let l = &grid.levels[level];
    let [x, y, z] = l.cell_of(&[p[0], p[1], p[2]]);

    if l.dense {
        // Own cell after `pos`, and the next cell of the row: one run.
        let own = grid.row(level, x, x + 1, y, z);
        sink.stats.cell_visits += 2;
        sink.test(grid, &p, pid, pos + 1..own.end);
        for [dy, dz] in HALF_ROWS {
            sink.stats.cell_visits += 3;
            let r = grid.row(level, x - 1, x + 1, y + dy, z + dz);
            sink.test(grid, &p, pid, r);
        }
    } else {
        let own = grid.bucket(level, [x, y, z]);
        sink.stats.cell_visits += 1;
        sink.test_in_cell(grid, &p, pid, pos + 1..own.end, [x, y, z]);
        for d in HALF_NEIGHBOURS {
            let cell = [x + d[0], y + d[1], z + d[2]];
            sink.stats.cell_visits += 1;
            let r = grid.bucket(level, cell);
            sink.test_in_cell(grid, &p, pid, r, cell);
        }
    }

    // Top-Down: levels of smaller spheres only, cells overlapping the enlarged box.
    for (j, lj) in grid.levels[..level].iter().enumerate() {
        if lj.count == 0 {
            continue;
        }
        let beta = p[3] + lj.size * (0.5 + FIT_MARGIN);
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        let mut empty = false;
        for a in 0..3 {
            let a_lo = cell_coord(p[a] - beta, lj.inv).max(lj.lo[a]);
            let a_hi = cell_coord(p[a] + beta, lj.inv).min(lj.hi[a]);
            if a_lo > a_hi {
                empty = true;
                break;
            }
            lo[a] = a_lo;
            hi[a] = a_hi;
        }
        if empty {
            continue;
        }
        let row_cells = (hi[0] - lo[0] + 1) as u64;
        for cz in lo[2]..=hi[2] {
            for cy in lo[1]..=hi[1] {
                sink.stats.cell_visits += row_cells;
                if lj.dense {
                    let r = grid.row(j, lo[0], hi[0], cy, cz);
                    sink.test(grid, &p, pid, r);
                } else {
                    for cx in lo[0]..=hi[0] {
                        let cell = [cx, cy, cz];
                        let r = grid.bucket(j, cell);
                        sink.test_in_cell(grid, &p, pid, r, cell);
                    }
                }
            }
        }
    }
}
