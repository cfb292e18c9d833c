//! Connected clusters of touching particles: union–find over the particle–particle
//! contacts of one Picard iteration (issue 19, `docs/design.md` §6). Obstacles do not join
//! clusters (two particles resting on the same floor are independent unless they touch).

use crate::contact::Contact;
use crate::model::Other;

/// The clusters of one contact graph, in a fixed order: clusters by their smallest
/// particle id, members by id within each — so that per-cluster sums taken in this order
/// do not depend on the order of the contacts or on the thread count.
#[derive(Clone, Debug, Default)]
pub struct Clusters {
    parent: Vec<u32>,
    /// Particle ids grouped by cluster (see the type's docs).
    members: Vec<u32>,
    /// `members[starts[c]..starts[c + 1]]` is cluster `c`.
    starts: Vec<u32>,
    /// Scratch: per root, its cluster index.
    slot: Vec<u32>,
}

impl Clusters {
    /// The clusters of `n` particles joined by the particle–particle contacts among
    /// `contacts` (ids at or above `n` are ignored).
    pub fn build<'a>(&mut self, n: usize, contacts: impl Iterator<Item = &'a Contact>) {
        self.parent.clear();
        self.parent.extend(0..n as u32);
        for c in contacts {
            if let Other::Particle(b) = c.b {
                if (c.a as usize) < n && (b as usize) < n {
                    let (ra, rb) = (self.root(c.a), self.root(b));
                    // The smaller id becomes the root: roots are the clusters' smallest ids.
                    self.parent[ra.max(rb) as usize] = ra.min(rb);
                }
            }
        }
        // Counting sort of the particles by root; roots in ascending id order.
        self.slot.clear();
        self.slot.resize(n, u32::MAX);
        let mut sizes: Vec<u32> = Vec::new();
        for i in 0..n as u32 {
            let r = self.root(i) as usize;
            if self.slot[r] == u32::MAX {
                self.slot[r] = sizes.len() as u32;
                sizes.push(0);
            }
            sizes[self.slot[r] as usize] += 1;
        }
        self.starts.clear();
        self.starts.push(0);
        for s in &sizes {
            let last = self.starts.last().copied().unwrap_or(0);
            self.starts.push(last + s);
        }
        let mut fill: Vec<u32> = self.starts[..sizes.len()].to_vec();
        self.members.clear();
        self.members.resize(n, 0);
        for i in 0..n as u32 {
            let r = self.root(i) as usize;
            let c = self.slot[r] as usize;
            self.members[fill[c] as usize] = i;
            fill[c] += 1;
        }
    }

    /// Number of clusters (free particles count as clusters of one).
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The particle ids of cluster `c`, ascending.
    pub fn members(&self, c: usize) -> &[u32] {
        match (self.starts.get(c), self.starts.get(c + 1)) {
            (Some(&a), Some(&b)) => &self.members[a as usize..b as usize],
            _ => &[],
        }
    }

    fn root(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let up = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = up;
            i = up;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Vec3;

    fn contact(a: u32, b: Other) -> Contact {
        Contact {
            a,
            b,
            point: Vec3::zeros(),
            normal: Vec3::z(),
            dist: 0.0,
            weight: 1.0,
            depth: 0.0,
        }
    }

    /// Against brute force: two particles share a cluster iff a path of particle–particle
    /// contacts joins them (transitive closure of the adjacency), for seeded random graphs
    /// in any contact order; clusters come by smallest id, members ascending.
    #[test]
    fn clusters_are_the_connected_components_in_a_fixed_order() {
        let mut seed = 99u64;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..50 {
            let n = 1 + next(20) as usize;
            let mut contacts = Vec::new();
            for _ in 0..next(25) {
                let a = next(n as u64) as u32;
                let b = if next(4) == 0 {
                    Other::Obstacle(0)
                } else {
                    Other::Particle(next(n as u64) as u32)
                };
                contacts.push(contact(a, b));
            }
            let mut reach = vec![vec![false; n]; n];
            for (i, row) in reach.iter_mut().enumerate() {
                row[i] = true;
            }
            for c in &contacts {
                if let Other::Particle(b) = c.b {
                    reach[c.a as usize][b as usize] = true;
                    reach[b as usize][c.a as usize] = true;
                }
            }
            for k in 0..n {
                for i in 0..n {
                    for j in 0..n {
                        if reach[i][k] && reach[k][j] {
                            reach[i][j] = true;
                        }
                    }
                }
            }
            let mut clusters = Clusters::default();
            clusters.build(n, contacts.iter().rev());
            let mut seen = vec![false; n];
            let mut last_first = None;
            for c in 0..clusters.len() {
                let m = clusters.members(c);
                assert!(m.windows(2).all(|w| w[0] < w[1]));
                assert!(last_first < Some(m[0]));
                last_first = Some(m[0]);
                for &i in m {
                    seen[i as usize] = true;
                    for (j, &r) in reach[i as usize].iter().enumerate() {
                        assert_eq!(r, m.contains(&(j as u32)), "{i} and {j}");
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
