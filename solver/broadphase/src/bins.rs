//! Spatial subdivision into uniform bins (seed 002 §4, after Mazhar et al. \[25\]): every
//! sphere's axis-aligned box is registered in each bin it overlaps, the (bin, body) keys
//! are radix-sorted so that the bodies of a bin become one run, and each bin is searched
//! exhaustively, independently of the others.
//!
//! The ten stages of §4 map onto this file as follows: bins per body (stage 1) and their
//! prefix sum (stage 2) are [`Bins::find_pairs`]'s box pass and `offsets`; the key array
//! (stage 3) is filled per body; the LSD radix sort (stage 4) is [`crate::radix`]; the runs
//! of equal bins (stages 5–6) are `runs`; stage 7 (sorting bins by occupancy for GPU load
//! balance) is left to rayon's work stealing; the per-bin exhaustive test (stages 8–10)
//! reports a pair only from the bin that holds the lower corner of the intersection of the
//! two boxes, so that a pair sharing several bins is reported once.

use crate::cells::{cell_coord, MAX_CELL_COORD};
use crate::radix::{sort_keys, sort_unpack};
use crate::sphere::{overlap_raw, validate_radius_range};
use crate::{BroadPhase, BroadPhaseError, BroadPhaseStats, Sphere};
use rayon::prelude::*;

/// A sphere may span at most this many bins per axis (diameter / bin size), which bounds
/// the keys one sphere adds to about `(MAX_SPAN + 2)³`. A larger sphere with a caller-given
/// bin size is [`BroadPhaseError::TooLarge`].
const MAX_SPAN: f64 = 32.0;

/// Relative widening of each box, far above the rounding of the overlap test, so that two
/// spheres the exact test calls overlapping always share the bin of the lower corner.
const BOX_MARGIN: f64 = 1e-12;

/// At most this many spheres are sampled to choose the automatic bin size.
const PLAN_SAMPLES: usize = 65_536;

/// Cost of one (bin, body) key relative to one pair test (build, sort and run scan),
/// measured with the `bins_vs_hgrid` example.
const KEY_COST: f64 = 8.0;

/// Bins of the occupied box per key kept as one bucket per bin; a sparser set is folded.
const DENSE_BINS_PER_KEY: u64 = 8;

/// Inclusive bin range of one sphere: `[lo_x, lo_y, lo_z, hi_x, hi_y, hi_z]`.
type BinBox = [i64; 6];

/// Uniform-bin broad phase of seed 002 §4 (binning, radix sort of (bin, body) keys,
/// exhaustive search per bin). Unbounded domain: the bins of the occupied box are either
/// stored one bucket per bin or, for sparse or far-flung sets, folded into a power-of-two
/// table (bins sharing a bucket are told apart by the lower-corner rule).
///
/// *Bin size:* a given `bin_size` \[m\], or chosen per query from a sample of the radii by
/// a cost model (keys registered against pairs tested per bin) among the largest diameter
/// times powers of √2 from 4 down to 1/32; the result never depends on it. With a given size,
/// a sphere wider than 32 bins is [`BroadPhaseError::TooLarge`] (with `cell_size` 32 bins).
///
/// *Rebuild policy:* rebuilt from scratch on every query (O(keys)).
#[derive(Clone, Debug, Default)]
pub struct Bins {
    bin_size: Option<f64>,
    last_bin_size: Option<f64>,
    boxes: Vec<BinBox>,
    offsets: Vec<usize>,
    keys: Vec<u64>,
    scratch: Vec<u64>,
    runs: Vec<(usize, usize)>,
    packed: Vec<u64>,
    stats: BroadPhaseStats,
}

/// How bin coordinates map to buckets.
#[derive(Clone, Copy, Debug)]
struct Layout {
    lo: [i64; 3],
    /// Dense: extents of the occupied box; folded: log2 of the fold dimensions.
    dims: [u64; 3],
    dense: bool,
    /// Bits of a bucket index.
    bits: u32,
}

