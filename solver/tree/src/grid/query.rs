//! The pair-set query on a cell grid (issue 15): which real triangle pairs of A and B lie
//! within the margin `ε_a + ε_b`, with A's triangles indexed by a [`CellGrid`] built once
//! per body instead of A's tree being descended.
//!
//! 1. Root test: B's root node box, posed into A's frame, against A's grid box (what a far
//!    pose costs; nothing is cleared or allocated before it).
//! 2. B's tree is descended top-down (node boxes, [`NodeBoxes`]); each node's box, posed
//!    into A's frame (`|R|·extent`, `node_box.rs`) and grown by the margin, is dropped when
//!    it misses A's box or when A's summed-volume table says its block of cells lists no
//!    triangle (eight look-ups).
//! 3. At a leaf, each B triangle is transformed into A's frame (as the tree query does,
//!    [`msdem_geom::math::Tri::transformed`]), its box grown by the margin, and A's
//!    triangles listed in the covered cells (each once: a per-triangle stamp) whose boxes
//!    meet it form the candidate pairs.
//! 4. Candidates go, in chunks, through the decision kernel
//!    ([`msdem_geom::kernel::PairBatch::decide`]); the undecided ones to the hybrid kernel
//!    (iterative with the exact fallback, seed 000 Cor. 5.3) — the decisions of
//!    [`crate::find_pairs_boxed`], so both return the same set.
//!
//! **Conservative screens.** Every box test allows `margin + 10⁻⁵·(margin + M)` (`M` the
//! largest absolute coordinate involved), far above the `f32` rounding of the sums; posed
//! node boxes already contain B's `f32`-transformed triangles (`node_box.rs`); the cell
//! indexing is exact (`cells.rs`). So a pair whose `f32` triangles are within the margin
//! is always a candidate, and the kernels decide it as the tree query does.

use super::cells::CellGrid;
use crate::node_box::{box_mag, boxes_apart, posed_by, Aabb, NodeBoxes};
use crate::pairs::TriPair;
use crate::traverse::LevelStats;
use crate::tree::SurrogateTree;
use msdem_geom::kernel::{
    IterativeParams, KernelKind, KernelResult, PairBatch, PairOutcome, Within,
};
use msdem_geom::math::{Iso3, Tri};

/// Candidate pairs per decision chunk (bounds the batch's memory on dense contacts).
const CHUNK: usize = 1024;

/// Reusable buffers of [`find_pairs_grid`] (keep one per thread).
#[derive(Debug, Default)]
pub struct GridScratch {
    stack: Vec<u32>,
    stamp: Vec<u32>,
    cur: u32,
    fine: PairBatch<u32>,
    tags: Vec<(u32, u32)>,
    within: Vec<Within>,
    batch: PairBatch<u32>,
    results: Vec<PairOutcome<u32>>,
}

impl GridScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh stamp for one B triangle's listing (stamps sized to `n` A triangles).
    #[inline]
    fn next_stamp(&mut self, n: usize) -> u32 {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
        self.cur = self.cur.wrapping_add(1);
        if self.cur == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.cur = 1;
        }
        self.cur
    }
}

/// Box `b` grown by `m` \[m\] on every side.
#[inline]
fn grown(b: &Aabb, m: f32) -> Aabb {
    (b.0.map(|x| x - m), b.1.map(|x| x + m))
}

/// Whether closed boxes `a` and `b` meet.
#[inline]
fn meet(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k])
}

/// Box of a triangle.
#[inline]
fn tri_box(t: &Tri) -> Aabb {
    let v = &t.v;
    (
        [0, 1, 2].map(|k| v[0][k].min(v[1][k]).min(v[2][k])),
        [0, 1, 2].map(|k| v[0][k].max(v[1][k]).max(v[2][k])),
    )
}

