//! Clustering (seed 004 §2.2, §3): the connected components of the pruned graph of
//! candidate pairs, by union-find. Static obstacles take no part (Def. 3.1). Components are
//! numbered by their smallest particle id and list their particles ascending, so the
//! clustering does not depend on the order of the edges or on the thread count.

/// Union-find with path halving; the root of a set is its smallest element.
#[derive(Clone, Debug, Default)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n as u32);
    }

    /// The representative (smallest element) of `i`'s set.
    pub fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let gp = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = gp;
            i = gp;
        }
        i
    }

    /// Merges the sets of `a` and `b`.
    pub fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi as usize] = lo;
        }
    }
}

/// Clusters of one sweep: particle lists and the pruned graph's edges per cluster.
#[derive(Clone, Debug, Default)]
pub struct Clusters {
    /// `members[start[c]..start[c + 1]]`: particles of cluster `c`, ascending.
    pub members: Vec<u32>,
    /// Offsets into `members` (one more than the clusters).
    pub start: Vec<u32>,
    /// Cluster of each particle.
    pub of: Vec<u32>,
    /// `edges[edge_start[c]..edge_start[c + 1]]`: the cluster's particle pairs, ascending.
    pub edges: Vec<(u32, u32)>,
    /// Offsets into `edges`.
    pub edge_start: Vec<u32>,
}

impl Clusters {
    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// True without clusters.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Particles of cluster `c`.
    pub fn members(&self, c: usize) -> &[u32] {
        &self.members[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// Particle pairs of cluster `c` (global ids, `a < b`).
    pub fn edges(&self, c: usize) -> &[(u32, u32)] {
        &self.edges[self.edge_start[c] as usize..self.edge_start[c + 1] as usize]
    }

    /// The connected components of `n` particles under `pairs` (each `a < b`, ascending).
    pub fn build(&mut self, n: usize, pairs: &[(u32, u32)], uf: &mut UnionFind) {
        uf.reset(n);
        for &(a, b) in pairs {
            uf.union(a, b);
        }
        // Number the roots in ascending order (a root is its set's smallest particle).
        self.of.clear();
        self.of.resize(n, u32::MAX);
        let mut count = 0u32;
        let mut sizes: Vec<u32> = Vec::new();
        for i in 0..n as u32 {
            let r = uf.find(i);
            if r == i {
                self.of[i as usize] = count;
                sizes.push(0);
                count += 1;
            }
            let c = self.of[r as usize];
            self.of[i as usize] = c;
            sizes[c as usize] += 1;
        }
        self.start.clear();
        self.start.push(0);
        for s in &sizes {
            let last = *self.start.last().unwrap_or(&0);
            self.start.push(last + s);
        }
        self.members.clear();
        self.members.resize(n, 0);
        let mut fill: Vec<u32> = self.start[..count as usize].to_vec();
        for i in 0..n as u32 {
            let c = self.of[i as usize] as usize;
            self.members[fill[c] as usize] = i;
            fill[c] += 1;
        }
        // Edges by cluster (counting sort keeps their ascending order inside a cluster).
        let mut counts = vec![0u32; count as usize + 1];
        for &(a, _) in pairs {
            counts[self.of[a as usize] as usize + 1] += 1;
        }
        for c in 0..count as usize {
            counts[c + 1] += counts[c];
        }
        self.edge_start.clear();
        self.edge_start.extend_from_slice(&counts);
        self.edges.clear();
        self.edges.resize(pairs.len(), (0, 0));
        let mut efill = counts;
        for &(a, b) in pairs {
            let c = self.of[a as usize] as usize;
            self.edges[efill[c] as usize] = (a, b);
            efill[c] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_match_a_brute_force_flood_fill() {
        let n = 40;
        let mut pairs: Vec<(u32, u32)> = (0..60u32)
            .map(|k| {
                let a = (k * 7 + 3) % n;
                let b = (k * 13 + 11) % n;
                (a.min(b), a.max(b))
            })
            .filter(|(a, b)| a != b)
            .collect();
        pairs.sort();
        pairs.dedup();
        pairs.truncate(25);
        let mut c = Clusters::default();
        c.build(n as usize, &pairs, &mut UnionFind::default());
        // Brute force: label propagation until nothing changes.
        let mut label: Vec<u32> = (0..n).collect();
        loop {
            let mut changed = false;
            for &(a, b) in &pairs {
                let m = label[a as usize].min(label[b as usize]);
                for i in [a, b] {
                    if label[i as usize] != m {
                        label[i as usize] = m;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for i in 0..n {
            for j in 0..n {
                assert_eq!(
                    label[i as usize] == label[j as usize],
                    c.of[i as usize] == c.of[j as usize]
                );
            }
        }
        let total: usize = (0..c.len()).map(|k| c.members(k).len()).sum();
        assert_eq!(total, n as usize);
        let edges: usize = (0..c.len()).map(|k| c.edges(k).len()).sum();
        assert_eq!(edges, pairs.len());
        for k in 0..c.len() {
            assert!(c.members(k).windows(2).all(|w| w[0] < w[1]));
            for &(a, b) in c.edges(k) {
                assert_eq!(c.of[a as usize] as usize, k);
                assert_eq!(c.of[b as usize] as usize, k);
            }
        }
    }
}
