//! The hierarchical grid (HGrid) broad phase of Ogarko & Luding (seed 001), Top-Down
//! variant, with automatic levels (§5.2.3) and an optional Verlet skin.

use crate::cells::{Grid, FIT_MARGIN};
use crate::levels::plan_cell_sizes;
use crate::search::{find_all, Scratch};
use crate::sphere::{overlap_raw, validate_radius_range};
use crate::{BroadPhase, BroadPhaseError, BroadPhaseStats, Sphere};
use rayon::prelude::*;

/// Parameters of an [`HGrid`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HGridConfig {
    /// Number of levels; `None` chooses it by the cost model of seed 001 (eq. 27).
    /// Ignored when `cell_sizes` is given.
    pub levels: Option<usize>,
    /// Explicit cell sizes \[m\], strictly increasing; `None` chooses them by the
    /// constant-particles-per-cell rule (seed 001 eq. 37, q = 1). Every sphere (radius +
    /// skin/2) must fit the largest cell.
    pub cell_sizes: Option<Vec<f64>>,
    /// Verlet skin \[m\] (≥ 0). With a skin, the grid is searched with radii inflated by
    /// skin/2 and the candidate pairs are reused, only re-filtered with the exact overlap
    /// test, until some sphere has moved more than skin/2 since the last rebuild (or a
    /// radius or the sphere count changed). 0 rebuilds on every query.
    pub skin: f64,
}

impl HGridConfig {
    /// Checks the values (finite, positive, strictly increasing sizes, level count ≥ 1).
    pub fn validate(&self) -> Result<(), BroadPhaseError> {
        if !(self.skin.is_finite() && self.skin >= 0.0) {
            return Err(BroadPhaseError::Config(format!(
                "skin must be finite and ≥ 0, got {}",
                self.skin
            )));
        }
        if self.levels == Some(0) {
            return Err(BroadPhaseError::Config("levels must be ≥ 1".into()));
        }
        if let Some(sizes) = &self.cell_sizes {
            if sizes.is_empty() {
                return Err(BroadPhaseError::Config("cell_sizes is empty".into()));
            }
            for (i, &s) in sizes.iter().enumerate() {
                if !(s.is_finite() && s > 0.0) {
                    return Err(BroadPhaseError::Config(format!(
                        "cell_sizes[{i}] = {s} is not a positive finite length"
                    )));
                }
                if i > 0 && s <= sizes[i - 1] {
                    return Err(BroadPhaseError::Config(format!(
                        "cell_sizes[{i}] = {s} is not larger than cell_sizes[{}] = {}",
                        i - 1,
                        sizes[i - 1]
                    )));
                }
            }
        }
        Ok(())
    }
}

/// One level of a built [`HGrid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelInfo {
    /// Cell size \[m\].
    pub cell_size: f64,
    /// Spheres inserted on this level.
    pub count: usize,
    /// Whether the level is stored densely (one bucket per cell of its occupied box) or
    /// folded into a hash of about four buckets per sphere (sparse or far-flung spheres).
    pub dense: bool,
}

/// Signature of the sphere set the automatic levels were planned for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PlanKey {
    count: usize,
    min_radius: f64,
    max_radius: f64,
}

/// Candidate pairs kept between rebuilds when the skin is positive.
#[derive(Clone, Debug, Default)]
struct Verlet {
    centers: Vec<[f64; 3]>,
    radii: Vec<f64>,
    candidates: Vec<(u32, u32)>,
}

/// Hierarchical grid broad phase (seed 001 §2; docs/design.md §7).
///
/// *Rebuild policy:* with `skin = 0` the grid is rebuilt from scratch (O(N), counting sort)
/// on every [`BroadPhase::find_pairs`]; with `skin > 0` see [`HGridConfig::skin`]. The
/// automatic cell sizes are re-planned only when the sphere count or the smallest or
/// largest radius change (they only affect speed, never the result).
#[derive(Clone, Debug, Default)]
pub struct HGrid {
    config: HGridConfig,
    grid: Grid,
    sizes: Vec<f64>,
    plan: Option<PlanKey>,
    verlet: Option<Verlet>,
    scratch: Scratch,
    stats: BroadPhaseStats,
}

impl HGrid {
    /// A new HGrid; fails on an invalid configuration.
    pub fn new(config: HGridConfig) -> Result<Self, BroadPhaseError> {
        config.validate()?;
        let sizes = config.cell_sizes.clone().unwrap_or_default();
        Ok(HGrid {
            config,
            sizes,
            ..Default::default()
        })
    }

    /// The cell sizes \[m\] of the last rebuild (empty before the first query).
    pub fn cell_sizes(&self) -> &[f64] {
        &self.sizes
    }