/// Appends to `out` every pair of real triangles of `a` (halo `eps_a` \[m\]; `grid` must be
/// [`CellGrid::of`] that tree) and `b` (halo `eps_b` \[m\]), B posed by `b_to_a` (B's mesh
/// frame → A's), whose distance is at most `eps_a + eps_b`: the set
/// [`crate::find_pairs_boxed`] returns (soup indices; another order). `boxes_b` should be
/// [`NodeBoxes::of`] B's tree; boxes of another tree (a length mismatch) are ignored and
/// every B triangle is listed against the grid (the same pairs, more work). Candidate
/// pairs are counted in `stats.fine` (and level 0 of `stats.checks`), hybrid fallbacks in
/// `stats.fallbacks`.
#[allow(clippy::too_many_arguments)]
pub fn find_pairs_grid(
    (a, grid): (&SurrogateTree, &CellGrid),
    eps_a: f32,
    (b, boxes_b): (&SurrogateTree, &NodeBoxes),
    eps_b: f32,
    b_to_a: &Iso3,
    s: &mut GridScratch,
    out: &mut Vec<TriPair>,
    stats: &mut LevelStats,
) {
    let margin = eps_a + eps_b;
    let g_box: Aabb = (grid.lo, grid.hi);
    let rot = b_to_a.rotation.to_rotation_matrix().into_inner();
    let boxed = boxes_b.boxes.len() == b.nodes.len() && !b.nodes.is_empty();
    if boxed && boxes_apart(&g_box, &posed_by(&boxes_b.boxes[0], b_to_a, &rot), margin) {
        return;
    }
    if grid.tri_box.is_empty() || b.nodes.is_empty() {
        return;
    }
    let slack = |m: f32| margin + 1e-5 * (margin + grid.mag.max(m));
    s.fine.clear();
    s.tags.clear();
    s.stack.clear();
    s.stack.push(0);
    while let Some(n) = s.stack.pop() {
        let Some(node) = b.nodes.get(n as usize) else {
            continue;
        };
        if boxed {
            let bx = posed_by(&boxes_b.boxes[n as usize], b_to_a, &rot);
            let q = grown(&bx, slack(box_mag(&bx)));
            if !meet(&q, &g_box) || grid.block_count(grid.cell(&q.0), grid.cell(&q.1)) == 0 {
                continue;
            }
        }
        if !node.is_leaf() {
            s.stack.extend(node.first..node.first + node.count);
            continue;
        }
        for ib in node.first..node.first + node.count {
            let Some(tb) = b.soup.get(ib as usize) else {
                continue;
            };
            let t = tb.transformed(b_to_a);
            let bb = tri_box(&t);
            let q = grown(&bb, slack(box_mag(&bb)));
            if !meet(&q, &g_box) {
                continue;
            }
            let (i0, i1) = (grid.cell(&q.0), grid.cell(&q.1));
            let stamp = s.next_stamp(grid.tri_box.len());
            let [nx, ny, _] = grid.n.map(|x| x as usize);
            for z in i0[2]..=i1[2] {
                for y in i0[1]..=i1[1] {
                    let row = (z as usize * ny + y as usize) * nx;
                    let (c0, c1) = (row + i0[0] as usize, row + i1[0] as usize + 1);
                    let (l0, l1) = (grid.start[c0] as usize, grid.start[c1] as usize);
                    for &ia in &grid.tris[l0..l1] {
                        let sa = &mut s.stamp[ia as usize];
                        if *sa == stamp {
                            continue;
                        }
                        *sa = stamp;
                        if !meet(&grid.tri_box[ia as usize], &q) {
                            continue;
                        }
                        let Some(ta) = a.soup.get(ia as usize) else {
                            continue;
                        };
                        s.fine.push(ta, &t, margin, s.tags.len() as u32, true);
                        s.tags.push((ia, ib));
                        if s.tags.len() == CHUNK {
                            flush(s, out, stats);
                        }
                    }
                }
            }
        }
    }
    flush(s, out, stats);
}

/// Decides the queued candidates (decision kernel, then the hybrid kernel on the
/// undecided) and empties the queue.
fn flush(s: &mut GridScratch, out: &mut Vec<TriPair>, stats: &mut LevelStats) {
    if s.tags.is_empty() {
        return;
    }
    stats.fine += s.tags.len() as u64;
    stats.checks[0] += s.tags.len() as u64;
    s.fine.decide(&mut s.within);
    s.batch.clear();
    for (i, w) in s.within.iter().enumerate() {
        match w {
            Within::In => {
                let (tri_a, tri_b) = s.tags[i];
                out.push(TriPair { tri_a, tri_b });
            }
            Within::Out => {}
            Within::Unknown => {
                if let Some((t1, t2, m)) = s.fine.pair(i) {
                    s.batch.push(&t1, &t2, m, i as u32, true);
                }
            }
        }
    }
    if !s.batch.is_empty() {
        let bs = s.batch.run(
            KernelKind::Hybrid,
            &IterativeParams::default(),
            &mut s.results,
        );
        stats.fallbacks += bs.fallbacks;
        for o in &s.results {
            if matches!(o.result, KernelResult::Contact(_)) {
                let (tri_a, tri_b) = s.tags[o.tag as usize];
                out.push(TriPair { tri_a, tri_b });
            }
        }
    }
    s.fine.clear();
    s.tags.clear();
}
