//! Multi-level hashed cell table: the mapping phase of seed 001 §2.1.
//!
//! Every level `h` has its own cell size `s_h`; a sphere of diameter `d` lives on the lowest
//! level with `d·(1 + FIT_MARGIN) ≤ s_h` (eq. 3, with a small safety margin so that rounding
//! in `⌊x/s⌋` can never push two touching spheres two cells apart) in the cell
//! `⌊x / s_h⌋` (eq. 1).
//!
//! The domain is unbounded. Each level is stored in one of two layouts, both a CSR array of
//! buckets over the entries sorted by a counting sort (one build is O(N)):
//!
//! * **dense** when the level's occupied box has at most [`DENSE_BUCKETS_PER_SPHERE`]
//!   cells per sphere: one bucket per cell, x-rows contiguous, so a row of the search
//!   stencil is a single run of entries and no cell test is needed;
//! * **folded** otherwise (sparse clouds, spheres far apart): cells are folded into a
//!   power-of-two bucket array, `(i mod X, j mod Y, k mod Z)` relative to the box, about
//!   four buckets per sphere; cells sharing a bucket are told apart by the exact cell key
//!   kept per entry. Neighbouring cells still fold to neighbouring buckets.
//!
//! Entries are stored as `[x, y, z, r]` with the input index in a parallel array, so the
//! hot loop streams 32-byte records.

use crate::{BroadPhaseError, Sphere};
use rayon::prelude::*;

/// Relative margin between a sphere's diameter and the cell it is allowed to live in.
pub(crate) const FIT_MARGIN: f64 = 1e-3;

/// Cell coordinates must stay below this magnitude so that `⌊x/s⌋` keeps enough absolute
/// precision for [`FIT_MARGIN`] (2⁴⁰ cells; ≈ 1.1e9 m for a 1 mm cell).
const MAX_CELL_COORD: f64 = (1u64 << 40) as f64;

/// Largest bucket count of a level, as a power of two.
const MAX_BUCKET_BITS: u64 = 30;

/// Most buckets per sphere of a level stored densely (one bucket per cell of the
/// occupied box); a sparser level is folded.
const DENSE_BUCKETS_PER_SPHERE: u64 = 8;

/// One level of the grid.
#[derive(Clone, Debug, Default)]
pub(crate) struct Level {
    /// Cell size \[m\].
    pub size: f64,
    /// 1 / cell size \[1/m\].
    pub inv: f64,
    /// Smallest occupied cell coordinates.
    pub lo: [i64; 3],
    /// Largest occupied cell coordinates.
    pub hi: [i64; 3],
    /// Dense: one bucket per cell of the box `lo..=hi`, rows along x contiguous, no two
    /// cells share a bucket. Otherwise folded: cells share buckets, filter on the key.
    pub dense: bool,
    /// Dense: box extents; folded: log2 of the fold dimensions.
    dims: [u64; 3],
    /// Index of the level's first bucket in [`Grid::start`].
    base: usize,
    /// Number of spheres on this level.
    pub count: usize,
    /// Position of the level's first entry.
    pub first: usize,
}

impl Level {
    /// Bucket of a cell known to lie inside the bounding box.
    #[inline]
    fn bucket(&self, cell: [i64; 3]) -> usize {
        let x = (cell[0] - self.lo[0]) as u64;
        let y = (cell[1] - self.lo[1]) as u64;
        let z = (cell[2] - self.lo[2]) as u64;
        let local = if self.dense {
            x + self.dims[0] * (y + self.dims[1] * z)
        } else {
            let [bx, by, bz] = self.dims;
            (x & ((1 << bx) - 1))
                | ((y & ((1 << by) - 1)) << bx)
                | ((z & ((1 << bz) - 1)) << (bx + by))
        };
        self.base + local as usize
    }

    /// Whether a cell lies inside the occupied bounding box.
    #[inline]
    pub fn contains(&self, cell: [i64; 3]) -> bool {
        (0..3).all(|a| cell[a] >= self.lo[a] && cell[a] <= self.hi[a])
    }

    /// The cell of a point on this level.
    #[inline]
    pub fn cell_of(&self, c: &[f64; 3]) -> [i64; 3] {
        [
            cell_coord(c[0], self.inv),
            cell_coord(c[1], self.inv),
            cell_coord(c[2], self.inv),
        ]
    }
}

