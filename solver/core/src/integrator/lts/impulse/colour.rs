//! Graph colouring of a cluster's contact points (seed 004 §6): a contact point is an edge
//! between its two particles (obstacles have infinite mass, are never updated and so are
//! no vertex); points of one colour share no particle and can be updated at the same time.
//!
//! Greedy edge colouring in input order: each point takes the smallest colour used by
//! neither of its particles so far, so at most `2Δ − 1` colours for a largest particle
//! degree `Δ`. The result depends only on the input order (deterministic).

use std::ops::Range;

/// A colouring and the contact order it induces (by colour, stable within a colour).
#[derive(Debug, Default)]
pub struct Colouring {
    /// Colour per input edge.
    colour: Vec<u32>,
    /// Input edge indices sorted by colour (stable).
    order: Vec<u32>,
    /// Index range of each colour in `order`.
    ranges: Vec<Range<usize>>,
    /// Degree per particle, then bit sets of used colours per particle (`words` each).
    degree: Vec<u32>,
    used: Vec<u64>,
    /// Counting-sort offsets.
    start: Vec<usize>,
}

impl Colouring {
    /// Colours the edges `(a, b)` (`b = None` for an obstacle) between `n` particles;
    /// every index must be below `n`.
    pub fn colour(&mut self, n: usize, edges: &[(u32, Option<u32>)]) {
        self.degree.clear();
        self.degree.resize(n, 0);
        for &(a, b) in edges {
            self.degree[a as usize] += 1;
            if let Some(b) = b {
                self.degree[b as usize] += 1;
            }
        }
        let max_degree = self.degree.iter().copied().max().unwrap_or(0) as usize;
        let words = (2 * max_degree).div_ceil(64).max(1);
        self.used.clear();
        self.used.resize(n * words, 0);
        self.colour.clear();
        let mut colours = 0_u32;
        for &(a, b) in edges {
            let a = a as usize * words;
            let b = b.map(|b| b as usize * words);
            // First colour free at both ends; one exists among the first 2Δ − 1.
            let mut chosen = 0;
            for w in 0..words {
                let taken = self.used[a + w] | b.map_or(0, |b| self.used[b + w]);
                if taken != u64::MAX {
                    chosen = w * 64 + taken.trailing_ones() as usize;
                    break;
                }
            }
            let (w, bit) = (chosen / 64, 1_u64 << (chosen % 64));
            self.used[a + w] |= bit;
            if let Some(b) = b {
                self.used[b + w] |= bit;
            }
            self.colour.push(chosen as u32);
            colours = colours.max(chosen as u32 + 1);
        }
        // Counting sort by colour.
        let start = &mut self.start;
        start.clear();
        start.resize(colours as usize + 1, 0);
        for &c in &self.colour {
            start[c as usize + 1] += 1;
        }
        for c in 0..colours as usize {
            start[c + 1] += start[c];
        }
        self.ranges.clear();
        self.ranges
            .extend((0..colours as usize).map(|c| start[c]..start[c + 1]));
        self.order.clear();
        self.order.resize(edges.len(), 0);
        for (i, &c) in self.colour.iter().enumerate() {
            let slot = &mut start[c as usize];
            self.order[*slot] = i as u32;
            *slot += 1;
        }
    }

    /// Input edge indices sorted by colour.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Range of each colour in [`Colouring::order`].
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// Colour of input edge `i`.
    #[cfg(test)]
    pub fn colour_of(&self, i: usize) -> u32 {
        self.colour[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Brute force: no two edges of a colour share a particle, the order is a permutation
    /// sorted by colour, and the count obeys the greedy bound 2Δ − 1.
    fn check(n: usize, edges: &[(u32, Option<u32>)]) {
        let mut c = Colouring::default();
        c.colour(n, edges);
        for i in 0..edges.len() {
            for j in i + 1..edges.len() {
                if c.colour_of(i) != c.colour_of(j) {
                    continue;
                }
                let (a, b) = edges[i];
                let (p, q) = edges[j];
                let ends_i = [Some(a), b];
                let shared = [Some(p), q]
                    .iter()
                    .flatten()
                    .any(|x| ends_i.contains(&Some(*x)));
                assert!(
                    !shared,
                    "edges {i} and {j} share a particle in colour {}",
                    c.colour_of(i)
                );
            }
        }
        let mut seen = vec![false; edges.len()];
        for (k, r) in c.ranges().iter().enumerate() {
            for &i in &c.order()[r.clone()] {
                assert_eq!(c.colour_of(i as usize), k as u32);
                assert!(!seen[i as usize]);
                seen[i as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        let mut degree = vec![0; n];
        for &(a, b) in edges {
            degree[a as usize] += 1;
            if let Some(b) = b {
                degree[b as usize] += 1;
            }
        }
        let max = degree.iter().copied().max().unwrap_or(0);
        if max == 0 {
            assert!(c.ranges().is_empty());
        } else {
            assert!(
                c.ranges().len() < 2 * max,
                "{} colours for degree {max}",
                c.ranges().len()
            );
        }
    }

    #[test]
    fn random_graphs_are_properly_coloured() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for n in [1_usize, 2, 5, 40] {
            for m in [0_usize, 1, 10, 300] {
                let edges: Vec<_> = (0..m)
                    .map(|_| {
                        let a = rng.gen_range(0..n as u32);
                        let b = rng.gen_range(0..n as u32 + 1);
                        (a, (b < n as u32 && b != a).then_some(b))
                    })
                    .collect();
                check(n, &edges);
            }
        }
    }

    #[test]
    fn a_star_of_100_edges_needs_100_colours() {
        // More than 64 colours exercises the multi-word bit sets.
        let edges: Vec<_> = (1..=100).map(|j| (0, Some(j))).collect();
        let mut c = Colouring::default();
        c.colour(101, &edges);
        assert_eq!(c.ranges().len(), 100);
        check(101, &edges);
    }

    #[test]
    fn a_chain_alternates_two_colours() {
        let edges: Vec<_> = (0..9).map(|i| (i, Some(i + 1))).collect();
        let mut c = Colouring::default();
        c.colour(10, &edges);
        assert_eq!(c.ranges().len(), 2);
        for i in 0..9 {
            assert_eq!(c.colour_of(i), (i % 2) as u32);
        }
    }
}
