//! Contact-detection phase of seed 001 §2.2 over a built [`Grid`]: same-level search over
//! the own cell and half of the 26 neighbours, then the **Top-Down** cross-level search
//! (each sphere scans only the levels of smaller spheres, eqs. 4–5).

use crate::cells::{cell_coord, Entry, Grid, FIT_MARGIN};
use crate::sphere::overlap_raw;
use crate::BroadPhaseStats;
use rayon::prelude::*;

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

/// Spheres per parallel task; small enough that work stealing balances the expensive
/// large spheres (sorted last).
const CHUNK: usize = 2048;

/// Finds every overlapping pair of the grid's spheres (with their stored, possibly
/// inflated, radii), sorted ascending, each once as `(i, j)` with `i < j`.
pub(crate) fn find_all(grid: &Grid, out: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
    let n = grid.entries.len();
    let chunks = n.div_ceil(CHUNK);
    let parts: Vec<(Vec<(u32, u32)>, BroadPhaseStats)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut pairs = Vec::new();
            let mut stats = BroadPhaseStats::default();
            for pos in c * CHUNK..((c + 1) * CHUNK).min(n) {
                search_one(grid, pos, &mut pairs, &mut stats);
            }
            (pairs, stats)
        })
        .collect();
    let mut stats = BroadPhaseStats {
        rebuilt: true,
        ..Default::default()
    };
    out.clear();
    out.reserve(parts.iter().map(|p| p.0.len()).sum());
    for (pairs, s) in &parts {
        out.extend_from_slice(pairs);
        stats.merge(s);
    }
    out.par_sort_unstable();
    stats
}

/// Tests `p` against every entry of `cands` that lies in `cell`.
#[inline]
fn test_cell(
    p: &Entry,
    cands: &[Entry],
    cell: [i64; 3],
    out: &mut Vec<(u32, u32)>,
    stats: &mut BroadPhaseStats,
) {
    for q in cands {
        if q.cell != cell {
            continue;
        }
        stats.sphere_tests += 1;
        if overlap_raw(&p.c, p.r, &q.c, q.r) {
            out.push(if p.id < q.id {
                (p.id, q.id)
            } else {
                (q.id, p.id)
            });
        }
    }
}

/// All pairs in which the entry at `pos` is the searching side.
fn search_one(grid: &Grid, pos: usize, out: &mut Vec<(u32, u32)>, stats: &mut BroadPhaseStats) {
    let p = grid.entries[pos];
    let level = p.level as usize;

    // Same cell: only the entries after `p`, so each pair once.
    stats.cell_visits += 1;
    test_cell(&p, grid.rest_of_bucket(pos), p.cell, out, stats);
    // Half of the neighbouring cells.
    for d in HALF_NEIGHBOURS {
        let cell = [p.cell[0] + d[0], p.cell[1] + d[1], p.cell[2] + d[2]];
        stats.cell_visits += 1;
        test_cell(&p, grid.bucket(level, cell), cell, out, stats);
    }
    // Top-Down: levels of smaller spheres only, cells overlapping the enlarged box.
    for j in 0..level {
        let l = &grid.levels[j];
        if l.count == 0 {
            continue;
        }
        let beta = p.r + l.size * (0.5 + FIT_MARGIN);
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        let mut empty = false;
        for a in 0..3 {
            let a_lo = cell_coord(p.c[a] - beta, l.inv).max(l.lo[a] as f64);
            let a_hi = cell_coord(p.c[a] + beta, l.inv).min(l.hi[a] as f64);
            if a_lo > a_hi {
                empty = true;
                break;
            }
            lo[a] = a_lo as i64;
            hi[a] = a_hi as i64;
        }
        if empty {
            continue;
        }
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    let cell = [x, y, z];
                    stats.cell_visits += 1;
                    test_cell(&p, grid.bucket(j, cell), cell, out, stats);
                }
            }
        }
    }
}