/// The hashed multi-level cell table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    /// Levels, cell size ascending.
    pub levels: Vec<Level>,
    /// Centre and search radius `[x, y, z, r]` \[m\] of the entries, sorted by (level,
    /// bucket), stable in the input index.
    pub pos: Vec<[f64; 4]>,
    /// Input index of each entry.
    pub ids: Vec<u32>,
    /// Cell of each entry; filled only when some level is folded.
    pub cells: Vec<[i64; 3]>,
    /// CSR offsets: bucket `b` holds entries `start[b]..start[b + 1]`.
    start: Vec<u32>,
    /// Scratch: (level, cell) per input sphere.
    placed: Vec<(u32, [i64; 3])>,
    /// Scratch: global bucket per input sphere.
    bucket_of: Vec<usize>,
}

/// Maps a coordinate to its cell index `⌊x/s⌋` on a level (eq. 1), saturating at the
/// `i64` range. Monotone in `x`; an inlined floor (the libm call showed up in profiles).
#[inline]
pub(crate) fn cell_coord(x: f64, inv: f64) -> i64 {
    floor_i64(x * inv)
}

/// `⌊v⌋` as `i64`, saturating; exact for |v| < 2⁶³.
#[inline]
fn floor_i64(v: f64) -> i64 {
    let t = v as i64;
    if (t as f64) > v {
        t.saturating_sub(1)
    } else {
        t
    }
}

impl Grid {
    /// Maps all spheres (radius inflated by `inflate` \[m\]) into levels of the given
    /// strictly increasing cell sizes \[m\]. On error the table is left empty.
    pub fn build(
        &mut self,
        spheres: &[Sphere],
        inflate: f64,
        sizes: &[f64],
    ) -> Result<(), BroadPhaseError> {
        self.levels.clear();
        self.pos.clear();
        self.ids.clear();
        self.cells.clear();
        self.start.clear();
        let placed = &mut self.placed;
        if spheres.len() < crate::PARALLEL_MIN {
            placed.clear();
            placed.extend(spheres.iter().map(|s| place(s, inflate, sizes)));
        } else {
            spheres
                .par_iter()
                .map(|s| place(s, inflate, sizes))
                .collect_into_vec(placed);
        }
        if let Some(index) = placed.iter().position(|p| p.0 == u32::MAX) {
            return Err(placement_error(index, &spheres[index], inflate, sizes));
        }

        self.levels = sizes
            .iter()
            .map(|&size| Level {
                size,
                inv: 1.0 / size,
                lo: [i64::MAX; 3],
                hi: [i64::MIN; 3],
                ..Level::default()
            })
            .collect();
        for (level, cell) in placed.iter() {
            let l = &mut self.levels[*level as usize];
            l.count += 1;
            for (a, &c) in cell.iter().enumerate() {
                l.lo[a] = l.lo[a].min(c);
                l.hi[a] = l.hi[a].max(c);
            }
        }
        let mut base = 0usize;
        let mut first = 0usize;
        let mut folded = false;
        for l in self.levels.iter_mut() {
            l.base = base;
            l.first = first;
            first += l.count;
            if l.count == 0 {
                l.lo = [1; 3];
                l.hi = [0; 3]; // empty box: `contains` is always false
                l.dense = true;
                l.dims = [0; 3];
                continue;
            }
            let extent = |a: usize| (l.hi[a] - l.lo[a]) as u64 + 1;
            let cells = extent(0)
                .checked_mul(extent(1))
                .and_then(|v| v.checked_mul(extent(2)));
            let budget = DENSE_BUCKETS_PER_SPHERE * l.count as u64 + 64;
            match cells {
                Some(cells) if cells <= budget => {
                    l.dense = true;
                    l.dims = [extent(0), extent(1), extent(2)];
                    base += cells as usize;
                }
                _ => {
                    l.dense = false;
                    l.dims = fold_bits(l.lo, l.hi, l.count);
                    base += 1usize << l.dims.iter().sum::<u64>();
                    folded = true;
                }
            }
        }

        let levels = &self.levels;
        let bucket = |(level, cell): &(u32, [i64; 3])| levels[*level as usize].bucket(*cell);
        if placed.len() < crate::PARALLEL_MIN {
            self.bucket_of.clear();
            self.bucket_of.extend(placed.iter().map(bucket));
        } else {
            placed
                .par_iter()
                .map(bucket)
                .collect_into_vec(&mut self.bucket_of);
        }

        // Counting sort by bucket (stable in the input index).
        self.start.resize(base + 1, 0);
        for &b in &self.bucket_of {
            self.start[b + 1] += 1;
        }
        for b in 0..base {
            self.start[b + 1] += self.start[b];
        }
        let mut fill: Vec<u32> = self.start[..base].to_vec();
        let n = spheres.len();
        self.pos.resize(n, [0.0; 4]);
        self.ids.resize(n, 0);
        if folded {
            self.cells.resize(n, [0; 3]);
        }
        for (i, s) in spheres.iter().enumerate() {
            let b = self.bucket_of[i];
            let at = fill[b] as usize;
            fill[b] += 1;
            let c = s.center;
            self.pos[at] = [c[0], c[1], c[2], s.radius + inflate];
            self.ids[at] = i as u32;
            if folded {
                self.cells[at] = placed[i].1;
            }
        }
        Ok(())
    }

