//! The pair-set query on a cell grid (issue 15): which real triangle pairs of A and B lie
//! within the margin `ε_a + ε_b`, with A's triangles indexed by a [`CellGrid`] built once
//! per body instead of A's tree being descended.
//!
//! 1. Root tests: B's root node box, posed into A's frame, against A's grid box, then the
//!    two roots' spheres (`screen.rs`) — what a far pose costs; nothing is cleared or
//!    allocated before them — and the support screen along the centre line
//!    (`support.rs`, as the tree query: it proves most gap-3ε poses apart).
//! 2. B's tree is descended top-down (node boxes, [`NodeBoxes`]); each node's box, posed
//!    into A's frame (`|R|·extent`, `node_box.rs`) and grown by the margin, is dropped when
//!    it misses A's box or when A's summed-volume table says its block of cells lists no
//!    triangle (eight look-ups).
//! 3. At a leaf, A's triangles listed in the cells its grown box covers (each once: a
//!    per-triangle stamp) whose boxes meet that box are gathered; each of the leaf's B
//!    triangles is transformed into A's frame (as the tree query does,
//!    [`msdem_geom::math::Tri::transformed`]), its box grown by the margin, and the
//!    gathered A triangles whose boxes meet it form the candidate pairs.
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
use crate::node_box::{Aabb, NodeBoxes};
use crate::pairs::TriPair;
use crate::screen::roots_apart;
use crate::support::supports_apart;
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
    /// A's triangles near the current B leaf (or triangle).
    near: Vec<u32>,
    /// Those of them whose box and plane pass against the current B triangle.
    cand: Vec<u32>,
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
#[inline(always)]
fn grown(b: &Aabb, m: f32) -> Aabb {
    (
        [b.0[0] - m, b.0[1] - m, b.0[2] - m],
        [b.1[0] + m, b.1[1] + m, b.1[2] + m],
    )
}

/// Whether closed boxes `a` and `b` meet.
#[inline(always)]
fn meet(a: &Aabb, b: &Aabb) -> bool {
    (a.0[0] <= b.1[0])
        & (b.0[0] <= a.1[0])
        & (a.0[1] <= b.1[1])
        & (b.0[1] <= a.1[1])
        & (a.0[2] <= b.1[2])
        & (b.0[2] <= a.1[2])
}

/// Box of a triangle.
#[inline(always)]
fn tri_box(t: &Tri) -> Aabb {
    let [p, q, r] = t.v;
    (
        [
            p[0].min(q[0]).min(r[0]),
            p[1].min(q[1]).min(r[1]),
            p[2].min(q[2]).min(r[2]),
        ],
        [
            p[0].max(q[0]).max(r[0]),
            p[1].max(q[1]).max(r[1]),
            p[2].max(q[2]).max(r[2]),
        ],
    )
}

/// Largest absolute coordinate of a box.
#[inline(always)]
fn mag(b: &Aabb) -> f32 {
    let m = |x: f32, y: f32| x.abs().max(y.abs());
    m(b.0[0], b.1[0])
        .max(m(b.0[1], b.1[1]))
        .max(m(b.0[2], b.1[2]))
}

/// Box in A's frame containing `b` (B's frame) moved by `b_to_a` with rotation matrix
/// `r`: centre moved by the matrix, half-extents by `|R|`, in `f64`, corners pushed out
/// by `10⁻⁶` of their magnitude (as `node_box.rs`'s `posed`, whose slack covers the
/// `f32` rounding of B's transformed triangles).
#[inline(always)]
fn posed_m(b: &Aabb, r: &[[f64; 3]; 3], t: &[f64; 3]) -> Aabb {
    let c = [0, 1, 2].map(|k| 0.5 * (f64::from(b.0[k]) + f64::from(b.1[k])));
    let h = [0, 1, 2].map(|k| 0.5 * (f64::from(b.1[k]) - f64::from(b.0[k])));
    let mut lo = [0.0f32; 3];
    let mut hi = [0.0f32; 3];
    for k in 0..3 {
        let row = &r[k];
        let cc = row[0] * c[0] + row[1] * c[1] + row[2] * c[2] + t[k];
        let e = row[0].abs() * h[0] + row[1].abs() * h[1] + row[2].abs() * h[2];
        let s = (cc.abs() + e) * 1e-6 + 1e-30;
        lo[k] = (cc - e - s) as f32;
        hi[k] = (cc + e + s) as f32;
    }
    (lo, hi)
}

