//! The device binning of seed 002 §4 planned on the host, and a host emulation of the
//! kernels' bin arithmetic (the same box, hash and lower-corner rule) that the tests check
//! against the exact broad phase without a GPU.
//!
//! *Bins.* Cubes of edge `s = 2 r_max (1 + 1e-6)`, `r_max` the largest bounding radius, so
//! every bounding box (widened by a relative 1e-12 against rounding, as `msdem-broadphase`'s
//! bins) covers one or two bins per axis: at most 8 (bin, body) entries per body, and the
//! entry count is known before any kernel runs. Bin coordinates are hashed into `2^bits`
//! buckets (about four per body), so the domain is unbounded up to the range check below.

use crate::body::EllipsoidBody;
use crate::error::GpuError;
use crate::pack::SetSummary;

/// A centre coordinate may lie at most this many bins from the origin: beyond, the box
/// widening (relative to |centre|) could make a box span three bins.
pub const MAX_BINS_FROM_ORIGIN: f64 = 1e5;

/// Entries per body at most (2 × 2 × 2 bins).
pub const MAX_ENTRIES_PER_BODY: usize = 8;

/// The binning of one body set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinPlan {
    /// Bin edge \[m\].
    pub bin_size_m: f64,
    /// `1 / bin_size_m` \[1/m\].
    pub inv_bin: f64,
    /// Buckets are `2^bucket_bits`.
    pub bucket_bits: u32,
}

impl BinPlan {
    /// Plans the bins of valid bodies (see [`crate::pack::validate`]); errors name the
    /// first body too far from the origin.
    pub fn new(bodies: &[EllipsoidBody]) -> Result<Self, GpuError> {
        let r_max = bodies
            .iter()
            .map(EllipsoidBody::bounding_radius_m)
            .fold(0.0f64, f64::max);
        let c_max = bodies
            .iter()
            .flat_map(|b| b.center_m)
            .fold(0.0f64, |m, x| m.max(x.abs()));
        Self::from_summary(
            bodies,
            &SetSummary {
                max_bound_m: r_max,
                max_abs_center_m: c_max,
            },
        )
    }

    /// [`BinPlan::new`] from the summary packing computed ([`crate::pack::validate_and_pack`]);
    /// `bodies` is scanned only to name the offending body on error.
    pub fn from_summary(bodies: &[EllipsoidBody], summary: &SetSummary) -> Result<Self, GpuError> {
        let r_max = summary.max_bound_m;
        let bin_size_m = if r_max > 0.0 {
            2.0 * r_max * (1.0 + 1e-6)
        } else {
            1.0
        };
        let limit = MAX_BINS_FROM_ORIGIN * bin_size_m;
        if let Some(index) = (summary.max_abs_center_m > limit)
            .then(|| {
                bodies
                    .iter()
                    .position(|b| b.center_m.iter().any(|x| x.abs() > limit))
            })
            .flatten()
        {
            return Err(GpuError::BadBody {
                index,
                message: format!(
                    "centre {:?} m is more than {MAX_BINS_FROM_ORIGIN} bins of {bin_size_m} m from the origin",
                    bodies[index].center_m
                ),
            });
        }
        let want = (4 * bodies.len()).max(1024) as u64;
        let bucket_bits = (64 - (want - 1).leading_zeros()).clamp(10, 31);
        Ok(BinPlan {
            bin_size_m,
            inv_bin: 1.0 / bin_size_m,
            bucket_bits,
        })
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        1usize << self.bucket_bits
    }
}

/// Lowest bin per axis and the span bits of a body's box (kernel `prep_bodies`).
pub fn bin_box(b: &EllipsoidBody, inv_bin: f64) -> ([i64; 3], u32) {
    let bound = b.bounding_radius_m();
    let mut lo = [0i64; 3];
    let mut span = 0;
    for (a, (&c, low)) in b.center_m.iter().zip(lo.iter_mut()).enumerate() {
        let m = 1e-12 * (c.abs() + bound);
        *low = ((c - bound - m) * inv_bin).floor() as i64;
        let h = ((c + bound + m) * inv_bin).floor() as i64;
        if h > *low {
            span |= 1 << a;
        }
    }
    (lo, span)
}

/// Bucket of a bin (kernel `bucket_of`).
pub fn bucket_of(x: i64, y: i64, z: i64, bits: u32) -> u32 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (z as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    (h >> (64 - bits)) as u32
}

