//! Recursive coordinate bisection (RCB): the spatial domains of a distributed run
//! (docs/design.md §8, *Distributed runs*).
//!
//! `parts` ranks are split into `⌊parts/2⌋` and `⌈parts/2⌉`; the points are cut across the
//! longest side of their bounding box, at the midpoint between two consecutive distinct
//! coordinates where the running weight (in the order of the coordinate, ties by point
//! index) comes closest to the left side's share `W·⌊p/2⌋/p`, among the cuts that leave
//! each side at least as many points as it has ranks (so a few heavy particles never
//! leave a rank empty); when the longest side has no such cut, the next longest is
//! tried. Both halves recurse. A cut never passes through points (a lattice plane stays
//! whole, half a spacing away from the cut). A
//! point belongs to the domain whose half-spaces hold it (`x[axis] < at` is left), so
//! ownership is a function of the position alone and a particle that crosses a cut
//! migrates. Pure and deterministic: the same points and weights give the same cuts
//! whatever their order in memory on any rank.

use std::cmp::Ordering;

/// Why a decomposition cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RcbError {
    /// Fewer particles than ranks.
    #[error("{ranks} ranks for {particles} particles: every rank needs at least one particle (run with at most {particles} ranks)")]
    MoreRanksThanParticles {
        /// Ranks asked for.
        ranks: u32,
        /// Particles in the run.
        particles: usize,
    },
    /// A domain holds no particle (coincident coordinates cannot be cut apart).
    #[error("the decomposition into {ranks} domains leaves domain {rank} without particles (too many coincident particle positions; run with fewer ranks)")]
    EmptyDomain {
        /// Ranks asked for.
        ranks: u32,
        /// The empty domain.
        rank: u32,
    },
    /// A weight or coordinate that is not a finite number (weights must also be > 0).
    #[error("RCB input {what} of point {index} is {value}, expected a finite number{}", if *what == "weight" { " > 0" } else { "" })]
    BadInput {
        /// `weight` or `coordinate`.
        what: &'static str,
        /// Index of the point.
        index: usize,
        /// The value as written.
        value: String,
    },
}

/// A node of the cut tree.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Node {
    /// A domain, owned by `rank`.
    Leaf { rank: u32 },
    /// Points with `x[axis] < at` go to the node `left`, the others to `right`.
    Cut {
        axis: u8,
        at: f64,
        left: u32,
        right: u32,
    },
}

/// An axis-aligned box `[lo, hi)` (infinite sides where no cut bounds it) \[m\].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    /// Lower corner \[m\].
    pub lo: [f64; 3],
    /// Upper corner \[m\].
    pub hi: [f64; 3],
}

impl Domain {
    /// Squared distance \[m²\] from `x` to the closed box (0 inside).
    pub fn distance_sq(&self, x: &[f64; 3]) -> f64 {
        (0..3)
            .map(|k| {
                let d = (self.lo[k] - x[k]).max(x[k] - self.hi[k]).max(0.0);
                d * d
            })
            .sum()
    }
}

/// The domains of `parts` ranks: a tree of coordinate cuts (serialisable, so that one
/// rank can compute it and send it to the others).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Decomposition {
    nodes: Vec<Node>,
    parts: u32,
}

impl Decomposition {
    /// Number of domains (ranks).
    pub fn parts(&self) -> u32 {
        self.parts
    }

    /// The rank whose domain holds `x`.
    pub fn locate(&self, x: &[f64; 3]) -> u32 {
        let mut n = 0usize;
        loop {
            match self.nodes[n] {
                Node::Leaf { rank } => return rank,
                Node::Cut {
                    axis,
                    at,
                    left,
                    right,
                } => n = if x[axis as usize] < at { left } else { right } as usize,
            }
        }
    }

    /// The box of every domain, indexed by rank.
    pub fn domains(&self) -> Vec<Domain> {
        let whole = Domain {
            lo: [f64::NEG_INFINITY; 3],
            hi: [f64::INFINITY; 3],
        };
        let mut out = vec![whole; self.parts as usize];
        let mut stack = vec![(0usize, whole)];
        while let Some((n, d)) = stack.pop() {
            match self.nodes[n] {
                Node::Leaf { rank } => out[rank as usize] = d,
                Node::Cut {
                    axis,
                    at,
                    left,
                    right,
                } => {
                    let (mut l, mut r) = (d, d);
                    l.hi[axis as usize] = at;
                    r.lo[axis as usize] = at;
                    stack.push((left as usize, l));
                    stack.push((right as usize, r));
                }
            }
        }
        out
    }

