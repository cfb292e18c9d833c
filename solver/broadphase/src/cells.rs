//! Multi-level hashed cell table: the mapping phase of seed 001 §2.1.
//!
//! Every level `h` has its own cell size `s_h`; a sphere of diameter `d` lives on the lowest
//! level with `d·(1 + FIT_MARGIN) ≤ s_h` (eq. 3, with a small safety margin so that rounding
//! in `⌊x/s⌋` can never push two touching spheres two cells apart) in the cell
//! `⌊x / s_h⌋` (eq. 1).
//!
//! The domain is unbounded: a level's cells are folded into a power-of-two bucket array
//! (`(i mod X, j mod Y, k mod Z)` relative to the level's occupied bounding box), sized about
//! four buckets per particle. Neighbouring cells fold to neighbouring buckets, so lookups are
//! cache friendly; distinct cells that fold onto one bucket are told apart by the exact cell
//! key stored with every entry. Entries are sorted by bucket with a counting sort, so one
//! build is O(N).

use crate::{BroadPhaseError, Sphere};
use rayon::prelude::*;

/// Relative margin between a sphere's diameter and the cell it is allowed to live in.
pub(crate) const FIT_MARGIN: f64 = 1e-3;

/// Cell coordinates must stay below this magnitude so that `⌊x/s⌋` keeps enough absolute
/// precision for [`FIT_MARGIN`] (2⁴⁰ cells; ≈ 1.1e9 m for a 1 mm cell).
const MAX_CELL_COORD: f64 = (1u64 << 40) as f64;

/// Largest bucket count of a level, as a power of two.
const MAX_BUCKET_BITS: u32 = 30;

/// One sphere as stored in the table (one cache line).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Entry {
    /// Centre \[m\].
    pub c: [f64; 3],
    /// Radius used for the search (input radius + inflation) \[m\].
    pub r: f64,
    /// Cell coordinates on the entry's level.
    pub cell: [i64; 3],
    /// Index of the sphere in the caller's slice.
    pub id: u32,
    /// Level of insertion.
    pub level: u32,
}

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
    /// log2 of the fold dimensions.
    bits: [u32; 3],
    /// Index of the level's first bucket in [`Grid::start`].
    base: usize,
    /// Number of spheres on this level.
    pub count: usize,
}

impl Level {
    /// Bucket of a cell known to lie inside the bounding box.
    #[inline]
    fn fold(&self, cell: [i64; 3]) -> usize {
        let mx = (1i64 << self.bits[0]) - 1;
        let my = (1i64 << self.bits[1]) - 1;
        let mz = (1i64 << self.bits[2]) - 1;
        let x = ((cell[0] - self.lo[0]) & mx) as usize;
        let y = ((cell[1] - self.lo[1]) & my) as usize;
        let z = ((cell[2] - self.lo[2]) & mz) as usize;
        self.base + (x | (y << self.bits[0]) | (z << (self.bits[0] + self.bits[1])))
    }

    /// Whether a cell lies inside the occupied bounding box.
    #[inline]
    pub fn contains(&self, cell: [i64; 3]) -> bool {
        (0..3).all(|a| cell[a] >= self.lo[a] && cell[a] <= self.hi[a])
    }
}

/// The hashed multi-level cell table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    /// Levels, cell size ascending.
    pub levels: Vec<Level>,
    /// Spheres sorted by (level, bucket), stable in the input index.
    pub entries: Vec<Entry>,
    /// CSR offsets: bucket `b` holds `entries[start[b]..start[b + 1]]`.
    start: Vec<u32>,
    /// Scratch: (level, cell) per input sphere.
    placed: Vec<(u32, [i64; 3])>,
    /// Scratch: global bucket per input sphere.
    bucket_of: Vec<usize>,
}

/// Maps a coordinate to its cell index on a level (eq. 1). Monotone in `x`.
#[inline]
pub(crate) fn cell_coord(x: f64, inv: f64) -> f64 {
    (x * inv).floor()
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
        self.entries.clear();
        self.start.clear();
        let placed = &mut self.placed;
        spheres
            .par_iter()
            .map(|s| place(s, inflate, sizes))
            .collect_into_vec(placed);
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
        for l in self.levels.iter_mut() {
            l.base = base;
            if l.count == 0 {
                l.lo = [1; 3];
                l.hi = [0; 3]; // empty box: `contains` is always false
                l.bits = [0; 3];
                continue;
            }
            l.bits = fold_bits(l.lo, l.hi, l.count);
            base += 1usize << (l.bits[0] + l.bits[1] + l.bits[2]);
        }

        let levels = &self.levels;
        placed
            .par_iter()
            .map(|(level, cell)| levels[*level as usize].fold(*cell))
            .collect_into_vec(&mut self.bucket_of);

        // Counting sort by bucket (stable in the input index).
        self.start.resize(base + 1, 0);
        for &b in &self.bucket_of {
            self.start[b + 1] += 1;
        }
        for b in 0..base {
            self.start[b + 1] += self.start[b];
        }
        let mut fill: Vec<u32> = self.start[..base].to_vec();
        self.entries.resize(spheres.len(), Entry::default());
        for (i, s) in spheres.iter().enumerate() {
            let b = self.bucket_of[i];
            let (level, cell) = placed[i];
            self.entries[fill[b] as usize] = Entry {
                c: s.center,
                r: s.radius + inflate,
                cell,
                id: i as u32,
                level,
            };
            fill[b] += 1;
        }
        Ok(())
    }

    /// The bucket holding `cell` on `level` (entries of other folded cells included; filter
    /// on [`Entry::cell`]), or an empty slice when the cell is outside the occupied box.
    #[inline]
    pub fn bucket(&self, level: usize, cell: [i64; 3]) -> &[Entry] {
        let l = &self.levels[level];
        if !l.contains(cell) {
            return &[];
        }
        let b = l.fold(cell);
        &self.entries[self.start[b] as usize..self.start[b + 1] as usize]
    }

    /// The entries after position `pos` in its own bucket.
    #[inline]
    pub fn rest_of_bucket(&self, pos: usize) -> &[Entry] {
        let e = &self.entries[pos];
        let b = self.levels[e.level as usize].fold(e.cell);
        &self.entries[pos + 1..self.start[b + 1] as usize]
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
        let c = cell_coord(x, inv);
        if c.abs() >= MAX_CELL_COORD {
            return BAD;
        }
        *k = c as i64;
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

/// Fold dimensions (log2 per axis) for a level's occupied box: the exact box when it fits
/// the budget of about four buckets per sphere, else halved along the longest axis.
fn fold_bits(lo: [i64; 3], hi: [i64; 3], count: usize) -> [u32; 3] {
    let mut bits = [0u32; 3];
    for a in 0..3 {
        let extent = (hi[a] - lo[a]) as u64 + 1;
        bits[a] = extent
            .next_power_of_two()
            .trailing_zeros()
            .min(MAX_BUCKET_BITS);
    }
    let budget = (4 * count as u64)
        .next_power_of_two()
        .trailing_zeros()
        .min(MAX_BUCKET_BITS);
    while bits.iter().sum::<u32>() > budget {
        // Shrink the largest axis; on ties prefer z, then y, keeping x rows contiguous.
        let a = (0..3).max_by_key(|&a| bits[a]).unwrap_or(2);
        bits[a] -= 1;
    }
    bits
}
