//! Block-sparse LU factorisation of a body-space matrix (issue 12: the sparse direct solve
//! of large jammed clusters, `impulse/direct/sparse.rs`): one 6×6 block per pair of bodies
//! that share a contact point, eliminated body by body in a minimum-degree order (the body
//! with the fewest remaining neighbours first, ties by index: a fixed, thread-independent
//! order) that keeps the fill small on stacks and rings of cubes. Each pivot block is
//! inverted densely (LU with partial pivoting inside the block); there is no pivoting
//! between blocks, so the matrix should be block-diagonally dominant or positive definite —
//! the caller's `ε·M + H·G` is, up to the friction coupling of sliding points, and every
//! result is checked by the caller anyway. The pattern is kept symmetric.

use nalgebra::{Matrix6, Vector6};
use std::collections::{BTreeMap, BTreeSet};

/// A 6×6 block (one body's three linear and three angular components).
pub type Block = Matrix6<f64>;
/// One body's six components.
pub type Six = Vector6<f64>;

/// The matrix being assembled, then its factors.
#[derive(Debug, Default)]
pub struct BlockLu {
    /// Remaining (not yet eliminated) rows: column → block.
    rows: Vec<BTreeMap<u32, Block>>,
    /// Elimination order.
    order: Vec<u32>,
    /// Inverse of each body's pivot block (by body).
    pivot_inv: Vec<Block>,
    /// Per eliminated body: the multipliers `L_ik = A_ik·P_k⁻¹` of the later bodies `i`.
    lower: Vec<Vec<(u32, Block)>>,
    /// Per eliminated body: its row `A_kj` towards the later bodies `j`.
    upper: Vec<Vec<(u32, Block)>>,
}

impl BlockLu {
    /// Starts an `n`-body matrix, all blocks zero.
    pub fn reset(&mut self, n: usize) {
        self.rows.clear();
        self.rows.resize_with(n, BTreeMap::new);
        self.order.clear();
        self.pivot_inv.clear();
        self.pivot_inv.resize(n, Block::zeros());
        self.lower.clear();
        self.lower.resize_with(n, Vec::new);
        self.upper.clear();
        self.upper.resize_with(n, Vec::new);
    }

    /// Adds `block` to `A[i][j]` (and makes `A[j][i]` a structural entry).
    pub fn add(&mut self, i: u32, j: u32, block: &Block) {
        *self.rows[i as usize].entry(j).or_insert_with(Block::zeros) += block;
        self.rows[j as usize].entry(i).or_insert_with(Block::zeros);
    }

    /// Factorises in minimum-degree order; `false` if a pivot block is singular or a value
    /// not finite (the factors are then unusable).
    pub fn factor(&mut self) -> bool {
        let n = self.rows.len();
        for (i, row) in self.rows.iter_mut().enumerate() {
            row.entry(i as u32).or_insert_with(Block::zeros);
        }
        let degree = |row: &BTreeMap<u32, Block>| row.len() - 1;
        let mut queue: BTreeSet<(usize, u32)> =
            (0..n).map(|i| (degree(&self.rows[i]), i as u32)).collect();
        while let Some((_, k)) = queue.pop_first() {
            let ku = k as usize;
            let row_k = std::mem::take(&mut self.rows[ku]);
            let Some(pivot) = row_k.get(&k) else {
                return false;
            };
            let Some(inv) = pivot.try_inverse() else {
                return false;
            };
            if !inv.iter().all(|x| x.is_finite()) {
                return false;
            }
            self.pivot_inv[ku] = inv;
            let later: Vec<(u32, Block)> = row_k.into_iter().filter(|&(j, _)| j != k).collect();
            for &(i, _) in &later {
                queue.remove(&(degree(&self.rows[i as usize]), i));
            }
            let mut multipliers = Vec::with_capacity(later.len());
            for &(i, _) in &later {
                let row_i = &mut self.rows[i as usize];
                let a_ik = row_i.remove(&k).unwrap_or_else(Block::zeros);
                let l_ik = a_ik * inv;
                for (j, a_kj) in &later {
                    *row_i.entry(*j).or_insert_with(Block::zeros) -= l_ik * a_kj;
                }
                multipliers.push((i, l_ik));
            }
            for &(i, _) in &later {
                queue.insert((degree(&self.rows[i as usize]), i));
            }
            self.lower[ku] = multipliers;
            self.upper[ku] = later;
            self.order.push(k);
        }
        self.order.len() == n
    }

    /// Solves `A·x = b` in place with the factors (`b` one entry per body).
    pub fn solve(&self, b: &mut [Six]) {
        for &k in &self.order {
            let yk = b[k as usize];
            for (i, l) in &self.lower[k as usize] {
                b[*i as usize] -= l * yk;
            }
        }
        for &k in self.order.iter().rev() {
            let ku = k as usize;
            let mut rhs = b[ku];
            for (j, a) in &self.upper[ku] {
                rhs -= a * b[*j as usize];
            }
            b[ku] = self.pivot_inv[ku] * rhs;
        }
    }
}
