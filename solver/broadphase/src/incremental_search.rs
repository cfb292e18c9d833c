//! Pair search over an [`IncrementalHGrid`] (seed 001 §2.2): per occupied cell, its own
//! pairs and the 13 forward neighbour cells as blocks, then the Top-Down cross-level search
//! for each of its spheres. Output as for [`crate::BroadPhase::find_pairs`], by id.

use crate::cells::{cell_coord, FIT_MARGIN};
use crate::hgrid::auto_cell_sizes;
use crate::incremental::{Bucket, CellKey, ILevel, IncrementalHGrid};
use crate::sweep::HALF_NEIGHBOURS;
use crate::{validate, BroadPhase, BroadPhaseError, BroadPhaseStats, Sphere};
use rayon::prelude::*;

/// Occupied cells per parallel task.
const CELLS_PER_TASK: usize = 2048;

/// Pairs and counters of one task.
struct Part {
    pairs: Vec<u64>,
    stats: BroadPhaseStats,
    shift: u32,
}

impl Part {
    /// Tests sphere `p` (id `pid`) against every sphere of `b`, from position `from` on.
    #[inline]
    fn test(&mut self, p: &[f64; 4], pid: u32, b: &Bucket, from: usize) {
        self.stats.sphere_tests += (b.ids.len() - from) as u64;
        for (o, &qid) in b.pos[from..].iter().zip(&b.ids[from..]) {
            let (dx, dy, dz) = (p[0] - o[0], p[1] - o[1], p[2] - o[2]);
            let rs = p[3] + o[3];
            if dx * dx + dy * dy + dz * dz <= rs * rs {
                let (i, j) = if pid < qid { (pid, qid) } else { (qid, pid) };
                self.pairs.push(u64::from(i) << self.shift | u64::from(j));
            }
        }
    }
}

impl IncrementalHGrid {
    /// Clears `out` and fills it with every overlapping pair of ids `(i, j)`, `i < j`
    /// (`|c_i − c_j| ≤ r_i + r_j`), sorted ascending, each once; deterministic (does not
    /// depend on the insertion history or thread count). Cannot fail: every sphere was
    /// checked when it was inserted.
    pub fn find_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        // Ids are ≤ the largest slot, so two of them fit one u64 key.
        let max_id = self.id_bound().saturating_sub(1) as u64;
        let shift = u64::BITS - max_id.leading_zeros();
        let mut stats = BroadPhaseStats {
            rebuilt: true,
            ..Default::default()
        };
        let (mut packed, mut radix) = std::mem::take(&mut self.scratch);
        packed.clear();
        let levels = &self.levels;
        for (h, level) in levels.iter().enumerate() {
            if level.count == 0 {
                continue;
            }
            let task = |buckets: &[Bucket]| {
                let mut part = Part {
                    pairs: Vec::new(),
                    stats: BroadPhaseStats::default(),
                    shift,
                };
                for b in buckets.iter().filter(|b| !b.ids.is_empty()) {
                    search_cell(levels, h, b, &mut part);
                }
                part
            };
            if level.count < crate::PARALLEL_MIN {
                let part = task(&level.buckets);
                packed.extend_from_slice(&part.pairs);
                stats.merge(&part.stats);
            } else {
                let parts: Vec<Part> = level.buckets.par_chunks(CELLS_PER_TASK).map(task).collect();
                for part in &parts {
                    packed.extend_from_slice(&part.pairs);
                    stats.merge(&part.stats);
                }
            }
        }
        crate::radix::sort_unpack(&mut packed, shift, &mut radix, out);
        self.scratch = (packed, radix);
        self.stats = stats;
    }
}

/// Same-level and Top-Down search of one occupied cell `b` on level `h`.
fn search_cell(levels: &[ILevel], h: usize, b: &Bucket, part: &mut Part) {
    let l = &levels[h];
    let [x, y, z] = b.cell;
    part.stats.cell_visits += 1 + HALF_NEIGHBOURS.len() as u64;
    for (i, (p, &pid)) in b.pos.iter().zip(&b.ids).enumerate() {
        part.test(p, pid, b, i + 1);
    }
    for d in HALF_NEIGHBOURS {
        if let Some(&nb) = l.cells.get(&CellKey([x + d[0], y + d[1], z + d[2]])) {
            let nb = &l.buckets[nb as usize];
            for (p, &pid) in b.pos.iter().zip(&b.ids) {
                part.test(p, pid, nb, 0);
            }
        }
    }
    for (p, &pid) in b.pos.iter().zip(&b.ids) {
        for lj in levels[..h].iter().filter(|lj| lj.count > 0) {
            top_down(lj, p, pid, part);
        }
    }
}

/// Top-Down search of sphere `p` on the lower level `lj` (eqs. 4–5): the cells its enlarged
/// box overlaps, or — when that box has more cells than the level has occupied ones — the
/// occupied cells inside the box.
fn top_down(lj: &ILevel, p: &[f64; 4], pid: u32, part: &mut Part) {
    let beta = p[3] + lj.size * (0.5 + FIT_MARGIN);
    let lo: [i64; 3] = std::array::from_fn(|a| cell_coord(p[a] - beta, lj.inv));
    let hi: [i64; 3] = std::array::from_fn(|a| cell_coord(p[a] + beta, lj.inv));
    let box_cells = (0..3).fold(1u64, |n, a| n.saturating_mul((hi[a] - lo[a]) as u64 + 1));
    if box_cells > lj.cells.len() as u64 {
        part.stats.cell_visits += lj.cells.len() as u64;
        for b in lj.buckets.iter().filter(|b| !b.ids.is_empty()) {
            if (0..3).all(|a| (lo[a]..=hi[a]).contains(&b.cell[a])) {
                part.test(p, pid, b, 0);
            }
        }
        return;
    }
    part.stats.cell_visits += box_cells;
    for cz in lo[2]..=hi[2] {
        for cy in lo[1]..=hi[1] {
            for cx in lo[0]..=hi[0] {
                if let Some(&b) = lj.cells.get(&CellKey([cx, cy, cz])) {
                    part.test(p, pid, &lj.buckets[b as usize], 0);
                }
            }
        }
    }
}

impl BroadPhase for IncrementalHGrid {
    /// Synchronises the grid to `spheres` (ids = indices; O(1) per unchanged-cell move) and
    /// searches it. On invalid input returns the error of the lowest offending index with
    /// the grid unchanged and `out` empty.
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        out.clear();
        self.stats = BroadPhaseStats::default();
        validate(spheres)?;
        if self.auto && self.levels.is_empty() && !spheres.is_empty() {
            for size in auto_cell_sizes(spheres, 0.0, self.plan_levels) {
                self.push_level(size);
            }
        }
        // Every placement is checked before anything changes.
        for (i, s) in spheres.iter().enumerate() {
            self.locate(i as u32, s)?;
        }
        for (i, s) in spheres.iter().enumerate() {
            let id = i as u32;
            if self.contains(id) {
                self.update(id, *s)?;
            } else {
                self.insert(id, *s)?;
            }
        }
        for id in spheres.len()..self.id_bound() {
            if self.contains(id as u32) {
                self.remove(id as u32)?;
            }
        }
        IncrementalHGrid::find_pairs(self, out);
        Ok(())
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }
}
