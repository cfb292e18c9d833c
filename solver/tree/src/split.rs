//! Splitting a node's triangles into compact groups (seed 000 App. B, Alg. 7 line 12:
//! "split into N_surrogate sets of roughly same size", done with k-means [18]).
//!
//! k-means (`kmeans.rs`: k-means++ initialisation, Lloyd iterations, a few restarts) runs
//! on the triangle centroids with an RNG seeded from the build seed and the node's path,
//! so the result does not depend on the order in which nodes are processed.
//!
//! Rebalancing: k-means minimises spread, not size differences, so after clustering
//! * empty clusters are dropped;
//! * clusters with fewer than `max(1, n / (4k))` members are dissolved one at a time
//!   (smallest first) and their members moved to the nearest remaining cluster mean, so no
//!   node ends up with a sliver of triangles;
//! * if fewer than two groups remain (k-means collapsed, e.g. coincident centroids), the
//!   triangles are sorted along the axis of largest spread and cut into `k` equal chunks,
//!   which guarantees progress of the recursion.
//!
//! Over-full clusters are left alone: the recursion splits them further.

use crate::dist::{dot, sub, V};
use crate::kmeans::kmeans_labels;

/// SplitMix64 finaliser: a bijective bit mixer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// RNG seed of the node reached from the root by taking child `path[0]`, then
/// `path[1]`, … (the root's path is empty).
pub(crate) fn node_seed(seed: u64, path: &[u32]) -> u64 {
    path.iter()
        .fold(mix(seed), |s, &c| mix(s ^ mix(u64::from(c) + 1)))
}

/// Splits the points `pts` into at most `k ≥ 2` groups (indices into `pts`, ascending
/// within a group), at least two groups when `pts.len() ≥ 2`.
pub(crate) fn split(pts: &[V], k: usize, rng_seed: u64) -> Vec<Vec<u32>> {
    let n = pts.len();
    let k = k.min(n).max(1);
    let mut groups = kmeans_groups(pts, k, rng_seed).unwrap_or_default();
    groups.retain(|g| !g.is_empty());
    dissolve_tiny(pts, &mut groups, (n / (4 * k)).max(1));
    if groups.len() < 2 && n >= 2 {
        groups = chunks_along_widest_axis(pts, k.max(2));
    }
    groups
}

fn kmeans_groups(pts: &[V], k: usize, rng_seed: u64) -> Option<Vec<Vec<u32>>> {
    let labels = kmeans_labels(pts, k, rng_seed);
    let mut groups = vec![Vec::new(); k];
    for (i, &l) in labels.iter().enumerate() {
        groups.get_mut(l as usize)?.push(i as u32);
    }
    Some(groups)
}

fn mean(pts: &[V], g: &[u32]) -> V {
    let mut m = [0.0; 3];
    for &i in g {
        for (mj, pj) in m.iter_mut().zip(pts[i as usize]) {
            *mj += pj;
        }
    }
    m.map(|x| x / g.len().max(1) as f64)
}

fn dissolve_tiny(pts: &[V], groups: &mut Vec<Vec<u32>>, min_size: usize) {
    while groups.len() > 2 {
        let Some((small, _)) = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.len() < min_size)
            .min_by_key(|(i, g)| (g.len(), *i))
        else {
            return;
        };
        let members = groups.remove(small);
        let means: Vec<V> = groups.iter().map(|g| mean(pts, g)).collect();
        for i in members {
            let p = pts[i as usize];
            let mut best = 0;
            for (j, m) in means.iter().enumerate() {
                let d = |m: &V| dot(sub(p, *m), sub(p, *m));
                if d(m) < d(&means[best]) {
                    best = j;
                }
            }
            groups[best].push(i);
        }
        for g in groups.iter_mut() {
            g.sort_unstable();
        }
    }
}

fn chunks_along_widest_axis(pts: &[V], k: usize) -> Vec<Vec<u32>> {
    let m = mean(pts, &(0..pts.len() as u32).collect::<Vec<_>>());
    let spread = |a: usize| pts.iter().map(|p| (p[a] - m[a]).powi(2)).sum::<f64>();
    let axis = (0..3)
        .max_by(|&a, &b| spread(a).total_cmp(&spread(b)))
        .unwrap_or(0);
    let mut order: Vec<u32> = (0..pts.len() as u32).collect();
    order.sort_by(|&a, &b| {
        pts[a as usize][axis]
            .total_cmp(&pts[b as usize][axis])
            .then(a.cmp(&b))
    });
    let n = pts.len();
    let k = k.min(n);
    (0..k)
        .map(|c| {
            let mut g = order[c * n / k..(c + 1) * n / k].to_vec();
            g.sort_unstable();
            g
        })
        .filter(|g| !g.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs() -> Vec<V> {
        // Four well-separated blobs of 10 points each.
        let centres = [
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [0.0, 10.0, 0.0],
            [0.0, 0.0, 10.0],
        ];
        let mut pts = Vec::new();
        for (b, c) in centres.iter().enumerate() {
            for i in 0..10 {
                let f = (i * 7 + b) as f64 * 0.013;
                pts.push([c[0] + f, c[1] - f, c[2] + 0.5 * f]);
            }
        }
        pts
    }

    #[test]
    fn separated_blobs_are_recovered_and_cover_every_point_once() {
        let pts = blobs();
        let groups = split(&pts, 4, 7);
        assert_eq!(groups.len(), 4);
        let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..40).collect::<Vec<_>>());
        for g in &groups {
            assert_eq!(g.len(), 10);
            let blob = g[0] / 10;
            assert!(g.iter().all(|&i| i / 10 == blob));
        }
    }

    #[test]
    fn coincident_points_still_split_into_equal_chunks() {
        let pts = vec![[1.0, 2.0, 3.0]; 17];
        let groups = split(&pts, 4, 0);
        assert!(groups.len() >= 2);
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 17);
    }

    #[test]
    fn split_is_deterministic_and_seed_depends_on_path() {
        let pts = blobs();
        assert_eq!(split(&pts, 8, 11), split(&pts, 8, 11));
        assert_ne!(node_seed(0, &[1, 2]), node_seed(0, &[2, 1]));
        assert_ne!(node_seed(0, &[]), node_seed(1, &[]));
    }

    #[test]
    fn tiny_clusters_are_dissolved() {
        // 30 points in a blob plus one far outlier: with k = 3 the outlier's singleton
        // cluster is below n / (4k) = 2 and must be merged away.
        let mut pts: Vec<V> = (0..30)
            .map(|i| [i as f64 * 0.1, (i % 3) as f64, 0.0])
            .collect();
        pts.push([100.0, 0.0, 0.0]);
        let groups = split(&pts, 3, 1);
        assert!(groups.iter().all(|g| g.len() >= 2), "{groups:?}");
    }
}
