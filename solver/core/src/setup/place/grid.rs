//! The spheres already placed, hashed into a uniform grid so that random placement tests a
//! new centre against its neighbours only (issue 16, "setup scales": the test against every
//! earlier sphere made `random_box` O(n²)).
//!
//! The cell size is the diameter `h = 2r` of the spheres being placed. Every earlier sphere
//! is registered in each cell its box (inflated by [`MARGIN`]·h) meets, so a new sphere,
//! whose box spans at most 2 cells per axis, meets every sphere it could overlap in one of
//! its own ≤ 8 cells. A sphere whose box spans more than [`MAX_CELLS`] cells (a listed
//! particle much larger than the generated ones) is kept in a plain list instead. The
//! verdict equals the all-pairs test exactly: the grid only skips spheres whose boxes are
//! apart, which cannot overlap. Lookups only (no iteration over the map), so the result
//! is deterministic.

use std::collections::HashMap;

use msdem_geom::math::Vec3;

use super::Sphere;

/// Relative inflation (of the cell size) of the registered boxes, against rounding.
pub const MARGIN: f64 = 1e-6;
/// Most cells one sphere is registered in before it goes to the plain list.
pub const MAX_CELLS: i64 = 4096;

/// Earlier spheres by grid cell (see the module documentation).
pub struct SphereGrid {
    cell: f64,
    cells: HashMap<[i64; 3], Vec<u32>>,
    large: Vec<u32>,
    spheres: Vec<Sphere>,
}

impl SphereGrid {
    /// An index for placing spheres of radius `radius` \[m\] among `existing`.
    pub fn new(radius: f64, existing: &[Sphere]) -> Self {
        let mut grid = SphereGrid {
            cell: 2.0 * radius,
            cells: HashMap::new(),
            large: Vec::new(),
            spheres: Vec::with_capacity(existing.len()),
        };
        for s in existing {
            grid.insert(*s);
        }
        grid
    }

    fn coord(&self, x: f64) -> i64 {
        // Saturating cast: far-away or non-finite coordinates land in the edge cells.
        (x / self.cell).floor() as i64
    }

    fn range(&self, s: &Sphere, pad: f64) -> Option<[(i64, i64); 3]> {
        let usable = self.cell.is_finite() && self.cell > 0.0;
        let r = s.radius + pad;
        let r = [0, 1, 2].map(|k| (self.coord(s.center[k] - r), self.coord(s.center[k] + r)));
        let count = r
            .iter()
            .map(|(a, b)| b.saturating_sub(*a).saturating_add(1))
            .try_fold(1i64, |n, c| n.checked_mul(c));
        (usable && count.is_some_and(|n| n <= MAX_CELLS)).then_some(r)
    }

    /// Registers a placed sphere.
    pub fn insert(&mut self, s: Sphere) {
        let id = self.spheres.len() as u32;
        self.spheres.push(s);
        match self.range(&s, MARGIN * self.cell) {
            None => self.large.push(id),
            Some([x, y, z]) => {
                for i in x.0..=x.1 {
                    for j in y.0..=y.1 {
                        for k in z.0..=z.1 {
                            self.cells.entry([i, j, k]).or_default().push(id);
                        }
                    }
                }
            }
        }
    }

    /// True if a sphere of radius `radius` at `center` is disjoint from every registered
    /// sphere (`|c − c_o|² > (r + r_o)²`, as the all-pairs test).
    pub fn is_free(&self, center: Vec3, radius: f64) -> bool {
        let clear = |id: &u32| {
            let o = &self.spheres[*id as usize];
            (o.center - center).norm_squared() > (o.radius + radius).powi(2)
        };
        if !self.large.iter().all(clear) {
            return false;
        }
        let probe = Sphere { center, radius };
        match self.range(&probe, 0.0) {
            None => self
                .spheres
                .iter()
                .all(|o| (o.center - center).norm_squared() > (o.radius + radius).powi(2)),
            Some([x, y, z]) => (x.0..=x.1).all(|i| {
                (y.0..=y.1).all(|j| {
                    (z.0..=z.1).all(|k| {
                        self.cells
                            .get(&[i, j, k])
                            .is_none_or(|ids| ids.iter().all(clear))
                    })
                })
            }),
        }
    }
}