/// Appends to `out` every pair of real triangles of `a` (halo `eps_a` \[m\]; `grid` must be
/// [`CellGrid::of`] that tree) and `b` (halo `eps_b` \[m\]), B posed by `b_to_a` (B's mesh
/// frame → A's), whose distance is at most `eps_a + eps_b`: the set
/// [`crate::find_pairs_boxed`] returns (soup indices; another order). `boxes_a` and
/// `boxes_b` should be [`NodeBoxes::of`] the two trees; boxes of another tree (a length
/// mismatch) are ignored: without A's the root support screen is skipped, without B's
/// every B triangle is listed against the grid (the same pairs, more work). Candidate
/// pairs are counted in `stats.fine` and `stats.checks[0]`, those the decision kernel
/// proves out in `stats.checks[1]`, those it leaves to the hybrid kernel in
/// `stats.checks[2]`; B's nodes visited in `checks[3]`, B leaves listed in `checks[4]`,
/// the A triangles listed for them in `checks[5]`, B triangles transformed in
/// `checks[6]`; hybrid fallbacks in `stats.fallbacks`.
#[allow(clippy::too_many_arguments)]
pub fn find_pairs_grid(
    (a, boxes_a, grid): (&SurrogateTree, &NodeBoxes, &CellGrid),
    eps_a: f32,
    (b, boxes_b): (&SurrogateTree, &NodeBoxes),
    eps_b: f32,
    b_to_a: &Iso3,
    s: &mut GridScratch,
    out: &mut Vec<TriPair>,
    stats: &mut LevelStats,
) {
    // The far pose's whole cost: the root box test, before anything else is set up.
    let margin = eps_a + eps_b;
    let rot = b_to_a.rotation.to_rotation_matrix().into_inner();
    let rm = [0, 1, 2].map(|k| [rot[(k, 0)], rot[(k, 1)], rot[(k, 2)]]);
    let tv = b_to_a.translation.vector;
    let tr = [tv.x, tv.y, tv.z];
    let boxed = boxes_b.boxes.len() == b.nodes.len() && !b.nodes.is_empty();
    if boxed {
        let bx = posed_m(&boxes_b.boxes[0], &rm, &tr);
        let m = margin + 1e-5 * (margin + grid.mag.max(mag(&bx)));
        if !meet(&grown(&bx, m), &(grid.lo, grid.hi)) {
            return;
        }
    }
    let pose = Posed {
        b_to_a,
        rm,
        tr,
        boxed,
    };
    near_b(
        (a, boxes_a, grid),
        eps_a,
        (b, boxes_b),
        eps_b,
        &pose,
        s,
        out,
        stats,
    );
}

/// B's pose in A's frame: the isometry, its rotation matrix (rows) and translation, and
/// whether B's node boxes are B's.
struct Posed<'a> {
    b_to_a: &'a Iso3,
    rm: [[f64; 3]; 3],
    tr: [f64; 3],
    boxed: bool,
}

/// [`find_pairs_grid`] past the root box test.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn near_b(
    (a, boxes_a, grid): (&SurrogateTree, &NodeBoxes, &CellGrid),
    eps_a: f32,
    (b, boxes_b): (&SurrogateTree, &NodeBoxes),
    eps_b: f32,
    pose: &Posed,
    s: &mut GridScratch,
    out: &mut Vec<TriPair>,
    stats: &mut LevelStats,
) {
    let Posed {
        b_to_a,
        rm,
        tr,
        boxed,
    } = *pose;
    let margin = eps_a + eps_b;
    let g_box: Aabb = (grid.lo, grid.hi);
    let slack = |m: f32| margin + 1e-5 * (margin + grid.mag.max(m));
    if grid.tri_box.is_empty() || b.nodes.is_empty() || roots_apart(a, eps_a, b, eps_b, b_to_a) {
        return;
    }
    let a_boxed = boxes_a.boxes.len() == a.nodes.len() && !a.nodes.is_empty();
    if boxed && a_boxed {
        let st = &mut s.stack;
        if supports_apart((a, boxes_a), eps_a, (b, boxes_b), eps_b, b_to_a, st) {
            return;
        }
    }
    s.fine.clear();
    s.tags.clear();
    s.stack.clear();
    s.stack.push(0);
    while let Some(n) = s.stack.pop() {
        let Some(node) = b.nodes.get(n as usize) else {
            continue;
        };
        let mut leaf_q = None;
        stats.checks[3] += 1;
        if boxed {
            let bx = posed_m(&boxes_b.boxes[n as usize], &rm, &tr);
            let q = grown(&bx, slack(mag(&bx)));
            if !meet(&q, &g_box) || grid.block_count(grid.cell(&q.0), grid.cell(&q.1)) == 0 {
                continue;
            }
            leaf_q = Some(q);
        }
        if !node.is_leaf() {
            s.stack.extend(node.first..node.first + node.count);
            continue;
        }
        // A's triangles near the whole leaf, listed once (with node boxes).
        if let Some(q) = leaf_q {
            list(grid, &q, s);
            stats.checks[4] += 1;
            stats.checks[5] += s.near.len() as u64;
            if s.near.is_empty() {
                continue;
            }
        }
        for ib in node.first..node.first + node.count {
            let Some(tb) = b.soup.get(ib as usize) else {
                continue;
            };
            let t = tb.transformed(b_to_a);
            let bb = tri_box(&t);
            let q = grown(&bb, slack(mag(&bb)));
            if !meet(&q, &g_box) {
                continue;
            }
            if leaf_q.is_none() {
                list(grid, &q, s);
            }
            stats.checks[6] += 1;
            let nb = plane_of(&t);
            // Slack of the plane tests: the box's (B's vertices lie in `q`).
            let mp = slack(mag(&q));
            // Branch-free filters (box, then A's plane on the survivors) compacting into
            // `cand`, then B's plane on the few left: the outcomes vary pair by pair, so
            // branches would be mispredicted.
            s.cand.resize(s.near.len(), 0);
            let mut k = 0;
            for j in 0..s.near.len() {
                let ia = s.near[j];
                s.cand[k] = ia;
                k += usize::from(meet(&grid.tri_box[ia as usize], &q));
            }
            let mut kept = 0;
            for j in 0..k {
                let ia = s.cand[j];
                s.cand[kept] = ia;
                kept += usize::from(!beyond(&grid.plane[ia as usize], &t, mp));
            }
            for j in 0..kept {
                let ia = s.cand[j];
                let Some(ta) = a.soup.get(ia as usize) else {
                    continue;
                };
                if beyond(&nb, ta, mp) {
                    continue;
                }
                s.fine.push(ta, &t, margin, s.tags.len() as u32, true);
                s.tags.push((ia, ib));
                if s.tags.len() == CHUNK {
                    flush(s, out, stats);
                }
            }
        }
    }
    flush(s, out, stats);
}

