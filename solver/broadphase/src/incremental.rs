//! Incremental HGrid (seed 001 §2, §7: "unbounded domains (hashed cells)", O(1) insert and
//! remove): spheres are kept in hashed cells between queries and changed one at a time.
//!
//! * Every level is a hash map from cell `⌊x/s_h⌋` (eq. 1) to a bucket; a bucket stores
//!   copies of its spheres' `[x, y, z, r]` and ids, so a search streams one block per cell.
//! * A slot per id records (level, bucket, position in the bucket), so `remove` is a
//!   swap-remove in the bucket (the moved sphere's slot is patched) and an emptied cell is
//!   dropped from the map and its bucket recycled: expected O(1), no scan.
//! * `update` overwrites the stored sphere when its level and cell do not change (O(1)),
//!   and is a remove + insert otherwise.
//!
//! **Levels.** [`IncrementalHGrid::with_spheres`] plans them from a first batch by the same
//! rule as [`crate::HGrid`] (seed 001 eq. 37 and the cost model); explicit
//! [`HGridConfig::cell_sizes`] override them. A sphere too large for the top level gets
//! **a new top level** of cell size max(its diameter, 2 × the old top) when the levels are
//! automatic (existing spheres stay where they are), and a
//! [`BroadPhaseError::TooLarge`] error when the sizes were given. A grid created empty by
//! [`IncrementalHGrid::new`] starts with one level sized for its first sphere.
//!
//! The pair search is in [`crate::incremental_search`].

use crate::cells::{cell_coord, FIT_MARGIN, MAX_CELL_COORD};
use crate::hgrid::auto_cell_sizes;
use crate::sphere::validate_sphere;
use crate::{validate, BroadPhaseError, BroadPhaseStats, HGridConfig, LevelInfo, Sphere};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A cell key `[i, j, k]` whose hash is one multiply-xor of the three coordinates (the std
/// SipHash, or a byte-wise hash of the 24 bytes, costs more than the sphere tests it guards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellKey(pub [i64; 3]);

impl Hash for CellKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let [x, y, z] = self.0.map(|v| v as u64);
        state.write_u64(
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ y.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                ^ z.wrapping_mul(0x1656_67B1_9E37_79F9),
        );
    }
}

/// Finishes the [`CellKey`] hash: mixes high bits into the low ones (the table index).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^ (h >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = self.0.rotate_left(29) ^ v;
    }
}

/// Cell → bucket index.
pub(crate) type CellMap = HashMap<CellKey, u32, BuildHasherDefault<CellHasher>>;

/// One occupied cell: its key and its spheres.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bucket {
    /// Cell coordinates.
    pub cell: [i64; 3],
    /// Centre and radius `[x, y, z, r]` \[m\] of each sphere.
    pub pos: Vec<[f64; 4]>,
    /// Id of each sphere.
    pub ids: Vec<u32>,
}

/// One level: hashed cells of one size.
#[derive(Clone, Debug, Default)]
pub(crate) struct ILevel {
    /// Cell size \[m\].
    pub size: f64,
    /// 1 / cell size \[1/m\].
    pub inv: f64,
    /// Occupied cells.
    pub cells: CellMap,
    /// Buckets; the empty ones are listed in `free`.
    pub buckets: Vec<Bucket>,
    /// Indices of empty, reusable buckets.
    free: Vec<u32>,
    /// Spheres on this level.
    pub count: usize,
}

/// Where a present id lives.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    level: u32,
    bucket: u32,
    index: u32,
}

/// Marks an absent id.
const VACANT: Slot = Slot {
    level: u32::MAX,
    bucket: 0,
    index: 0,
};

/// HGrid maintained under per-sphere insert / remove / update (see the module docs).
/// Pairs are reported by id. Ids index a slot table, so they should be dense (body
/// indices): memory grows with the largest id.
///
/// As a [`crate::BroadPhase`] it is synchronised to each query's slice (ids = indices):
/// present ids are updated, new ones inserted, ids past the end removed; the automatic
/// levels are planned from the first non-empty slice.
#[derive(Clone, Debug, Default)]
pub struct IncrementalHGrid {
    /// Levels, cell size ascending.
    pub(crate) levels: Vec<ILevel>,
    /// Whether new top levels may be added (automatic sizes).
    pub(crate) auto: bool,
    /// Forced level count for planning.
    pub(crate) plan_levels: Option<usize>,
    slots: Vec<Slot>,
    len: usize,
    pub(crate) stats: BroadPhaseStats,
    /// Reused pair buffers of the search.
    pub(crate) scratch: (Vec<u64>, Vec<u64>),
}

