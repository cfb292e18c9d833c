//! k-means clustering of triangle centroids for the splitter (`split.rs`; seed 000
//! App. B, Alg. 7 line 12, k-means [18]).
//!
//! * **Initialisation**: k-means++ (D² sampling) with an RNG seeded by the caller;
//!   [`RUNS`] restarts, the one with the smallest inertia (sum of squared distances to the
//!   nearest centre) is kept, ties keep the earlier run.
//! * **Lloyd iterations** until no label changes, at most [`MAX_ITERATIONS`]; an empty
//!   cluster keeps its centre.
//! * **Subsampling**: a node with more than [`SAMPLE`] points runs the restarts on an even
//!   stride of [`SAMPLE`] of them, then [`POLISH_ITERATIONS`] Lloyd iterations on all
//!   points, then labels all points. The centres of a few thousand points are already
//!   within a small fraction of the cluster spread of the full set's, so the polish
//!   only moves boundary points.
//! * **Parallel, deterministic**: every Lloyd step and the final labelling run over
//!   fixed chunks of [`CHUNK`] points (rayon over the chunks when there are several);
//!   each chunk sums its members per cluster and the chunk sums are added in chunk order,
//!   so the centres, hence the labels, are bit-identical for any thread count.

use crate::dist::{dot, sub, V};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// k-means++ restarts.
pub(crate) const RUNS: usize = 3;
/// Largest number of Lloyd iterations per restart.
pub(crate) const MAX_ITERATIONS: usize = 100;
/// Points per reduction chunk.
pub(crate) const CHUNK: usize = 2048;
/// Points a restart sees at most (module docs).
pub(crate) const SAMPLE: usize = 8192;
/// Lloyd iterations on all points after the subsampled restarts.
pub(crate) const POLISH_ITERATIONS: usize = 3;

/// Per-chunk (or total) accumulation of one Lloyd step.
#[derive(Clone)]
struct Sums {
    sum: Vec<V>,
    count: Vec<u64>,
    changed: u64,
    inertia: f64,
}

impl Sums {
    fn new(k: usize) -> Self {
        Sums {
            sum: vec![[0.0; 3]; k],
            count: vec![0; k],
            changed: 0,
            inertia: 0.0,
        }
    }

    fn add(mut self, o: &Sums) -> Self {
        for (a, b) in self.sum.iter_mut().zip(&o.sum) {
            for j in 0..3 {
                a[j] += b[j];
            }
        }
        for (a, b) in self.count.iter_mut().zip(&o.count) {
            *a += b;
        }
        self.changed += o.changed;
        self.inertia += o.inertia;
        self
    }
}

/// Index of the nearest centre (ties: the lowest index) and the squared distance.
fn nearest(p: V, centres: &[V]) -> (u32, f64) {
    let mut best = (0u32, f64::INFINITY);
    for (j, c) in centres.iter().enumerate() {
        let d = sub(p, *c);
        let d2 = dot(d, d);
        if d2 < best.1 {
            best = (j as u32, d2);
        }
    }
    best
}

/// One assignment pass over `pts` (updating `labels`), summed per cluster in chunk order.
fn assign(pts: &[V], centres: &[V], labels: &mut [u32]) -> Sums {
    let k = centres.len();
    let chunk = |(ps, ls): (&[V], &mut [u32])| {
        let mut s = Sums::new(k);
        for (p, l) in ps.iter().zip(ls.iter_mut()) {
            let (j, d2) = nearest(*p, centres);
            if *l != j {
                s.changed += 1;
                *l = j;
            }
            let ju = j as usize;
            for (sa, pa) in s.sum[ju].iter_mut().zip(p) {
                *sa += pa;
            }
            s.count[ju] += 1;
            s.inertia += d2;
        }
        s
    };
    let parts: Vec<Sums> = if pts.len() > CHUNK {
        pts.par_chunks(CHUNK)
            .zip(labels.par_chunks_mut(CHUNK))
            .map(chunk)
            .collect()
    } else {
        vec![chunk((pts, labels))]
    };
    parts.iter().fold(Sums::new(k), |acc, s| acc.add(s))
}

/// New centres from the sums; an empty cluster keeps its centre.
fn update(centres: &mut [V], s: &Sums) {
    for (c, (sum, &n)) in centres.iter_mut().zip(s.sum.iter().zip(&s.count)) {
        if n > 0 {
            *c = sum.map(|x| x / n as f64);
        }
    }
}