/// Unit normal and offset of `t`'s plane, computed in `f32`; zero when degenerate.
#[inline]
fn plane_of(t: &Tri) -> [f32; 4] {
    let [p, q, r] = t.v;
    let e1 = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
    let e2 = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len.is_nan() || len <= 0.0 {
        return [0.0; 4];
    }
    let n = n.map(|x| x / len);
    let d = n[0] * p[0] + n[1] * p[1] + n[2] * p[2];
    [n[0], n[1], n[2], d]
}

/// Whether the three vertices of `t` lie all farther than `m` \[m\] on one side of
/// `plane` (a separating axis: the plane's own triangle projects to its offset up to
/// rounding far below `m − margin`). A zero plane never separates.
#[inline]
fn beyond(plane: &[f32; 4], t: &Tri, m: f32) -> bool {
    let s =
        t.v.map(|v| plane[0] * v[0] + plane[1] * v[1] + plane[2] * v[2] - plane[3]);
    ((s[0] > m) & (s[1] > m) & (s[2] > m)) | ((s[0] < -m) & (s[1] < -m) & (s[2] < -m))
}

/// Lists into `s.near` A's triangles whose boxes meet box `q` (each once).
fn list(grid: &CellGrid, q: &Aabb, s: &mut GridScratch) {
    let (i0, i1) = (grid.cell(&q.0), grid.cell(&q.1));
    // At most the block's entries (the summed-volume table): written branch-free.
    s.near.resize(grid.block_count(i0, i1) as usize, 0);
    let stamp = s.next_stamp(grid.tri_box.len());
    let [nx, ny, _] = grid.n.map(|x| x as usize);
    let mut k = 0;
    for z in i0[2]..=i1[2] {
        for y in i0[1]..=i1[1] {
            let row = (z as usize * ny + y as usize) * nx;
            let (c0, c1) = (row + i0[0] as usize, row + i1[0] as usize + 1);
            let (l0, l1) = (grid.start[c0] as usize, grid.start[c1] as usize);
            for &ia in &grid.tris[l0..l1] {
                let sa = &mut s.stamp[ia as usize];
                let fresh = *sa != stamp;
                *sa = stamp;
                if let Some(slot) = s.near.get_mut(k) {
                    *slot = ia;
                }
                k += usize::from(fresh & meet(&grid.tri_box[ia as usize], q));
            }
        }
    }
    s.near.truncate(k);
}

/// Decides the queued candidates (decision kernel, then the hybrid kernel on the
/// undecided) and empties the queue.
fn flush(s: &mut GridScratch, out: &mut Vec<TriPair>, stats: &mut LevelStats) {
    if s.tags.is_empty() {
        return;
    }
    stats.fine += s.tags.len() as u64;
    stats.checks[0] += s.tags.len() as u64;
    s.fine.decide_prefiltered(&mut s.within);
    s.batch.clear();
    for (i, w) in s.within.iter().enumerate() {
        match w {
            Within::In => {
                let (tri_a, tri_b) = s.tags[i];
                out.push(TriPair { tri_a, tri_b });
            }
            Within::Out => stats.checks[1] += 1,
            Within::Unknown => {
                stats.checks[2] += 1;
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