/// The kernels' bounding-sphere pairs computed on the host: entries counted and placed per
/// bucket, every bucket searched with the same-bin and lower-corner rules. Sorted `(i, j)`.
pub fn host_bin_pairs(bodies: &[EllipsoidBody], plan: &BinPlan) -> Vec<(u32, u32)> {
    let boxes: Vec<([i64; 3], u32)> = bodies.iter().map(|b| bin_box(b, plan.inv_bin)).collect();
    let bin = |body: usize, k: u32| {
        let lo = boxes[body].0;
        [
            lo[0] + (k & 1) as i64,
            lo[1] + ((k >> 1) & 1) as i64,
            lo[2] + ((k >> 2) & 1) as i64,
        ]
    };
    let mut buckets: Vec<Vec<(usize, u32)>> = vec![Vec::new(); plan.buckets()];
    for (body, &(_, span)) in boxes.iter().enumerate() {
        for k in (0..8u32).filter(|k| k & !span == 0) {
            let [x, y, z] = bin(body, k);
            buckets[bucket_of(x, y, z, plan.bucket_bits) as usize].push((body, k));
        }
    }
    let mut pairs = Vec::new();
    for run in &buckets {
        for (n, &(a, ka)) in run.iter().enumerate() {
            let bin_a = bin(a, ka);
            for &(b, kb) in &run[n + 1..] {
                if a == b || bin(b, kb) != bin_a {
                    continue;
                }
                let corner = (0..3).all(|ax| boxes[a].0[ax].max(boxes[b].0[ax]) == bin_a[ax]);
                let (sa, sb) = (&bodies[a], &bodies[b]);
                let d2: f64 = (0..3)
                    .map(|ax| sa.center_m[ax] - sb.center_m[ax])
                    .map(|d| d * d)
                    .sum();
                let rs = sa.bounding_radius_m() + sb.bounding_radius_m();
                if corner && d2 <= rs * rs {
                    pairs.push((a.min(b) as u32, a.max(b) as u32));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload;
    use msdem_broadphase::{AllPairs, BroadPhase, Sphere};

    fn exact_pairs(bodies: &[EllipsoidBody]) -> Vec<(u32, u32)> {
        let spheres: Vec<Sphere> = bodies
            .iter()
            .map(|b| Sphere::new(b.center_m, b.bounding_radius_m()))
            .collect();
        let mut out = Vec::new();
        AllPairs::default().find_pairs(&spheres, &mut out).unwrap();
        out
    }

    #[test]
    fn every_box_spans_at_most_two_bins_per_axis() {
        let bodies = workload::table2_spheres(3000, 5);
        let plan = BinPlan::new(&bodies).unwrap();
        for b in &bodies {
            let (lo, _) = bin_box(b, plan.inv_bin);
            for (&c, &low) in b.center_m.iter().zip(&lo) {
                let hi = ((c + b.bounding_radius_m()) * plan.inv_bin).floor() as i64;
                assert!(hi - low <= 1);
            }
        }
    }

    #[test]
    fn host_binning_equals_brute_force_on_seeded_sets() {
        for seed in 0..3 {
            for bodies in [
                workload::table2_spheres(2500, seed),
                workload::random_ellipsoids(2500, seed),
            ] {
                let plan = BinPlan::new(&bodies).unwrap();
                assert_eq!(host_bin_pairs(&bodies, &plan), exact_pairs(&bodies));
            }
        }
    }

    #[test]
    fn hash_collisions_do_not_duplicate_or_lose_pairs() {
        // 10 buckets for thousands of entries: nearly every bucket holds many bins.
        let bodies = workload::random_ellipsoids(1500, 9);
        let mut plan = BinPlan::new(&bodies).unwrap();
        plan.bucket_bits = 3;
        let pairs = host_bin_pairs(&bodies, &plan);
        let mut dedup = pairs.clone();
        dedup.dedup();
        assert_eq!(pairs, dedup);
        assert_eq!(pairs, exact_pairs(&bodies));
    }

    #[test]
    fn far_centre_is_rejected_with_its_index() {
        let mut bodies = workload::table2_spheres(10, 1);
        bodies[7].center_m[2] = 1e12;
        let err = BinPlan::new(&bodies).unwrap_err().to_string();
        assert!(err.starts_with("body 7: centre"), "{err}");
    }

    #[test]
    fn negative_and_straddling_coordinates_hash_consistently() {
        assert_eq!(bucket_of(-1, 0, 5, 20), bucket_of(-1, 0, 5, 20));
        assert_ne!(bucket_of(-1, 0, 0, 31), bucket_of(1, 0, 0, 31));
        assert!(bucket_of(i64::MIN / 4, 7, -9, 12) < 1 << 12);
    }
}