    /// Summed weight per rank of the points `points` with `weights`.
    pub fn loads(&self, points: &[[f64; 3]], weights: &[f64]) -> Vec<f64> {
        let mut load = vec![0.0; self.parts as usize];
        for (x, w) in points.iter().zip(weights) {
            load[self.locate(x) as usize] += w;
        }
        load
    }
}

/// Load imbalance `max_r W_r / mean_r W_r` [-] of per-rank loads (1 = perfect; 1 for no
/// load at all).
pub fn imbalance(loads: &[f64]) -> f64 {
    let total: f64 = loads.iter().sum();
    let max = loads.iter().copied().fold(0.0, f64::max);
    if total > 0.0 {
        max * loads.len() as f64 / total
    } else {
        1.0
    }
}

/// The RCB decomposition of `points` (\[m\]) with `weights` (the cost of each point,
/// finite and > 0) into `parts` domains, each holding at least one point (see the module
/// docs); an error names the offending input or the empty domain.
pub fn bisect(points: &[[f64; 3]], weights: &[f64], parts: u32) -> Result<Decomposition, RcbError> {
    if parts == 0 || (points.len() as u64) < u64::from(parts) {
        return Err(RcbError::MoreRanksThanParticles {
            ranks: parts,
            particles: points.len(),
        });
    }
    for (i, (x, w)) in points.iter().zip(weights).enumerate() {
        if let Some(c) = x.iter().find(|c| !c.is_finite()) {
            return Err(RcbError::BadInput {
                what: "coordinate",
                index: i,
                value: c.to_string(),
            });
        }
        if !(w.is_finite() && *w > 0.0) {
            return Err(RcbError::BadInput {
                what: "weight",
                index: i,
                value: w.to_string(),
            });
        }
    }
    let mut d = Decomposition {
        nodes: Vec::new(),
        parts,
    };
    let ids: Vec<u32> = (0..points.len() as u32).collect();
    split(points, weights, ids, 0, parts, &mut d.nodes);
    let mut counts = vec![0u64; parts as usize];
    for x in points {
        counts[d.locate(x) as usize] += 1;
    }
    if let Some(rank) = counts.iter().position(|&c| c == 0) {
        return Err(RcbError::EmptyDomain {
            ranks: parts,
            rank: rank as u32,
        });
    }
    Ok(d)
}

