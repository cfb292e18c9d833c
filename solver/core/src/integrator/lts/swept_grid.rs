//! Incremental uniform grid over the tubes' bounding spheres (seed 004 §3, check 1), for
//! the sweeps inside one synchronisation interval: only the particles that advanced in the
//! previous sweep get new tubes, so only their pairs are searched again. A sphere is
//! registered in every cell its box overlaps; a sphere whose box covers more than
//! [`MAX_CELLS_PER_AXIS`] cells along an axis is kept in a list of large spheres that every
//! query tests. Queries return ids sorted ascending, so the hash map's order never shows.

use std::collections::HashMap;

use msdem_broadphase::Sphere;

/// Largest box extent in cells (per axis) of a sphere kept in the cells [-].
pub const MAX_CELLS_PER_AXIS: i64 = 4;

type Cell = (i64, i64, i64);

/// The grid (see the module docs).
#[derive(Debug, Default)]
pub struct SweptGrid {
    size: f64,
    cells: HashMap<Cell, Vec<u32>>,
    /// Per id: its cell box (lo, hi), `None` for a large sphere.
    boxes: Vec<Option<(Cell, Cell)>>,
    large: Vec<u32>,
    spheres: Vec<Sphere>,
}

impl SweptGrid {
    fn cell_box(&self, s: &Sphere) -> Option<(Cell, Cell)> {
        let f = |x: f64| (x / self.size).floor() as i64;
        let lo = (
            f(s.center[0] - s.radius),
            f(s.center[1] - s.radius),
            f(s.center[2] - s.radius),
        );
        let hi = (
            f(s.center[0] + s.radius),
            f(s.center[1] + s.radius),
            f(s.center[2] + s.radius),
        );
        let small = hi.0 - lo.0 < MAX_CELLS_PER_AXIS
            && hi.1 - lo.1 < MAX_CELLS_PER_AXIS
            && hi.2 - lo.2 < MAX_CELLS_PER_AXIS;
        small.then_some((lo, hi))
    }

    fn cells_of(b: (Cell, Cell)) -> impl Iterator<Item = Cell> {
        let (lo, hi) = b;
        (lo.0..=hi.0).flat_map(move |x| {
            (lo.1..=hi.1).flat_map(move |y| (lo.2..=hi.2).map(move |z| (x, y, z)))
        })
    }

    /// Rebuilds the grid over `spheres` (ids = indices) with cells of twice the median
    /// radius.
    pub fn rebuild(&mut self, spheres: &[Sphere]) {
        let mut radii: Vec<f64> = spheres.iter().map(|s| s.radius).collect();
        radii.sort_by(f64::total_cmp);
        let median = radii.get(radii.len() / 2).copied().unwrap_or(1.0);
        self.size = if median.is_finite() && median > 0.0 {
            2.0 * median
        } else {
            1.0
        };
        self.cells.clear();
        self.large.clear();
        self.boxes.clear();
        self.spheres.clear();
        self.spheres.extend_from_slice(spheres);
        for (i, s) in spheres.iter().enumerate() {
            let b = self.cell_box(s);
            self.boxes.push(b);
            self.register(i as u32, b);
        }
    }

    fn register(&mut self, id: u32, b: Option<(Cell, Cell)>) {
        match b {
            Some(b) => {
                for c in Self::cells_of(b) {
                    self.cells.entry(c).or_default().push(id);
                }
            }
            None => self.large.push(id),
        }
    }

    fn unregister(&mut self, id: u32) {
        match self.boxes[id as usize] {
            Some(b) => {
                for c in Self::cells_of(b) {
                    if let Some(v) = self.cells.get_mut(&c) {
                        v.retain(|&x| x != id);
                    }
                }
            }
            None => self.large.retain(|&x| x != id),
        }
    }

    /// Moves sphere `id` to `s`.
    pub fn update(&mut self, id: u32, s: Sphere) {
        self.unregister(id);
        let b = self.cell_box(&s);
        self.boxes[id as usize] = b;
        self.spheres[id as usize] = s;
        self.register(id, b);
    }

    /// Ids (other than `id`) whose spheres overlap sphere `id` (`|c_i − c_j| ≤ r_i + r_j`),
    /// ascending, into `out` (cleared first).
    pub fn query(&self, id: u32, out: &mut Vec<u32>) {
        out.clear();
        let s = self.spheres[id as usize];
        match self.boxes[id as usize] {
            Some(b) => {
                for c in Self::cells_of(b) {
                    if let Some(v) = self.cells.get(&c) {
                        out.extend_from_slice(v);
                    }
                }
                out.extend_from_slice(&self.large);
            }
            None => out.extend(0..self.spheres.len() as u32),
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&j| {
            let t = &self.spheres[j as usize];
            let d2: f64 = (0..3).map(|k| (s.center[k] - t.center[k]).powi(2)).sum();
            let r = s.radius + t.radius;
            j != id && d2 <= r * r
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_after_updates_match_brute_force() {
        let mut spheres: Vec<Sphere> = (0..60)
            .map(|i| {
                let f = i as f64;
                Sphere::new(
                    [
                        (f * 0.37).sin() * 2.0,
                        (f * 0.91).cos() * 2.0,
                        (f * 0.13).sin(),
                    ],
                    0.1 + 0.05 * (i % 7) as f64 + if i % 17 == 0 { 3.0 } else { 0.0 },
                )
            })
            .collect();
        let mut g = SweptGrid::default();
        g.rebuild(&spheres);
        for k in 0..30u32 {
            let id = (k * 7) % 60;
            let s = &mut spheres[id as usize];
            s.center[0] += 0.3 * (k as f64).cos();
            s.radius *= 1.2;
            g.update(id, *s);
        }
        let mut out = Vec::new();
        for i in 0..60u32 {
            g.query(i, &mut out);
            let brute: Vec<u32> = (0..60u32)
                .filter(|&j| {
                    let (a, b) = (&spheres[i as usize], &spheres[j as usize]);
                    let d2: f64 = (0..3).map(|k| (a.center[k] - b.center[k]).powi(2)).sum();
                    j != i && d2 <= (a.radius + b.radius).powi(2)
                })
                .collect();
            assert_eq!(out, brute, "sphere {i}");
        }
    }
}