    /// Entries of the bucket holding `cell` on `level` (on a folded level, entries of other
    /// cells included: filter on [`Grid::cells`]); empty outside the occupied box.
    #[inline]
    pub fn bucket(&self, level: usize, cell: [i64; 3]) -> std::ops::Range<usize> {
        let l = &self.levels[level];
        if !l.contains(cell) {
            return 0..0;
        }
        let b = l.bucket(cell);
        self.start[b] as usize..self.start[b + 1] as usize
    }

    /// Entries of the cells `x0..=x1` of row `(y, z)` on a dense `level`, clipped to the
    /// occupied box (one contiguous range).
    #[inline(always)]
    pub fn row(&self, level: usize, x0: i64, x1: i64, y: i64, z: i64) -> std::ops::Range<usize> {
        let l = &self.levels[level];
        let (x0, x1) = (x0.max(l.lo[0]), x1.min(l.hi[0]));
        if x0 > x1 || y < l.lo[1] || y > l.hi[1] || z < l.lo[2] || z > l.hi[2] {
            return 0..0;
        }
        let b0 = l.bucket([x0, y, z]);
        let b1 = b0 + (x1 - x0) as usize;
        self.start[b0] as usize..self.start[b1 + 1] as usize
    }
}

/// Level and cell of one sphere; level `u32::MAX` flags an error.
fn place(s: &Sphere, inflate: f64, sizes: &[f64]) -> (u32, [i64; 3]) {
    const BAD: (u32, [i64; 3]) = (u32::MAX, [0; 3]);
    let finite = s.center.iter().all(|x| x.is_finite()) && s.radius.is_finite();
    if !finite || s.radius < 0.0 {
        return BAD;
    }
    let need = 2.0 * (s.radius + inflate) * (1.0 + FIT_MARGIN);
    let level = sizes.partition_point(|&size| size < need);
    if level == sizes.len() {
        return BAD;
    }
    let inv = 1.0 / sizes[level];
    let mut cell = [0i64; 3];
    for (k, &x) in cell.iter_mut().zip(&s.center) {
        let v = x * inv;
        if v.abs() >= MAX_CELL_COORD {
            return BAD;
        }
        *k = floor_i64(v);
    }
    (level as u32, cell)
}

/// The error explaining why [`place`] rejected a sphere.
fn placement_error(index: usize, s: &Sphere, inflate: f64, sizes: &[f64]) -> BroadPhaseError {
    if let Err(e) = crate::validate(std::slice::from_ref(s)) {
        return match e {
            BroadPhaseError::NonFinite { center, radius, .. } => BroadPhaseError::NonFinite {
                index,
                center,
                radius,
            },
            BroadPhaseError::NegativeRadius { radius, .. } => {
                BroadPhaseError::NegativeRadius { index, radius }
            }
            other => other,
        };
    }
    let need = 2.0 * (s.radius + inflate) * (1.0 + FIT_MARGIN);
    let level = sizes.partition_point(|&size| size < need);
    match sizes.get(level) {
        None => BroadPhaseError::TooLarge {
            index,
            diameter: 2.0 * (s.radius + inflate),
            cell_size: sizes.last().copied().unwrap_or(0.0),
        },
        Some(&cell_size) => BroadPhaseError::OutOfRange {
            index,
            center: s.center,
            cell_size,
        },
    }
}

/// Fold dimensions (log2 per axis) of a folded level: the box rounded up to powers of two,
/// then halved along the longest axis until about four buckets per sphere remain.
fn fold_bits(lo: [i64; 3], hi: [i64; 3], count: usize) -> [u64; 3] {
    let mut bits = [0u64; 3];
    for a in 0..3 {
        let extent = (hi[a] - lo[a]) as u64 + 1;
        bits[a] = u64::from(extent.next_power_of_two().trailing_zeros()).min(MAX_BUCKET_BITS);
    }
    let budget =
        u64::from((4 * count as u64).next_power_of_two().trailing_zeros()).min(MAX_BUCKET_BITS);
    while bits.iter().sum::<u64>() > budget {
        // Shrink the largest axis; on ties prefer z, then y, keeping x rows contiguous.
        let a = (0..3).max_by_key(|&a| bits[a]).unwrap_or(2);
        bits[a] -= 1;
    }
    bits
}
