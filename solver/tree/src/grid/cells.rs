//! A uniform cell grid over one body's real triangles (tree frame), built once per body:
//! the triangles whose bounding box meets each cell (CSR arrays) and a 3-D summed-volume
//! table of the per-cell list lengths, so "does any triangle of the body meet this
//! axis-aligned block of cells?" is eight look-ups (`grid/query.rs` prunes B's nodes with
//! it). Cells are cubes of edge `cell_m`; the grid's size is bounded (see
//! [`MAX_CELLS_PER_TRIANGLE`], [`MAX_ENTRIES_PER_TRIANGLE`]): where a requested cell size
//! would exceed the bound, the cells grow until it holds, so a 69,674-triangle scan costs
//! a few MiB whatever is asked.
//!
//! **Exact indexing.** A coordinate's cell is `⌊(x − lo)/h⌋` computed in `f32` and
//! clamped into the grid: a monotone function of `x`, so two intervals that meet map to
//! index ranges that meet, whatever the rounding. A triangle is listed in every cell of
//! its box's index range; a query box meeting the triangle's box therefore shares a
//! listed cell with it — no slack is needed for the grid itself.

use crate::error::TreeError;
use crate::tree::SurrogateTree;

/// At most this many cells per real triangle (plus 64): bounds the summed-volume table.
pub const MAX_CELLS_PER_TRIANGLE: u64 = 8;

/// At most this many (cell, triangle) entries per real triangle (plus 64): bounds the CSR
/// lists.
pub const MAX_ENTRIES_PER_TRIANGLE: u64 = 16;

/// One body's cell grid (tree frame), see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct CellGrid {
    /// Lower corner of the grid \[m\] (the real triangles' box).
    pub(crate) lo: [f32; 3],
    /// Upper corner of the real triangles' box \[m\].
    pub(crate) hi: [f32; 3],
    /// Cell edge \[m\].
    pub(crate) h: f32,
    /// `1 / h` \[1/m\].
    pub(crate) inv_h: f32,
    /// Cells per axis (each ≥ 1).
    pub(crate) n: [u32; 3],
    /// Largest absolute coordinate of the box \[m\] (scales the query's slack).
    pub(crate) mag: f32,
    /// CSR offsets: cell `c`'s triangles are `tris[start[c]..start[c + 1]]`; cell index
    /// `c = (z·n_y + y)·n_x + x`.
    pub(crate) start: Vec<u32>,
    /// Soup indices of real triangles, listed per cell in ascending order.
    pub(crate) tris: Vec<u32>,
    /// Summed-volume table of the list lengths, `(n_x + 1)(n_y + 1)(n_z + 1)` entries:
    /// entry `(x, y, z)` sums the cells below `x`, `y` and `z`.
    pub(crate) sat: Vec<u32>,
    /// Box of each real triangle (soup order) \[m\]: lower, upper corner.
    pub(crate) tri_box: Vec<([f32; 3], [f32; 3])>,
    /// Plane of each real triangle: unit normal and offset `n·c` \[m\] (`c` the
    /// centroid); zero for a degenerate triangle (then it separates nothing).
    pub(crate) plane: Vec<[f32; 4]>,
}

impl CellGrid {
    /// The grid of `tree`'s real triangles with cells of `cell_edges` times the mean edge
    /// length of its triangles (grown where the size bound requires it). Errors: a tree
    /// without real triangles, a factor that is not finite and positive, non-finite
    /// coordinates.
    pub fn of(tree: &SurrogateTree, cell_edges: f32) -> Result<CellGrid, TreeError> {
        if !(cell_edges.is_finite() && cell_edges > 0.0) {
            return Err(TreeError::Param {
                name: "cell_edges",
                value: cell_edges.to_string(),
                reason: "must be a finite number > 0",
            });
        }
        let real = tree.real_count();
        let tris = tree.soup.get(..real).unwrap_or(&[]);
        if tris.is_empty() {
            return Err(TreeError::EmptyMesh);
        }
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        let mut edges = 0.0f64;
        let mut tri_box = Vec::with_capacity(tris.len());
        for (i, t) in tris.iter().enumerate() {
            let mut b = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for v in &t.v {
                for (k, &x) in v.iter().enumerate() {
                    if !x.is_finite() {
                        return Err(TreeError::NonFinite {
                            triangle: tree.source.get(i).map_or(i, |&s| s as usize),
                            value: x.into(),
                        });
                    }
                    b.0[k] = b.0[k].min(x);
                    b.1[k] = b.1[k].max(x);
                }
            }
            for j in 0..3 {
                let (p, q) = (t.v[j], t.v[(j + 1) % 3]);
                let d2: f64 = (0..3)
                    .map(|k| (f64::from(p[k]) - f64::from(q[k])).powi(2))
                    .sum();
                edges += d2.sqrt();
            }
            for k in 0..3 {
                lo[k] = lo[k].min(b.0[k]);
                hi[k] = hi[k].max(b.1[k]);
            }
            tri_box.push(b);
        }
        let mean_edge = edges / (3 * tris.len()) as f64;
        let ext = [0, 1, 2].map(|k| f64::from(hi[k]) - f64::from(lo[k]));
        let diag = ext.iter().map(|e| e * e).sum::<f64>().sqrt();
        // A cell never below 10⁻⁶ of the body (degenerate meshes) nor zero.
        let mut h = (f64::from(cell_edges) * mean_edge)
            .max(1e-6 * diag)
            .max(1e-30);
        let n_tri = tris.len() as u64;
        loop {
            let g = Self::sized(lo, hi, h);
            let cells: u64 = g.n.iter().map(|&x| u64::from(x)).product();
            if cells <= MAX_CELLS_PER_TRIANGLE * n_tri + 64 {
                let entries: u64 = tri_box
                    .iter()
                    .map(|b| {
                        let (i0, i1) = (g.cell(&b.0), g.cell(&b.1));
                        (0..3)
                            .map(|k| u64::from(i1[k] - i0[k] + 1))
                            .product::<u64>()
                    })
                    .sum();
                if entries <= MAX_ENTRIES_PER_TRIANGLE * n_tri + 64 {
                    let mut g = g.filled(tri_box, cells as usize, entries as usize);
                    g.plane = tris.iter().map(plane).collect();
                    return Ok(g);
                }
            }
            h *= 1.25;
        }
    }