impl Layout {
    #[inline]
    fn bucket(&self, x: i64, y: i64, z: i64) -> u64 {
        let (x, y, z) = (
            (x - self.lo[0]) as u64,
            (y - self.lo[1]) as u64,
            (z - self.lo[2]) as u64,
        );
        if self.dense {
            x + self.dims[0] * (y + self.dims[1] * z)
        } else {
            let [bx, by, bz] = self.dims;
            (x & ((1 << bx) - 1))
                | ((y & ((1 << by) - 1)) << bx)
                | ((z & ((1 << bz) - 1)) << (bx + by))
        }
    }
}

impl Bins {
    /// Bins of the given size \[m\] (positive, finite), or chosen per query when `None`.
    pub fn new(bin_size: Option<f64>) -> Result<Self, BroadPhaseError> {
        if let Some(s) = bin_size {
            if !(s.is_finite() && s > 0.0) {
                return Err(BroadPhaseError::Config(format!(
                    "bin_size = {s} is not a positive finite length"
                )));
            }
        }
        Ok(Bins {
            bin_size,
            ..Default::default()
        })
    }

    /// The bin size \[m\] of the last query (`None` before the first non-trivial one).
    pub fn last_bin_size(&self) -> Option<f64> {
        self.last_bin_size
    }

    fn query(
        &mut self,
        spheres: &[Sphere],
        max_radius: f64,
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        let size = match self.bin_size {
            Some(s) => s,
            None => auto_bin_size(spheres, max_radius),
        };
        self.last_bin_size = Some(size);
        let inv = 1.0 / size;
        let max_diameter = self.bin_size.map_or(f64::INFINITY, |s| s * MAX_SPAN);

        // Stage 1: the bin range of every body.
        let bin_box = |s: &Sphere| bin_box(s, inv, max_diameter);
        self.boxes.clear();
        if spheres.len() < crate::PARALLEL_MIN {
            self.boxes.extend(spheres.iter().map(bin_box));
        } else {
            spheres
                .par_iter()
                .map(bin_box)
                .collect_into_vec(&mut self.boxes);
        }
        if let Some(index) = self.boxes.iter().position(|b| b[0] > b[3]) {
            let s = &spheres[index];
            return Err(placement_error(index, s, size, max_diameter));
        }

        // Stage 2: prefix sum of the bins per body, and the occupied box.
        self.offsets.clear();
        self.offsets.reserve(spheres.len() + 1);
        let mut total = 0usize;
        let mut lo = [i64::MAX; 3];
        let mut hi = [i64::MIN; 3];
        for b in &self.boxes {
            self.offsets.push(total);
            total += ((b[3] - b[0] + 1) * (b[4] - b[1] + 1) * (b[5] - b[2] + 1)) as usize;
            for a in 0..3 {
                lo[a] = lo[a].min(b[a]);
                hi[a] = hi[a].max(b[a + 3]);
            }
        }
        self.offsets.push(total);
        let body_bits = bits_for(spheres.len() as u64 - 1);
        let layout = lay_out(lo, hi, total as u64, 64 - body_bits);

        // Stage 3: the (bin, body) keys.
        self.keys.clear();
        self.keys.resize(total, 0);
        let fill = |(body, (b, keys)): (usize, (&BinBox, &mut [u64]))| {
            let mut k = 0;
            for z in b[2]..=b[5] {
                for y in b[1]..=b[4] {
                    for x in b[0]..=b[3] {
                        keys[k] = (layout.bucket(x, y, z) << body_bits) | body as u64;
                        k += 1;
                    }
                }
            }
        };
        let mut slices = Vec::with_capacity(spheres.len());
        let mut rest = self.keys.as_mut_slice();
        for w in self.offsets.windows(2) {
            let (head, tail) = rest.split_at_mut(w[1] - w[0]);
            slices.push(head);
            rest = tail;
        }
        if total < crate::PARALLEL_MIN {
            self.boxes.iter().zip(slices).enumerate().for_each(fill);
        } else {
            self.boxes.par_iter().zip(slices).enumerate().for_each(fill);
        }

        // Stage 4: radix sort; stages 5–6: runs of equal bins (bodies ascending within).
        sort_keys(&mut self.keys, layout.bits + body_bits, &mut self.scratch);
        self.runs.clear();
        let mut start = 0;
        for i in 1..=self.keys.len() {
            if i == self.keys.len() || self.keys[i] >> body_bits != self.keys[start] >> body_bits {
                if i - start > 1 {
                    self.runs.push((start, i));
                }
                start = i;
            }
        }

        // Stages 8–10: exhaustive search per bin, the lower-corner rule against duplicates.
        let keys = &self.keys;
        let boxes = &self.boxes;
        let body_mask = (1u64 << body_bits) - 1;
        let search = |&(start, end): &(usize, usize), found: &mut Vec<u64>| -> u64 {
            let bucket = keys[start] >> body_bits;
            let mut tests = 0;
            let run = &keys[start..end];
            for (n, &ka) in run.iter().enumerate() {
                // A folded bucket may list a body once per bin of it that folds here.
                if n > 0 && run[n - 1] == ka {
                    continue;
                }
                let a = (ka & body_mask) as usize;
                let (ba, sa) = (&boxes[a], &spheres[a]);
                let mut prev = ka;
                for &kb in &run[n + 1..] {
                    if kb == prev {
                        continue;
                    }
                    prev = kb;
                    let b = (kb & body_mask) as usize;
                    let bb = &boxes[b];
                    let corner =
                        layout.bucket(ba[0].max(bb[0]), ba[1].max(bb[1]), ba[2].max(bb[2]));
                    if corner != bucket {
                        continue;
                    }
                    tests += 1;
                    let sb = &spheres[b];
                    if overlap_raw(&sa.center, sa.radius, &sb.center, sb.radius) {
                        found.push(((a as u64) << body_bits) | b as u64);
                    }
                }
            }
            tests
        };
        self.packed.clear();
        let tests = if total < crate::PARALLEL_MIN {
            let mut tests = 0;
            for r in &self.runs {
                tests += search(r, &mut self.packed);
            }
            tests
        } else {
            let parts: Vec<(Vec<u64>, u64)> = self
                .runs
                .par_chunks(256)
                .map(|chunk| {
                    let mut found = Vec::new();
                    let tests = chunk.iter().map(|r| search(r, &mut found)).sum();
                    (found, tests)
                })
                .collect();
            let mut tests = 0;
            for (found, t) in parts {
                self.packed.extend_from_slice(&found);
                tests += t;
            }
            tests
        };
        self.stats = BroadPhaseStats {
            sphere_tests: tests,
            cell_visits: total as u64,
            rebuilt: true,
        };
        sort_unpack(&mut self.packed, body_bits, &mut self.scratch, out);
        Ok(())
    }
}