    /// Layout of the levels in the last rebuild (diagnostics and tests).
    pub fn levels(&self) -> Vec<LevelInfo> {
        self.grid
            .levels
            .iter()
            .map(|l| LevelInfo {
                cell_size: l.size,
                count: l.count,
                dense: l.dense,
            })
            .collect()
    }

    /// Re-plans the automatic cell sizes if the sphere count or the radius range changed.
    fn plan(&mut self, spheres: &[Sphere], (min_radius, max_radius): (f64, f64), inflate: f64) {
        if self.config.cell_sizes.is_some() {
            return;
        }
        let key = PlanKey {
            count: spheres.len(),
            min_radius,
            max_radius,
        };
        if self.plan == Some(key) && !self.sizes.is_empty() {
            return;
        }
        self.sizes = auto_cell_sizes(spheres, inflate, self.config.levels);
        self.plan = Some(key);
    }

    /// Whether the kept candidates still cover every overlap of `spheres`.
    fn verlet_valid(&self, spheres: &[Sphere]) -> bool {
        let Some(v) = &self.verlet else {
            return false;
        };
        if v.centers.len() != spheres.len() {
            return false;
        }
        let half = 0.5 * self.config.skin;
        let limit = half * half;
        spheres
            .iter()
            .zip(v.centers.iter().zip(&v.radii))
            .all(|(s, (c, &r))| {
                let d2 = (0..3).map(|a| (s.center[a] - c[a]).powi(2)).sum::<f64>();
                s.radius == r && d2 <= limit
            })
    }
}

impl BroadPhase for HGrid {
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        out.clear();
        self.stats = BroadPhaseStats::default();
        let radii = validate_radius_range(spheres)?;
        let skin = self.config.skin;
        if skin > 0.0 && self.verlet_valid(spheres) {
            if let Some(v) = &self.verlet {
                out.extend(v.candidates.iter().copied().filter(|&(i, j)| {
                    let (a, b) = (&spheres[i as usize], &spheres[j as usize]);
                    overlap_raw(&a.center, a.radius, &b.center, b.radius)
                }));
                self.stats.sphere_tests = v.candidates.len() as u64;
                return Ok(());
            }
        }
        let inflate = 0.5 * skin;
        self.plan(spheres, radii, inflate);
        if let Err(e) = self.grid.build(spheres, inflate, &self.sizes) {
            self.verlet = None;
            return Err(e);
        }
        if skin > 0.0 {
            let mut v = self.verlet.take().unwrap_or_default();
            self.stats = find_all(&self.grid, &mut self.scratch, &mut v.candidates);
            v.centers.clear();
            v.centers.extend(spheres.iter().map(|s| s.center));
            v.radii.clear();
            v.radii.extend(spheres.iter().map(|s| s.radius));
            out.extend(v.candidates.iter().copied().filter(|&(i, j)| {
                let (a, b) = (&spheres[i as usize], &spheres[j as usize]);
                overlap_raw(&a.center, a.radius, &b.center, b.radius)
            }));
            self.verlet = Some(v);
        } else {
            self.stats = find_all(&self.grid, &mut self.scratch, out);
        }
        Ok(())
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }
}

/// Cell sizes \[m\] chosen for `spheres` (radii inflated by `inflate` \[m\]) by the
/// constant-particles-per-cell rule and the cost model ([`plan_cell_sizes`]), in the volume
/// the spheres occupy; `levels` forces the level count. Radii must be valid.
pub(crate) fn auto_cell_sizes(spheres: &[Sphere], inflate: f64, levels: Option<usize>) -> Vec<f64> {
    let need: Vec<f64> = spheres
        .par_iter()
        .map(|s| 2.0 * (s.radius + inflate) * (1.0 + FIT_MARGIN))
        .collect();
    let dmax = need.iter().copied().fold(0.0, f64::max);
    let volume = occupied_volume(spheres, dmax);
    plan_cell_sizes(&need, volume, levels)
}

/// Volume \[m³\] occupied by the spheres, measured as the number of distinct cells of edge
/// `cell` (the largest diameter) holding a centre, times the cell volume. Unlike a bounding
/// box, a few far-away spheres (fallen off a staircase) add only a few cells.
fn occupied_volume(spheres: &[Sphere], cell: f64) -> f64 {
    if cell <= 0.0 || spheres.is_empty() {
        return 1.0;
    }
    let inv = 1.0 / cell;
    let mut keys: Vec<[i64; 3]> = spheres
        .par_iter()
        .map(|s| s.center.map(|x| crate::cells::cell_coord(x, inv)))
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    keys.len() as f64 * cell.powi(3)
}
