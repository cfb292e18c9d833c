//! Dense pass of the active-set solve for small clusters (`impulse/direct.rs`): the
//! Delassus operator `W` (`3m × 3m`, relative contact velocity change per unit impulse in
//! the rows' local bases) is built once per solve, each pass solves the square system of
//! the active set by LU. A sliding point's column carries its friction (`P_t = μ·P_n·d`),
//! so slides are exact within the pass (the system is not symmetric then).

use super::{basis, relative_unknowns, Direct, REFINEMENTS, REGULARISATION};
use crate::integrator::lts::impulse::row::Row;
use crate::integrator::lts::impulse::sweep::Velocities;
use nalgebra::{DMatrix, DVector};

impl Direct {
    /// Fills `w` with the Delassus operator of `rows` (local bases).
    pub(super) fn dense_delassus(&mut self, rows: &[Row], state: &Velocities) {
        let m = rows.len();
        self.w = DMatrix::zeros(3 * m, 3 * m);
        for (j, rj) in rows.iter().enumerate() {
            for (l, e) in basis(rj).iter().enumerate() {
                // Velocity changes of rj's bodies per unit impulse along e (on a, −e on b).
                let ends = [(Some(rj.a), rj.ra, 1.0), (rj.b, rj.rb, -1.0)];
                for (body, r, sign) in ends {
                    let Some(body) = body else { continue };
                    let k = body as usize;
                    let dv = e * (sign * state.inv_mass[k]);
                    let dw = state.inv_inertia[k] * r.cross(&(e * sign));
                    for (i, ri) in rows.iter().enumerate() {
                        let side = if ri.a == body {
                            Some((ri.ra, 1.0))
                        } else if ri.b == Some(body) {
                            Some((ri.rb, -1.0))
                        } else {
                            None
                        };
                        let Some((r_i, s_i)) = side else { continue };
                        let change = (dv + dw.cross(&r_i)) * s_i;
                        for (kk, f) in basis(ri).iter().enumerate() {
                            self.w[(3 * i + kk, 3 * j + l)] += f.dot(&change);
                        }
                    }
                }
            }
        }
    }

    /// Impulses of the active set for unknowns `x` (`index[i]`: first unknown of row i) and
    /// their velocities through the dense `W`.
    fn impulses(&mut self, rows: &[Row], index: &[usize], x: &DVector<f64>) {
        self.impulses_of(rows, index, x.as_slice());
        self.dense_velocities();
    }

    /// Velocities `self.v` of the impulses `self.p` through the dense `W`.
    pub(super) fn dense_velocities(&mut self) {
        let m = self.p.len();
        for i in 0..m {
            let mut v = self.v0[i];
            for j in 0..m {
                for l in 0..3 {
                    let dp = self.p[j][l] - self.p0[j][l];
                    if dp != 0.0 {
                        for (kk, vk) in v.iter_mut().enumerate() {
                            *vk += self.w[(3 * i + kk, 3 * j + l)] * dp;
                        }
                    }
                }
            }
            self.v[i] = v;
        }
    }

    /// One pass solved densely: the active-set system `(E·W·C)·x = −E·(v + W·(c − P))`
    /// (parent module docs) by LU, regularised by 1e-12 of its diagonal and refined three
    /// times; `false` if it is not solvable.
    pub(super) fn dense_pass(&mut self, rows: &[Row]) -> bool {
        let (index, columns, equations) = relative_unknowns(rows, &self.normal, &self.tangent);
        let u = columns.len();
        if u == 0 {
            let x = DVector::zeros(0);
            self.impulses(rows, &index, &x);
            return true;
        }
        let mut a = DMatrix::<f64>::zeros(u, u);
        for (e, &(i, k)) in equations.iter().enumerate() {
            for (c, &(j, q)) in columns.iter().enumerate() {
                a[(e, c)] = (0..3)
                    .map(|l| self.w[(3 * i + k, 3 * j + l)] * q[l])
                    .sum::<f64>();
            }
        }
        // Right-hand side from the constant part (x = 0).
        let zero = DVector::zeros(u);
        self.impulses(rows, &index, &zero);
        let b = DVector::from_iterator(u, equations.iter().map(|&(i, k)| -self.v[i][k]));
        let mut regular = a.clone();
        let scale = (0..u).map(|e| a[(e, e)].abs()).fold(0.0, f64::max);
        if !(scale > 0.0 && scale.is_finite()) {
            return false;
        }
        for e in 0..u {
            regular[(e, e)] += REGULARISATION * scale;
        }
        let lu = regular.lu();
        let Some(mut x) = lu.solve(&b) else {
            return false;
        };
        for _ in 0..REFINEMENTS {
            let r = &b - &a * &x;
            match lu.solve(&r) {
                Some(dx) => x += dx,
                None => return false,
            }
        }
        if !x.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.impulses(rows, &index, &x);
        true
    }
}
