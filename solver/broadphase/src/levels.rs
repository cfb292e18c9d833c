//! Automatic choice of the HGrid levels (seed 001 §3, §5.2.3, §7).
//!
//! For a candidate level count `L` the cell sizes follow the *constant number of particles
//! per cell* rule (eq. 37 with `q = 1`): with `N_h` the spheres on level `h`, the expected
//! occupancy `m_h = N_h s_h³ / V` (eq. 11) is the same on every level, i.e. `N_h s_h³` is
//! constant, with `s_L` = the largest diameter. The level count is the one that minimises the
//! paper's cost model (eqs. 23, 24, 27) for the Top-Down search, evaluated on the actual
//! diameters (a deterministic sample of at most [`MAX_SAMPLE`] of them) and the actual
//! domain volume, rather than on a fitted power law.

/// Largest level count considered.
pub const MAX_LEVELS: usize = 16;

/// Most diameters used to estimate the size distribution.
pub const MAX_SAMPLE: usize = 1 << 16;

/// Relative cost of one cell access against one sphere–sphere test (the paper's `K`,
/// eq. 27; seed 001 measured 0.2 for its code, a hashed lookup here costs about as much as
/// a sphere test).
pub const CELL_ACCESS_COST: f64 = 5.0;

/// Neighbour cells searched per sphere on its own level, `n_c = (3^d − 1)/2` (eq. 14).
const N_C: f64 = 13.0;

/// The empirical size distribution: sorted diameters with prefix sums of d, d², d³.
struct Distribution {
    d: Vec<f64>,
    /// `sums[k][i]` = Σ_{m < i} d_m^k for k = 0..=3.
    sums: [Vec<f64>; 4],
    /// Weight of one sample in spheres (N / sample size).
    weight: f64,
}

impl Distribution {
    fn new(mut d: Vec<f64>, total: usize) -> Self {
        d.sort_unstable_by(f64::total_cmp);
        let mut sums: [Vec<f64>; 4] = Default::default();
        for (k, s) in sums.iter_mut().enumerate() {
            s.reserve(d.len() + 1);
            s.push(0.0);
            let mut acc = 0.0;
            for &x in &d {
                acc += x.powi(k as i32);
                s.push(acc);
            }
        }
        let weight = total as f64 / d.len().max(1) as f64;
        Distribution { d, sums, weight }
    }

    /// Sample index of the first diameter greater than `s` (diameters `≤ s` come before).
    fn rank(&self, s: f64) -> usize {
        self.d.partition_point(|&x| x <= s)
    }

    /// Spheres with diameter in `(a, b]`.
    fn count(&self, a: f64, b: f64) -> f64 {
        (self.rank(b) - self.rank(a)) as f64 * self.weight
    }

    /// Σ over spheres with diameter in `(a, b]` of `(d/s + 2)³` — the cells of a level of
    /// size `s` overlapped by their Top-Down search boxes (eq. 16, numerator).
    fn boxes(&self, a: f64, b: f64, s: f64) -> f64 {
        let (i, j) = (self.rank(a), self.rank(b));
        let m = |k: usize| self.sums[k][j] - self.sums[k][i];
        let t = m(3) / s.powi(3) + 6.0 * m(2) / (s * s) + 12.0 * m(1) / s + 8.0 * m(0);
        t * self.weight
    }
}

/// Chooses the cell sizes \[m\] for spheres of the given diameters \[m\] (already including
/// any inflation and the fit margin) in a domain of `volume` \[m³\]. `levels` forces the
/// level count; `None` picks the cheapest by the cost model.
pub fn plan_cell_sizes(diameters: &[f64], volume: f64, levels: Option<usize>) -> Vec<f64> {
    let stride = diameters.len().div_ceil(MAX_SAMPLE).max(1);
    let mut sample: Vec<f64> = diameters.iter().step_by(stride).copied().collect();
    let max = diameters.iter().copied().fold(0.0, f64::max);
    // The largest diameter must be in the sample: it fixes the top level.
    sample.push(max);
    let dist = Distribution::new(sample, diameters.len().max(1));
    if max <= 0.0 || dist.d.is_empty() {
        return vec![if max > 0.0 { max } else { 1.0 }];
    }
    let volume = volume.max(max.powi(3));
    match levels {
        Some(l) => constant_occupancy_sizes(&dist, l.clamp(1, MAX_LEVELS)),
        None => {
            let mut best = (f64::INFINITY, Vec::new());
            for l in 1..=MAX_LEVELS {
                let sizes = constant_occupancy_sizes(&dist, l);
                if sizes.len() < l {
                    break; // the distribution cannot use more levels
                }
                let cost = predicted_cost(&dist, &sizes, volume);
                if cost < best.0 {
                    best = (cost, sizes);
                }
            }
            best.1
        }
    }
}