impl IncrementalHGrid {
    /// An empty grid. With explicit `cell_sizes` those are the levels; otherwise the first
    /// inserted sphere sizes a single level (use [`IncrementalHGrid::with_spheres`] to plan
    /// the levels from a representative batch). The skin must be 0 (moves are tracked by
    /// [`IncrementalHGrid::update`] instead).
    pub fn new(config: HGridConfig) -> Result<Self, BroadPhaseError> {
        config.validate()?;
        if config.skin != 0.0 {
            return Err(BroadPhaseError::Config(format!(
                "the incremental HGrid has no Verlet skin (got {}); use update() for moves",
                config.skin
            )));
        }
        let mut grid = IncrementalHGrid {
            auto: config.cell_sizes.is_none(),
            plan_levels: config.levels,
            ..Default::default()
        };
        for &size in config.cell_sizes.iter().flatten() {
            grid.push_level(size);
        }
        Ok(grid)
    }

    /// A grid holding `spheres` with ids `0..n`, its automatic levels planned from them
    /// (unless the configuration gives cell sizes). Fails, changing nothing, on an invalid
    /// sphere (lowest index first) or configuration.
    pub fn with_spheres(config: HGridConfig, spheres: &[Sphere]) -> Result<Self, BroadPhaseError> {
        let mut grid = IncrementalHGrid::new(config)?;
        validate(spheres)?;
        if grid.auto && !spheres.is_empty() {
            for size in auto_cell_sizes(spheres, 0.0, grid.plan_levels) {
                grid.push_level(size);
            }
        }
        for (i, s) in spheres.iter().enumerate() {
            grid.insert(i as u32, *s)?;
        }
        Ok(grid)
    }

    pub(crate) fn push_level(&mut self, size: f64) {
        self.levels.push(ILevel {
            size,
            inv: 1.0 / size,
            ..Default::default()
        });
    }

    /// Number of spheres held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sphere is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `id` is held.
    pub fn contains(&self, id: u32) -> bool {
        self.slot(id).is_some()
    }

    /// The sphere stored under `id`.
    pub fn get(&self, id: u32) -> Option<Sphere> {
        let s = self.slot(id)?;
        let p = self.levels[s.level as usize].buckets[s.bucket as usize].pos[s.index as usize];
        Some(Sphere::new([p[0], p[1], p[2]], p[3]))
    }

    /// Cell sizes of the levels \[m\], ascending.
    pub fn cell_sizes(&self) -> Vec<f64> {
        self.levels.iter().map(|l| l.size).collect()
    }

    /// Level sizes and counts (`dense` is always false: every level is hashed).
    pub fn levels(&self) -> Vec<LevelInfo> {
        self.levels
            .iter()
            .map(|l| LevelInfo {
                cell_size: l.size,
                count: l.count,
                dense: false,
            })
            .collect()
    }

    /// Work counters of the last [`IncrementalHGrid::find_pairs`].
    pub fn stats(&self) -> BroadPhaseStats {
        self.stats
    }

    fn slot(&self, id: u32) -> Option<Slot> {
        self.slots
            .get(id as usize)
            .copied()
            .filter(|s| *s != VACANT)
    }

    /// Level, cell size \[m\] and cell for `sphere` (stored under `id`, named in errors).
    /// The level is `levels.len()` when a new top level of that size is needed.
    pub(crate) fn locate(
        &self,
        id: u32,
        sphere: &Sphere,
    ) -> Result<(usize, f64, [i64; 3]), BroadPhaseError> {
        let index = id as usize;
        validate_sphere(index, sphere)?;
        let need = 2.0 * sphere.radius * (1.0 + FIT_MARGIN);
        let (level, size) = match self.levels.iter().position(|l| l.size >= need) {
            Some(level) => (level, self.levels[level].size),
            None if self.auto => {
                let top = self.levels.last().map_or(0.0, |l| 2.0 * l.size);
                // A zero-radius first sphere still needs a positive cell.
                (self.levels.len(), need.max(top).max(1e-9))
            }
            None => {
                return Err(BroadPhaseError::TooLarge {
                    index,
                    diameter: 2.0 * sphere.radius,
                    cell_size: self.levels.last().map_or(0.0, |l| l.size),
                })
            }
        };
        let inv = 1.0 / size;
        if sphere
            .center
            .iter()
            .any(|&x| (x * inv).abs() >= MAX_CELL_COORD)
        {
            return Err(BroadPhaseError::OutOfRange {
                index,
                center: sphere.center,
                cell_size: size,
            });
        }
        Ok((level, size, sphere.center.map(|x| cell_coord(x, inv))))
    }

