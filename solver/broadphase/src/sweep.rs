//! The searches of seed 001 §2.2 over a built [`Grid`]: same-level search over the own cell
//! and half of the 26 neighbours, and the **Top-Down** cross-level search (each sphere scans
//! only the levels of smaller spheres, eqs. 4–5).
//!
//! On a dense level the same-level search runs **per occupied cell**, not per sphere: the
//! cells are swept in storage order (x fastest), the stencil rows are looked up once per
//! cell and every sphere of the cell is tested against them. The cells `x−1..=x+1` of a
//! row are one contiguous run of entries, so the half stencil is the rest of the own cell
//! plus cell `x+1` (one run) and four runs of three cells; rows holding no sphere are
//! dropped once per row. A cross-level box is one run per row.

use crate::cells::{cell_coord, Grid, FIT_MARGIN};
use crate::search::Sink;
use std::ops::Range;

/// The 13 neighbour offsets that are lexicographically positive in (z, y, x): together with
/// their negatives they are the 26 neighbours, so each neighbouring cell pair is visited
/// exactly once (seed 001 §2.2, "only half of the surrounding cells").
pub(crate) const HALF_NEIGHBOURS: [[i64; 3]; 13] = [
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
const HALF_ROWS: [[u64; 2]; 4] = [[1, 0], [u64::MAX, 1], [0, 1], [1, 1]];

/// Cells of the half stencil, own cell included.
const STENCIL_CELLS: u64 = 1 + HALF_NEIGHBOURS.len() as u64;

/// Same-level search of the z-planes `zs` of the dense `level`, cell by occupied cell.
pub(crate) fn sweep_planes(grid: &Grid, level: usize, zs: Range<u64>, sink: &mut Sink) {
    let l = &grid.levels[level];
    let [nx, ny, nz] = l.dims;
    let start = &grid.start;
    let at = |b: usize| start[b] as usize;
    let row_of = |y: u64, z: u64| l.base + (nx * (y + ny * z)) as usize;
    let last = nx as usize - 1;
    let (mut cells, mut tests) = (0u64, 0u64);
    for z in zs {
        for y in 0..ny {
            let rb = row_of(y, z);
            if at(rb) == at(rb + nx as usize) {
                continue;
            }
            // Neighbour rows holding at least one sphere.
            let mut rows = [0usize; 4];
            let mut used = 0;
            for [dy, dz] in HALF_ROWS {
                let (yy, zz) = (y.wrapping_add(dy), z + dz);
                if yy < ny && zz < nz {
                    let r = row_of(yy, zz);
                    if at(r) != at(r + nx as usize) {
                        rows[used] = r;
                        used += 1;
                    }
                }
            }
            let rows = &rows[..used];
            // Occupied cells only: each run of entries of one cell, found from the first
            // entry's x cell.
            let (mut p, re) = (at(rb), at(rb + nx as usize));
            while p < re {
                let x = (cell_coord(grid.pos[p][0], l.inv) - l.lo[0]) as usize;
                let b = rb + x;
                let e = at(b + 1);
                let own_end = if x < last { at(b + 2) } else { e };
                let (x0, x1) = (x.saturating_sub(1), (x + 1).min(last));
                let mut runs = [0..0, 0..0, 0..0, 0..0];
                let mut run_len = 0;
                for (run, &r) in runs.iter_mut().zip(rows) {
                    *run = at(r + x0)..at(r + x1 + 1);
                    run_len += run.len();
                }
                let runs = &runs[..rows.len()];
                let k = (e - p) as u64;
                cells += 1;
                // Within the cell: k(k−1)/2 tests; the rest: k × (cell x+1 and the rows).
                tests += k * (k - 1) / 2 + k * ((own_end - e + run_len) as u64);
                for q in p..e {
                    let (pq, qid) = (grid.pos[q], grid.ids[q]);
                    sink.test_short(grid, &pq, qid, q + 1..own_end);
                    for run in runs {
                        sink.test_short(grid, &pq, qid, run.clone());
                    }
                }
                p = e;
            }
        }
    }
    sink.stats.cell_visits += cells * STENCIL_CELLS;
    sink.stats.sphere_tests += tests;
}

/// Same-level search of the entry at `pos` on the folded `level`: the rest of its own cell
/// and the 13 forward neighbours, each filtered on the exact cell key.
pub(crate) fn search_folded(grid: &Grid, level: usize, pos: usize, sink: &mut Sink) {
    let p = grid.pos[pos];
    let pid = grid.ids[pos];
    let [x, y, z] = grid.levels[level].cell_of(&[p[0], p[1], p[2]]);
    let own = grid.bucket(level, [x, y, z]);
    sink.stats.cell_visits += STENCIL_CELLS;
    sink.test_in_cell(grid, &p, pid, pos + 1..own.end, [x, y, z]);
    for d in HALF_NEIGHBOURS {
        let cell = [x + d[0], y + d[1], z + d[2]];
        let r = grid.bucket(level, cell);
        sink.test_in_cell(grid, &p, pid, r, cell);
    }
}

/// Top-Down search of the entry at `pos` (on `level`): the levels of smaller spheres that
/// hold any, over the cells overlapping its enlarged box (eqs. 4–5).
pub(crate) fn top_down(grid: &Grid, level: usize, pos: usize, sink: &mut Sink) {
    let p = grid.pos[pos];
    let pid = grid.ids[pos];
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
                    sink.stats.sphere_tests += r.len() as u64;
                    sink.test_short(grid, &p, pid, r);
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