    /// The empty grid of cell edge `h` over `lo..hi`.
    fn sized(lo: [f32; 3], hi: [f32; 3], h: f64) -> CellGrid {
        let n = [0, 1, 2].map(|k| {
            let c = ((f64::from(hi[k]) - f64::from(lo[k])) / h).floor() + 1.0;
            c.clamp(1.0, 1e6) as u32
        });
        let mag = (0..3).fold(0.0f32, |m, k| m.max(lo[k].abs()).max(hi[k].abs()));
        CellGrid {
            lo,
            hi,
            h: h as f32,
            inv_h: (1.0 / h) as f32,
            n,
            mag,
            start: Vec::new(),
            tris: Vec::new(),
            sat: Vec::new(),
            tri_box: Vec::new(),
            plane: Vec::new(),
        }
    }

    /// Fills the lists (counting sort by cell, triangles ascending) and the table.
    fn filled(
        mut self,
        tri_box: Vec<([f32; 3], [f32; 3])>,
        cells: usize,
        entries: usize,
    ) -> CellGrid {
        let mut count = vec![0u32; cells + 1];
        let ranges: Vec<_> = tri_box
            .iter()
            .map(|b| (self.cell(&b.0), self.cell(&b.1)))
            .collect();
        for (i0, i1) in &ranges {
            self.each_cell(*i0, *i1, |c| count[c + 1] += 1);
        }
        for c in 0..cells {
            count[c + 1] += count[c];
        }
        let mut fill = count.clone();
        let mut list = vec![0u32; entries];
        for (t, (i0, i1)) in ranges.iter().enumerate() {
            self.each_cell(*i0, *i1, |c| {
                list[fill[c] as usize] = t as u32;
                fill[c] += 1;
            });
        }
        let [nx, ny, nz] = self.n.map(|x| x as usize);
        let mut sat = vec![0u32; (nx + 1) * (ny + 1) * (nz + 1)];
        let at = |x: usize, y: usize, z: usize| (z * (ny + 1) + y) * (nx + 1) + x;
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let c = (z * ny + y) * nx + x;
                    let own = count[c + 1] - count[c];
                    // Inclusion–exclusion; wrapping: the total stays below 2³².
                    let v = own
                        .wrapping_add(sat[at(x, y + 1, z + 1)])
                        .wrapping_add(sat[at(x + 1, y, z + 1)])
                        .wrapping_add(sat[at(x + 1, y + 1, z)])
                        .wrapping_sub(sat[at(x, y, z + 1)])
                        .wrapping_sub(sat[at(x, y + 1, z)])
                        .wrapping_sub(sat[at(x + 1, y, z)])
                        .wrapping_add(sat[at(x, y, z)]);
                    sat[at(x + 1, y + 1, z + 1)] = v;
                }
            }
        }
        self.start = count;
        self.tris = list;
        self.sat = sat;
        self.tri_box = tri_box;
        self
    }

    /// Calls `f` with every cell index of the block `i0..=i1`.
    fn each_cell(&self, i0: [u32; 3], i1: [u32; 3], mut f: impl FnMut(usize)) {
        let [nx, ny, _] = self.n.map(|x| x as usize);
        for z in i0[2]..=i1[2] {
            for y in i0[1]..=i1[1] {
                let row = (z as usize * ny + y as usize) * nx;
                for x in i0[0]..=i1[0] {
                    f(row + x as usize);
                }
            }
        }
    }

    /// The (clamped) cell of point `p` \[m\]: monotone in each coordinate (module docs).
    #[inline]
    pub(crate) fn cell(&self, p: &[f32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|k| {
            // Truncation is the floor for x ≥ 0; negative values and NaN go to cell 0
            // (`as` saturates), large ones to the last: still monotone.
            let x = (p[k] - self.lo[k]) * self.inv_h;
            (x as u32).min(self.n[k] - 1)
        })
    }

    /// Number of (cell, triangle) entries in the block of cells `i0..=i1` (eight look-ups
    /// in the summed-volume table; zero exactly when no triangle is listed there).
    #[inline]
    pub(crate) fn block_count(&self, i0: [u32; 3], i1: [u32; 3]) -> u32 {
        let nx1 = self.n[0] as usize + 1;
        let ny1 = self.n[1] as usize + 1;
        let (x0, y0, z0) = (i0[0] as usize, i0[1] as usize, i0[2] as usize);
        let (x1, y1, z1) = (i1[0] as usize + 1, i1[1] as usize + 1, i1[2] as usize + 1);
        let at = |x: usize, y: usize, z: usize| self.sat[(z * ny1 + y) * nx1 + x];
        at(x1, y1, z1)
            .wrapping_sub(at(x0, y1, z1))
            .wrapping_sub(at(x1, y0, z1))
            .wrapping_sub(at(x1, y1, z0))
            .wrapping_add(at(x0, y0, z1))
            .wrapping_add(at(x0, y1, z0))
            .wrapping_add(at(x1, y0, z0))
            .wrapping_sub(at(x0, y0, z0))
    }

    /// Cell edge \[m\].
    pub fn cell_m(&self) -> f32 {
        self.h
    }

    /// Cells per axis.
    pub fn cells(&self) -> [u32; 3] {
        self.n
    }

    /// Bytes held by the grid's arrays (lists, table, triangle boxes).
    pub fn heap_bytes(&self) -> usize {
        4 * (self.start.len() + self.tris.len() + self.sat.len()) + 24 * self.tri_box.len()
    }

    /// Number of (cell, triangle) entries.
    pub fn entries(&self) -> usize {
        self.tris.len()
    }
}

