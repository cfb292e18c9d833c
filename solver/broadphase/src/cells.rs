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

/// Entries tested together, branch-free, when a run is at most this long (a block may
/// read past the run, into the next entries or the padding, and masks those out).
pub(crate) const BLOCK: usize = 4;

/// Relative margin between a sphere's diameter and the cell it is allowed to live in.
pub(crate) const FIT_MARGIN: f64 = 1e-3;

/// Cell coordinates must stay below this magnitude so that `⌊x/s⌋` keeps enough absolute
/// precision for [`FIT_MARGIN`] (2⁴⁰ cells; ≈ 1.1e9 m for a 1 mm cell).
pub(crate) const MAX_CELL_COORD: f64 = (1u64 << 40) as f64;

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
    pub dims: [u64; 3],
    /// Index of the level's first bucket in [`Grid::start`].
    pub base: usize,
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
    /// bucket), stable in the input index, followed by [`BLOCK`] padding entries.
    pub pos: Vec<[f64; 4]>,
    /// Input index of each entry.
    pub ids: Vec<u32>,
    /// Cell of each entry; filled only when some level is folded.
    pub cells: Vec<[i64; 3]>,
    /// CSR offsets: bucket `b` holds entries `start[b]..start[b + 1]`.
    pub start: Vec<u32>,
    /// Scratch: global bucket per input sphere.
    bucket_of: Vec<usize>,
    /// Scratch: write cursor per bucket of the counting sort.
    fill: Vec<u32>,
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
    ///
    /// Three passes over the input: per-level extents (parallel), bucket per sphere
    /// (parallel), then a counting sort (histogram, prefix sum, scatter).
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
        let extents = match level_extents(spheres, inflate, sizes) {
            Some(e) => e,
            None => return Err(first_placement_error(spheres, inflate, sizes)),
        };
        self.levels = sizes
            .iter()
            .zip(&extents)
            .map(|(&size, e)| {
                let inv = 1.0 / size;
                Level {
                    size,
                    inv,
                    lo: e.min.map(|x| cell_coord(x, inv)),
                    hi: e.max.map(|x| cell_coord(x, inv)),
                    count: e.count,
                    ..Level::default()
                }
            })
            .collect();
        let in_range = |e: &Extent, l: &Level| {
            e.count == 0
                || e.min
                    .iter()
                    .chain(&e.max)
                    .all(|&x| (x * l.inv).abs() < MAX_CELL_COORD)
        };
        if !extents
            .iter()
            .zip(&self.levels)
            .all(|(e, l)| in_range(e, l))
        {
            self.levels.clear();
            return Err(first_placement_error(spheres, inflate, sizes));
        }
        let (buckets, folded) = self.lay_out_levels();

        let levels = &self.levels;
        let bucket = |s: &Sphere| {
            let l = &levels[level_of(s.radius, inflate, sizes)];
            l.bucket(l.cell_of(&s.center))
        };
        if spheres.len() < crate::PARALLEL_MIN {
            self.bucket_of.clear();
            self.bucket_of.extend(spheres.iter().map(bucket));
        } else {
            spheres
                .par_iter()
                .map(bucket)
                .collect_into_vec(&mut self.bucket_of);
        }

        // Counting sort by bucket (stable in the input index): counts land in
        // `start[b + 1]`, an inclusive prefix sum makes `start[b]` the first entry of `b`.
        self.start.resize(buckets + 1, 0);
        for &b in &self.bucket_of {
            self.start[b + 1] += 1;
        }
        for b in 0..buckets {
            self.start[b + 1] += self.start[b];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.start[..buckets]);
        let n = spheres.len();
        // BLOCK padding entries after the last: short runs are tested as whole blocks.
        self.pos.resize(n + BLOCK, [0.0; 4]);
        self.ids.resize(n, 0);
        if folded {
            self.cells.resize(n, [0; 3]);
        }
        for (i, (s, &b)) in spheres.iter().zip(&self.bucket_of).enumerate() {
            let at = self.fill[b] as usize;
            self.fill[b] += 1;
            let c = s.center;
            self.pos[at] = [c[0], c[1], c[2], s.radius + inflate];
            self.ids[at] = i as u32;
            if folded {
                let l = &self.levels[level_of(s.radius, inflate, sizes)];
                self.cells[at] = l.cell_of(&c);
            }
        }
        Ok(())
    }

    /// Chooses each level's layout (dense or folded) and bucket range; returns the total
    /// bucket count and whether some level is folded.
    fn lay_out_levels(&mut self) -> (usize, bool) {
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
        (base, folded)
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

/// Count and bounding box of the centres \[m\] of the spheres on one level.
#[derive(Clone, Copy, Debug)]
struct Extent {
    count: usize,
    min: [f64; 3],
    max: [f64; 3],
}

impl Extent {
    const EMPTY: Extent = Extent {
        count: 0,
        min: [f64::INFINITY; 3],
        max: [f64::NEG_INFINITY; 3],
    };

    fn merge(mut self, o: &Extent) -> Extent {
        self.count += o.count;
        for a in 0..3 {
            self.min[a] = self.min[a].min(o.min[a]);
            self.max[a] = self.max[a].max(o.max[a]);
        }
        self
    }
}

/// Spheres per task of the parallel extent pass.
const EXTENT_CHUNK: usize = 8192;

/// Per-level extents of a valid sphere set, or `None` if some sphere is invalid or fits no
/// level (the caller then looks for the lowest offending index).
fn level_extents(spheres: &[Sphere], inflate: f64, sizes: &[f64]) -> Option<Vec<Extent>> {
    let scan = |chunk: &[Sphere]| -> Option<Vec<Extent>> {
        let mut ext = vec![Extent::EMPTY; sizes.len()];
        for s in chunk {
            let finite = s.center.iter().all(|x| x.is_finite()) && s.radius.is_finite();
            if !finite || s.radius < 0.0 {
                return None;
            }
            let e = ext.get_mut(level_of(s.radius, inflate, sizes))?;
            e.count += 1;
            for a in 0..3 {
                e.min[a] = e.min[a].min(s.center[a]);
                e.max[a] = e.max[a].max(s.center[a]);
            }
        }
        Some(ext)
    };
    let merge = |a: Option<Vec<Extent>>, b: Option<Vec<Extent>>| {
        let (mut a, b) = (a?, b?);
        for (x, y) in a.iter_mut().zip(&b) {
            *x = x.merge(y);
        }
        Some(a)
    };
    if spheres.len() < crate::PARALLEL_MIN {
        scan(spheres)
    } else {
        spheres
            .par_chunks(EXTENT_CHUNK)
            .map(scan)
            .reduce(|| Some(vec![Extent::EMPTY; sizes.len()]), merge)
    }
}

/// Level of a sphere of radius `radius` + `inflate` \[m\]: the lowest whose cell fits its
/// diameter (eq. 3); `sizes.len()` if none does. Linear: most spheres sit on low levels.
#[inline]
fn level_of(radius: f64, inflate: f64, sizes: &[f64]) -> usize {
    let need = 2.0 * (radius + inflate) * (1.0 + FIT_MARGIN);
    let mut level = 0;
    while level < sizes.len() && sizes[level] < need {
        level += 1;
    }
    level
}

/// The error of the lowest-index sphere that cannot be placed.
fn first_placement_error(spheres: &[Sphere], inflate: f64, sizes: &[f64]) -> BroadPhaseError {
    match spheres
        .iter()
        .position(|s| place(s, inflate, sizes).0 == u32::MAX)
    {
        Some(index) => placement_error(index, &spheres[index], inflate, sizes),
        None => BroadPhaseError::Config("internal: no sphere failed placement".into()),
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
    if let Err(e) = crate::sphere::validate_sphere(index, s) {
        return e;
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