impl BroadPhase for Bins {
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        out.clear();
        self.stats = BroadPhaseStats {
            rebuilt: true,
            ..Default::default()
        };
        let (_, max_radius) = validate_radius_range(spheres)?;
        if spheres.is_empty() {
            return Ok(());
        }
        let result = self.query(spheres, max_radius, out);
        if result.is_err() {
            out.clear();
        }
        result
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }
}

/// Bits needed to store `v` (at least 1).
fn bits_for(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// The inclusive bin range of a valid sphere, widened by [`BOX_MARGIN`]; an empty range
/// (`lo > hi`) when it is out of range or wider than `max_diameter`.
#[inline]
fn bin_box(s: &Sphere, inv: f64, max_diameter: f64) -> BinBox {
    const BAD: BinBox = [1, 0, 0, 0, 0, 0];
    if 2.0 * s.radius > max_diameter {
        return BAD;
    }
    let mut b = [0i64; 6];
    for a in 0..3 {
        let c = s.center[a];
        let m = BOX_MARGIN * (c.abs() + s.radius);
        let (lo, hi) = ((c - s.radius - m) * inv, (c + s.radius + m) * inv);
        if !(lo.abs() < MAX_CELL_COORD && hi.abs() < MAX_CELL_COORD) {
            return BAD;
        }
        b[a] = cell_coord(c - s.radius - m, inv);
        b[a + 3] = cell_coord(c + s.radius + m, inv);
    }
    b
}

/// The error of a sphere [`bin_box`] rejected.
fn placement_error(index: usize, s: &Sphere, size: f64, max_diameter: f64) -> BroadPhaseError {
    if 2.0 * s.radius > max_diameter {
        BroadPhaseError::TooLarge {
            index,
            diameter: 2.0 * s.radius,
            cell_size: max_diameter,
        }
    } else {
        BroadPhaseError::OutOfRange {
            index,
            center: s.center,
            cell_size: size,
        }
    }
}

/// One bucket per bin of the occupied box `lo..=hi` when that is at most
/// `DENSE_BINS_PER_KEY` per key (and fits `max_bits`), else a power-of-two fold of about
/// four buckets per key, bits given to the longest axes first.
fn lay_out(lo: [i64; 3], hi: [i64; 3], keys: u64, max_bits: u32) -> Layout {
    let dims = [0, 1, 2].map(|a| (hi[a] - lo[a]) as u64 + 1);
    let cells = dims[0]
        .checked_mul(dims[1])
        .and_then(|c| c.checked_mul(dims[2]));
    let limit = DENSE_BINS_PER_KEY.saturating_mul(keys).max(1024);
    if let Some(c) = cells.filter(|&c| c <= limit && bits_for(c - 1) <= max_bits) {
        return Layout {
            lo,
            dims,
            dense: true,
            bits: bits_for(c - 1),
        };
    }
    let target = bits_for(keys.saturating_mul(4)).min(max_bits).min(40);
    let mut fold = [0u64; 3];
    for _ in 0..target {
        let a = (0..3)
            .max_by_key(|&a| (dims[a] >> fold[a], 2 - a))
            .unwrap_or(0);
        if dims[a] >> fold[a] <= 1 {
            break;
        }
        fold[a] += 1;
    }
    Layout {
        lo,
        dims: fold,
        dense: false,
        bits: (fold[0] + fold[1] + fold[2]).max(1) as u32,
    }
}

/// The bin size \[m\] minimising `KEY_COST · keys + pair tests` over the largest diameter
/// times powers of √2 from 4 down to 1/32, estimated from up to [`PLAN_SAMPLES`] spheres: keys
/// `Σ (d/s + 1)³`, pair tests `keys² · s³ / (2 V)` for keys spread over the box volume `V`.
/// Point sets (largest radius 0) get bins of 1 m; only speed depends on the choice.
fn auto_bin_size(spheres: &[Sphere], max_radius: f64) -> f64 {
    if max_radius <= 0.0 {
        return 1.0;
    }
    let d_max = 2.0 * max_radius;
    let stride = spheres.len().div_ceil(PLAN_SAMPLES).max(1);
    let mut hist = [0u64; 12];
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut sampled = 0u64;
    for s in spheres.iter().step_by(stride) {
        // Diameter class j: d ∈ (d_max 2^-(j+1), d_max 2^-j], the last class open below.
        let ratio = d_max / (2.0 * s.radius).max(f64::MIN_POSITIVE);
        let j = (ratio.log2().floor().max(0.0) as usize).min(hist.len() - 1);
        hist[j] += 1;
        for a in 0..3 {
            lo[a] = lo[a].min(s.center[a]);
            hi[a] = hi[a].max(s.center[a]);
        }
        sampled += 1;
    }
    let scale = spheres.len() as f64 / sampled as f64;
    let cost = |s: f64| {
        let keys: f64 = hist
            .iter()
            .enumerate()
            .map(|(j, &h)| {
                let d = d_max * 0.75 * 0.5f64.powi(j as i32);
                h as f64 * (d / s + 1.0).powi(3)
            })
            .sum::<f64>()
            * scale;
        let volume: f64 = (0..3).map(|a| hi[a] - lo[a] + s).product();
        KEY_COST * keys + keys * keys * s.powi(3) / (2.0 * volume)
    };
    (-4..=10)
        .map(|k| d_max * 0.5f64.powf(0.5 * k as f64))
        .map(|s| (cost(s), s))
        .fold(
            (f64::INFINITY, d_max),
            |best, c| if c.0 < best.0 { c } else { best },
        )
        .1
}