/// Predicted work per sphere of the Top-Down HGrid (eqs. 23, 24, 27) for given cell sizes.
fn predicted_cost(dist: &Distribution, sizes: &[f64], volume: f64) -> f64 {
    let n = dist.weight * dist.d.len() as f64;
    let lows: Vec<f64> = std::iter::once(0.0).chain(sizes.iter().copied()).collect();
    let occupancy: Vec<f64> = (0..sizes.len())
        .map(|h| dist.count(lows[h], sizes[h]) * sizes[h].powi(3) / volume)
        .collect();
    let mut total = 0.0;
    for h in 0..sizes.len() {
        let n_h = dist.count(lows[h], sizes[h]);
        let mut checks = n_h * (0.5 + N_C) * occupancy[h];
        let mut cells = n_h * (1.0 + N_C);
        for j in 0..h {
            let b = dist.boxes(lows[h], sizes[h], sizes[j]);
            checks += occupancy[j] * b;
            cells += b;
        }
        total += checks + CELL_ACCESS_COST * cells;
    }
    total / n
}

/// Cell sizes with `N_h s_h³` equal on every level (eq. 38, q = 1), at most `levels` of
/// them, the last one being the largest diameter.
fn constant_occupancy_sizes(dist: &Distribution, levels: usize) -> Vec<f64> {
    let max = *dist.d.last().unwrap_or(&1.0);
    let n = dist.weight * dist.d.len() as f64;
    // Bisection on log C: the chain gets shorter as the target product C grows.
    let (mut lo, mut hi) = ((n * max.powi(3)).ln() - 60.0, (n * max.powi(3)).ln() + 1e-9);
    let mut best = chain(dist, hi.exp(), levels);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        let c = chain(dist, mid.exp(), levels + 1);
        if c.len() <= levels {
            hi = mid;
            best = c;
        } else {
            lo = mid;
        }
    }
    best
}

/// Greedy chain of cell sizes with level products `N_h s_h³ ≈ c`, stopping at the largest
/// diameter or after `cap` levels.
fn chain(dist: &Distribution, c: f64, cap: usize) -> Vec<f64> {
    let max = *dist.d.last().unwrap_or(&1.0);
    let mut sizes = Vec::new();
    let mut prev = 0.0f64;
    while sizes.len() < cap {
        if dist.count(prev, max) * max.powi(3) <= c {
            sizes.push(max);
            return sizes;
        }
        // Smallest s in (prev, max) with count(prev, s)·s³ ≥ c, by bisection on s.
        let (mut a, mut b) = (prev, max);
        for _ in 0..64 {
            let m = 0.5 * (a + b);
            if dist.count(prev, m) * m.powi(3) >= c {
                b = m;
            } else {
                a = m;
            }
        }
        if b <= prev || b >= max {
            sizes.push(max);
            return sizes;
        }
        sizes.push(b);
        prev = b;
    }
    sizes.push(max); // over the cap: signals "too many levels" to the caller
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{random_packing, PackingSpec};

    fn diameters(exponent: f64, size_ratio: f64) -> (Vec<f64>, f64) {
        let spec = PackingSpec {
            count: 50_000,
            exponent,
            size_ratio,
            packing_fraction: 0.3,
            ..PackingSpec::default()
        };
        let spheres = random_packing(&spec);
        let d: Vec<f64> = spheres.iter().map(|s| 2.0 * s.radius).collect();
        let volume = d
            .iter()
            .map(|d| d.powi(3) * std::f64::consts::PI / 6.0)
            .sum::<f64>()
            / 0.3;
        (d, volume)
    }

    /// Σ over spheres on each level of s_h³ (∝ particles per cell, eq. 11).
    fn occupancy_products(d: &[f64], sizes: &[f64]) -> Vec<f64> {
        let mut counts = vec![0usize; sizes.len()];
        for &x in d {
            counts[sizes.partition_point(|&s| s < x)] += 1;
        }
        counts
            .iter()
            .zip(sizes)
            .map(|(&n, s)| n as f64 * s.powi(3))
            .collect()
    }

    #[test]
    fn constant_particles_per_cell_rule_holds() {
        let (d, volume) = diameters(-3.0, 100.0);
        let sizes = plan_cell_sizes(&d, volume, Some(5));
        assert_eq!(sizes.len(), 5);
        assert!(sizes.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            *sizes.last().unwrap(),
            d.iter().copied().fold(0.0, f64::max)
        );
        let p = occupancy_products(&d, &sizes);
        // All levels but the capped top one carry the same N_h s_h³ (q = 1) within 20 %.
        for w in p[..p.len() - 1].windows(2) {
            let q = w[1] / w[0];
            assert!((0.8..1.25).contains(&q), "ratio {q} in {p:?}");
        }
    }

    #[test]
    fn monodisperse_gets_one_level() {
        let (d, volume) = diameters(-3.0, 1.0);
        assert_eq!(plan_cell_sizes(&d, volume, None).len(), 1);
    }

    #[test]
    fn wide_distributions_get_several_levels_and_lower_cost() {
        let (d, volume) = diameters(-3.0, 100.0);
        let sizes = plan_cell_sizes(&d, volume, None);
        assert!((3..MAX_LEVELS).contains(&sizes.len()), "{sizes:?}");
        let dist = Distribution::new(d.clone(), d.len());
        let single = predicted_cost(&dist, &[*sizes.last().unwrap()], volume);
        let multi = predicted_cost(&dist, &sizes, volume);
        // Seed 001 Fig. 3 vs Fig. 7: orders of magnitude for α = −3, ω = 100.
        assert!(single > 100.0 * multi, "single {single}, multi {multi}");
    }
}