/// Appends the subtree of ranks `first..first + parts` over the points `ids`; returns its
/// node index.
fn split(
    points: &[[f64; 3]],
    weights: &[f64],
    mut ids: Vec<u32>,
    first: u32,
    parts: u32,
    nodes: &mut Vec<Node>,
) -> u32 {
    let me = nodes.len() as u32;
    if parts == 1 || ids.is_empty() {
        // With no point to share, the other ranks of this subtree stay empty, which
        // `bisect` reports.
        nodes.push(Node::Leaf { rank: first });
        return me;
    }
    let at_of = |i: u32| points[i as usize];
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for &i in &ids {
        for k in 0..3 {
            lo[k] = lo[k].min(at_of(i)[k]);
            hi[k] = hi[k].max(at_of(i)[k]);
        }
    }
    // Axes by extent, longest first (ties: the lower axis).
    let mut axes = [0usize, 1, 2];
    axes.sort_by(|&a, &b| (hi[b] - lo[b]).total_cmp(&(hi[a] - lo[a])).then(a.cmp(&b)));
    let left_parts = parts / 2;
    let total: f64 = ids.iter().map(|&i| weights[i as usize]).sum();
    let target = total * f64::from(left_parts) / f64::from(parts);
    // Cuts with at least `left_parts` points on the left and `parts − left_parts` on the
    // right, so every rank can get a point.
    let min_left = left_parts as usize;
    let max_left = ids.len().saturating_sub((parts - left_parts) as usize);
    let mut chosen: Option<(usize, f64)> = None;
    for &axis in &axes {
        ids.sort_by(|&a, &b| match at_of(a)[axis].total_cmp(&at_of(b)[axis]) {
            Ordering::Equal => a.cmp(&b),
            o => o,
        });
        // The cut goes between two distinct coordinates (never through a plane of equal
        // ones, which a drift would carry across at once), where the running weight is
        // closest to the target; the first such place on a tie.
        let mut running = 0.0;
        let mut best: Option<(f64, f64)> = None;
        for n in 1..ids.len() {
            running += weights[ids[n - 1] as usize];
            let (before, after) = (at_of(ids[n - 1])[axis], at_of(ids[n])[axis]);
            if before < after && (min_left..=max_left).contains(&n) {
                let miss = (running - target).abs();
                if best.is_none_or(|(m, _)| miss < m) {
                    best = Some((miss, 0.5 * (before + after)));
                }
            }
        }
        if let Some((_, at)) = best {
            chosen = Some((axis, at));
            break;
        }
    }
    // No such cut on any axis (coincident points): everything goes left, and `bisect`
    // reports the empty domain.
    let (axis, at) = chosen.unwrap_or((axes[0], f64::INFINITY));
    let (left_ids, right_ids): (Vec<u32>, Vec<u32>) =
        ids.into_iter().partition(|&i| at_of(i)[axis] < at);
    nodes.push(Node::Leaf { rank: first });
    let left = split(points, weights, left_ids, first, left_parts, nodes);
    let right = split(
        points,
        weights,
        right_ids,
        first + left_parts,
        parts - left_parts,
        nodes,
    );
    nodes[me as usize] = Node::Cut {
        axis: axis as u8,
        at,
        left,
        right,
    };
    me
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lattice(n: usize, h: f64) -> Vec<[f64; 3]> {
        let mut p = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    p.push([i as f64 * h, j as f64 * h, k as f64 * h]);
                }
            }
        }
        p
    }

    /// Brute-force check of a decomposition: every point lies in the box of the rank
    /// `locate` gives, and in no other box's interior.
    fn check_boxes(d: &Decomposition, points: &[[f64; 3]]) {
        let boxes = d.domains();
        for x in points {
            let r = d.locate(x) as usize;
            assert_eq!(boxes[r].distance_sq(x), 0.0);
            for (s, b) in boxes.iter().enumerate() {
                let inside = (0..3).all(|k| b.lo[k] <= x[k] && x[k] < b.hi[k]);
                assert_eq!(inside, s == r, "point {x:?} rank {r} box {s}");
            }
        }
    }

    #[test]
    fn a_uniform_lattice_splits_into_equal_counts() {
        let p = lattice(8, 0.01);
        let w = vec![1.0; p.len()];
        for parts in [1, 2, 4, 8] {
            let d = bisect(&p, &w, parts).unwrap();
            let loads = d.loads(&p, &w);
            assert!(
                loads.iter().all(|&l| l == 512.0 / f64::from(parts)),
                "{loads:?}"
            );
            assert_eq!(imbalance(&loads), 1.0);
            check_boxes(&d, &p);
            // Cuts lie half a spacing from every lattice plane.
            let boxes = d.domains();
            for x in &p {
                let r = d.locate(x) as usize;
                for (s, b) in boxes.iter().enumerate() {
                    if s != r {
                        assert!(b.distance_sq(x).sqrt() >= 0.005 - 1e-12);
                    }
                }
            }
        }
    }

    #[test]
    fn three_ranks_on_a_lattice_are_cut_between_planes() {
        let p = lattice(8, 0.01);
        let w = vec![1.0; p.len()];
        let d = bisect(&p, &w, 3).unwrap();
        let loads = d.loads(&p, &w);
        assert_eq!(loads.iter().sum::<f64>(), 512.0);
        // Cuts fall between lattice planes: 3 planes of 64 on the left (closer to 512/3
        // than 2), then the other 5 planes split between their rows of 40.
        assert_eq!(loads, vec![192.0, 160.0, 160.0]);
        check_boxes(&d, &p);
    }

    #[test]
    fn weights_balance_cost_not_count() {
        // Left half of a row costs 3 per point, right half 1: two ranks share the cost,
        // so the left rank holds fewer points.
        let p: Vec<[f64; 3]> = (0..100).map(|i| [i as f64, 0.0, 0.0]).collect();
        let w: Vec<f64> = (0..100).map(|i| if i < 50 { 3.0 } else { 1.0 }).collect();
        let d = bisect(&p, &w, 2).unwrap();
        let loads = d.loads(&p, &w);
        assert_eq!(loads, vec![99.0, 101.0]);
        let left = p.iter().filter(|x| d.locate(x) == 0).count();
        assert_eq!(left, 33); // 33 × 3 = 99 is the running weight closest to 200/2
        assert!(imbalance(&loads) < 1.03);
    }

    #[test]
    fn the_cuts_do_not_depend_on_the_order_of_the_points() {
        let p = lattice(5, 0.1);
        let w: Vec<f64> = (0..p.len()).map(|i| 1.0 + (i % 7) as f64).collect();
        let d = bisect(&p, &w, 3).unwrap();
        let mut order: Vec<usize> = (0..p.len()).collect();
        order.reverse();
        let p2: Vec<_> = order.iter().map(|&i| p[i]).collect();
        let w2: Vec<_> = order.iter().map(|&i| w[i]).collect();
        let d2 = bisect(&p2, &w2, 3).unwrap();
        for x in &p {
            assert_eq!(d.locate(x), d2.locate(x));
        }
    }

    #[test]
    fn more_ranks_than_points_and_coincident_points_are_refused() {
        let p = lattice(2, 1.0);
        let w = vec![1.0; 8];
        assert_eq!(
            bisect(&p, &w, 9),
            Err(RcbError::MoreRanksThanParticles {
                ranks: 9,
                particles: 8
            })
        );
        let same = vec![[1.0, 2.0, 3.0]; 5];
        let err = bisect(&same, &[1.0; 5], 2).unwrap_err();
        assert!(
            matches!(err, RcbError::EmptyDomain { ranks: 2, .. }),
            "{err}"
        );
        let err = bisect(&p, &[1.0, 1.0, f64::NAN, 1.0, 1.0, 1.0, 1.0, 1.0], 2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "RCB input weight of point 2 is NaN, expected a finite number > 0"
        );
    }

    #[test]
    fn a_few_heavy_particles_leave_no_rank_empty() {
        // Along x: two light particles, then a heavy one. The cut closest to a third of
        // the weight would leave the heavy one alone for two ranks.
        let p = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let d = bisect(&p, &[1.0, 1.0, 100.0], 3).unwrap();
        let ranks: Vec<u32> = p.iter().map(|x| d.locate(x)).collect();
        assert_eq!(ranks, [0, 1, 2]);
        // Three points share x = 0 (the longest side): no x cut gives the right half's
        // two ranks two points, a y cut does.
        let p = vec![
            [0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 2.0, 0.0],
            [10.0, 0.5, 0.0],
        ];
        let d = bisect(&p, &[1.0; 4], 4).unwrap();
        let mut ranks: Vec<u32> = p.iter().map(|x| d.locate(x)).collect();
        ranks.sort_unstable();
        assert_eq!(ranks, [0, 1, 2, 3]);
    }

    #[test]
    fn distinct_points_are_never_left_without_a_rank() {
        // Brute force over seeded random clouds, weights up to 1000× apart, and every
        // rank count up to the number of points: every domain gets a point.
        let mut seed = 0x5EED_u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let n = 1 + (next() * 12.0) as usize;
            // Coordinates on a coarse grid, so that many points share one of them.
            let p: Vec<[f64; 3]> = (0..n)
                .map(|_| [(next() * 3.0).floor(), (next() * 3.0).floor(), next()])
                .collect();
            let w: Vec<f64> = (0..n).map(|_| 1.0 + 999.0 * next() * next()).collect();
            for parts in 1..=n as u32 {
                let d = bisect(&p, &w, parts).unwrap();
                let mut counts = vec![0; parts as usize];
                for x in &p {
                    counts[d.locate(x) as usize] += 1;
                }
                assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
            }
        }
    }

    #[test]
    fn distance_to_a_domain_matches_the_clamped_point() {
        let d = Domain {
            lo: [0.0, f64::NEG_INFINITY, 0.0],
            hi: [1.0, 2.0, f64::INFINITY],
        };
        assert_eq!(d.distance_sq(&[0.5, -1e9, 5.0]), 0.0);
        assert_eq!(d.distance_sq(&[2.0, 3.0, -1.0]), 3.0);
    }
}