    /// [`IncrementalHGrid::locate`], adding the new top level if one is needed.
    fn place(&mut self, id: u32, sphere: &Sphere) -> Result<(usize, [i64; 3]), BroadPhaseError> {
        let (level, size, cell) = self.locate(id, sphere)?;
        if level == self.levels.len() {
            self.push_level(size);
        }
        Ok((level, cell))
    }

    /// Adds `sphere` under `id`; expected O(1). Fails, changing nothing, if `id` is present
    /// or the sphere is invalid (non-finite, negative radius, too far out, too large for
    /// given cell sizes).
    pub fn insert(&mut self, id: u32, sphere: Sphere) -> Result<(), BroadPhaseError> {
        if self.contains(id) {
            return Err(BroadPhaseError::DuplicateId { id });
        }
        let (level, cell) = self.place(id, &sphere)?;
        self.put(id, &sphere, level, cell);
        Ok(())
    }

    /// Stores a placed sphere.
    fn put(&mut self, id: u32, sphere: &Sphere, level: usize, cell: [i64; 3]) {
        let l = &mut self.levels[level];
        let bucket = match l.cells.get(&CellKey(cell)) {
            Some(&b) => b,
            None => {
                let b = l.free.pop().unwrap_or_else(|| {
                    l.buckets.push(Bucket::default());
                    (l.buckets.len() - 1) as u32
                });
                l.buckets[b as usize].cell = cell;
                l.cells.insert(CellKey(cell), b);
                b
            }
        };
        let bk = &mut l.buckets[bucket as usize];
        let c = sphere.center;
        bk.pos.push([c[0], c[1], c[2], sphere.radius]);
        bk.ids.push(id);
        l.count += 1;
        if self.slots.len() <= id as usize {
            self.slots.resize(id as usize + 1, VACANT);
        }
        self.slots[id as usize] = Slot {
            level: level as u32,
            bucket,
            index: (bk.ids.len() - 1) as u32,
        };
        self.len += 1;
    }

    /// Removes `id` and returns its sphere; expected O(1) (swap-remove in its bucket).
    pub fn remove(&mut self, id: u32) -> Result<Sphere, BroadPhaseError> {
        let sphere = self.get(id).ok_or(BroadPhaseError::UnknownId { id })?;
        let slot = self.slots[id as usize];
        let l = &mut self.levels[slot.level as usize];
        let bk = &mut l.buckets[slot.bucket as usize];
        let i = slot.index as usize;
        bk.pos.swap_remove(i);
        bk.ids.swap_remove(i);
        if let Some(&moved) = bk.ids.get(i) {
            self.slots[moved as usize].index = i as u32;
        }
        if bk.ids.is_empty() {
            l.cells.remove(&CellKey(bk.cell));
            l.free.push(slot.bucket);
        }
        l.count -= 1;
        self.slots[id as usize] = VACANT;
        self.len -= 1;
        Ok(sphere)
    }

    /// Moves or resizes `id`: O(1) when its level and cell stay the same, remove + insert
    /// otherwise. Fails, changing nothing, if `id` is absent or the sphere is invalid.
    pub fn update(&mut self, id: u32, sphere: Sphere) -> Result<(), BroadPhaseError> {
        let slot = self.slot(id).ok_or(BroadPhaseError::UnknownId { id })?;
        let (level, cell) = self.place(id, &sphere)?;
        let l = &mut self.levels[slot.level as usize];
        let bk = &mut l.buckets[slot.bucket as usize];
        if level == slot.level as usize && cell == bk.cell {
            let c = sphere.center;
            bk.pos[slot.index as usize] = [c[0], c[1], c[2], sphere.radius];
            return Ok(());
        }
        self.remove(id)?;
        self.put(id, &sphere, level, cell);
        Ok(())
    }

    /// Removes every sphere (keeps the levels).
    pub fn clear(&mut self) {
        for l in &mut self.levels {
            l.cells.clear();
            l.buckets.clear();
            l.free.clear();
            l.count = 0;
        }
        self.slots.clear();
        self.len = 0;
    }

    /// Largest id that may be held plus one (the slot table length).
    pub(crate) fn id_bound(&self) -> usize {
        self.slots.len()
    }
}