/// k-means++ seeding on `pts`.
fn plus_plus(pts: &[V], k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<V> {
    let mut centres = vec![pts[rng.gen_range(0..pts.len())]];
    let d2_to = |p: &V, c: &V| {
        let d = sub(*p, *c);
        dot(d, d)
    };
    let mut d2: Vec<f64> = pts.iter().map(|p| d2_to(p, &centres[0])).collect();
    while centres.len() < k {
        let total: f64 = d2.iter().sum();
        let next = if total > 0.0 && total.is_finite() {
            let r = rng.gen::<f64>() * total;
            let mut acc = 0.0;
            let mut pick = None;
            for (i, &d) in d2.iter().enumerate() {
                acc += d;
                if d > 0.0 {
                    pick = Some(i);
                    if acc > r {
                        break;
                    }
                }
            }
            pick.map_or(centres[0], |i| pts[i])
        } else {
            // Every point coincides with a centre: duplicates, which the splitter's
            // fallback handles.
            centres[0]
        };
        for (d, p) in d2.iter_mut().zip(pts) {
            *d = d.min(d2_to(p, &next));
        }
        centres.push(next);
    }
    centres
}

/// Lloyd iterations from `centres` on `pts` until no label changes (at most
/// `max_iterations`); returns the inertia of the last assignment.
fn lloyd(pts: &[V], centres: &mut [V], max_iterations: usize) -> f64 {
    let mut labels = vec![u32::MAX; pts.len()];
    let mut inertia = f64::INFINITY;
    for _ in 0..max_iterations {
        let s = assign(pts, centres, &mut labels);
        inertia = s.inertia;
        if s.changed == 0 {
            break;
        }
        update(centres, &s);
    }
    inertia
}

/// Cluster label in `0..k` of every point (module docs); `k` is clamped to `1..=n`.
pub(crate) fn kmeans_labels(pts: &[V], k: usize, seed: u64) -> Vec<u32> {
    let n = pts.len();
    let k = k.min(n).max(1);
    if k == 1 {
        return vec![0; n];
    }
    let sample: Vec<V> = if n > SAMPLE {
        (0..SAMPLE).map(|i| pts[i * n / SAMPLE]).collect()
    } else {
        pts.to_vec()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut best: Option<(f64, Vec<V>)> = None;
    for _ in 0..RUNS {
        let mut centres = plus_plus(&sample, k, &mut rng);
        let inertia = lloyd(&sample, &mut centres, MAX_ITERATIONS);
        if best.as_ref().is_none_or(|b| inertia < b.0) {
            best = Some((inertia, centres));
        }
    }
    let Some((_, mut centres)) = best else {
        return vec![0; n];
    };
    if n > SAMPLE {
        lloyd(pts, &mut centres, POLISH_ITERATIONS);
    }
    let mut labels = vec![u32::MAX; n];
    assign(pts, &centres, &mut labels);
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloud(n: usize) -> Vec<V> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        (0..n)
            .map(|i| {
                let c = (i % 5) as f64 * 4.0;
                [c + rng.gen::<f64>(), rng.gen::<f64>() - c, rng.gen::<f64>()]
            })
            .collect()
    }

    #[test]
    fn labels_are_identical_for_any_thread_count() {
        // Large enough for the subsample, the polish and several parallel chunks.
        let pts = cloud(3 * SAMPLE + 17);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| kmeans_labels(&pts, 8, 5))
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(3));
    }

    #[test]
    fn separated_blobs_are_recovered_from_a_subsample() {
        // Five unit blobs 4 apart: with k = 5 every blob is one cluster, also when the
        // restarts only see an eighth of the points.
        let pts = cloud(8 * SAMPLE);
        let labels = kmeans_labels(&pts, 5, 1);
        for blob in 0..5 {
            let l = labels[blob];
            assert!(
                (blob..pts.len()).step_by(5).all(|i| labels[i] == l),
                "blob {blob} split"
            );
        }
        let mut distinct = labels.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
    }

    #[test]
    fn lloyd_reaches_a_fixed_point_where_every_point_is_nearest_its_centre() {
        // Brute-force check of the Lloyd optimality conditions on a small input: every
        // centre is its members' mean and every point's label is its nearest centre.
        let pts = cloud(500);
        let labels = kmeans_labels(&pts, 4, 9);
        let mut sums = [[0.0; 3]; 4];
        let mut counts = [0.0; 4];
        for (p, &l) in pts.iter().zip(&labels) {
            for j in 0..3 {
                sums[l as usize][j] += p[j];
            }
            counts[l as usize] += 1.0;
        }
        let means: Vec<V> = (0..4).map(|c| sums[c].map(|x| x / counts[c])).collect();
        for (p, &l) in pts.iter().zip(&labels) {
            assert_eq!(nearest(*p, &means).0, l);
        }
    }

    #[test]
    fn coincident_points_give_duplicate_centres_without_panicking() {
        let pts = vec![[1.0, 2.0, 3.0]; 50];
        let labels = kmeans_labels(&pts, 4, 0);
        assert_eq!(labels.len(), 50);
        assert!(labels.iter().all(|&l| l < 4));
    }
}