/// Unit normal and offset of a triangle's plane (computed in `f64`); zero when degenerate.
fn plane(t: &msdem_geom::math::Tri) -> [f32; 4] {
    let v = t.v.map(|p| p.map(f64::from));
    let e1 = [0, 1, 2].map(|k| v[1][k] - v[0][k]);
    let e2 = [0, 1, 2].map(|k| v[2][k] - v[0][k]);
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let len = n.iter().map(|x| x * x).sum::<f64>().sqrt();
    if len.is_nan() || len <= 0.0 {
        return [0.0; 4];
    }
    let n = n.map(|x| x / len);
    let c = [0, 1, 2].map(|k| (v[0][k] + v[1][k] + v[2][k]) / 3.0);
    let d = n[0] * c[0] + n[1] * c[1] + n[2] * c[2];
    [n[0] as f32, n[1] as f32, n[2] as f32, d as f32]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_tree, BuildParams};

    /// The summed-volume table against summing the lists' lengths cell by cell, on every
    /// block of a small grid; and every triangle listed in every cell its box meets.
    #[test]
    fn block_counts_equal_the_summed_list_lengths() {
        let mesh = msdem_mesh::generate::icosphere(0.5, 2).expect("icosphere");
        let t = build_tree(&mesh, [0; 32], &BuildParams::default()).expect("tree");
        let g = CellGrid::of(&t, 1.5).expect("grid");
        let [nx, ny, nz] = g.n;
        assert!(nx > 2 && ny > 2 && nz > 2, "{:?}", g.n);
        let len = |x: u32, y: u32, z: u32| {
            let c = ((z * ny + y) * nx + x) as usize;
            g.start[c + 1] - g.start[c]
        };
        for (x0, x1) in [(0, nx - 1), (1, 1), (0, 2), (nx - 2, nx - 1)] {
            for (y0, y1) in [(0, ny - 1), (2, 2), (1, ny - 2)] {
                for (z0, z1) in [(0, nz - 1), (0, 0), (1, 3)] {
                    let mut sum = 0;
                    for z in z0..=z1 {
                        for y in y0..=y1 {
                            for x in x0..=x1 {
                                sum += len(x, y, z);
                            }
                        }
                    }
                    assert_eq!(g.block_count([x0, y0, z0], [x1, y1, z1]), sum);
                }
            }
        }
        for (i, b) in g.tri_box.iter().enumerate() {
            let (i0, i1) = (g.cell(&b.0), g.cell(&b.1));
            let mut seen = 0;
            g.each_cell(i0, i1, |c| {
                seen += usize::from(
                    g.tris[g.start[c] as usize..g.start[c + 1] as usize].contains(&(i as u32)),
                );
            });
            let want: u32 = (0..3).map(|k| i1[k] - i0[k] + 1).product();
            assert_eq!(seen, want as usize, "triangle {i}");
        }
    }
}
