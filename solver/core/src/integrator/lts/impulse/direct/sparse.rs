//! Sparse pass of the active-set solve for large clusters (issue 12: standing stacks and
//! rings of cubes, hundreds to thousands of contact points), in body space.
//!
//! The active-set system of `impulse/direct.rs` is `(G·M⁻¹·H)·x = b`: `x` the `u` unknown
//! impulses, `H` (`6B × u`) the generalised impulse of each unknown's column on the
//! cluster's `B` bodies (force and moment about the centre of mass), `G` (`u × 6B`) the
//! relative contact velocity of each equation, `M` the bodies' mass matrix (mass and world
//! inertia), so `G·M⁻¹·H` is the active part of the Delassus operator `W` (`G = Hᵀ` unless
//! a point slides). The redundant corner points of a resting face make it singular. It is
//! regularised by a compliance `ε` (velocity per impulse, [`COMPLIANCE`] times the largest
//! diagonal entry) weighted per unknown (`D`: 1 for a normal, [`TANGENT_WEIGHT`] for a
//! tangential unknown), `(G·M⁻¹·H + ε·D)·y = r`, and that is solved in body space: with
//! `z = M⁻¹·H·y` (the bodies' velocity change), `G·z + ε·D·y = r` gives
//! `y = D⁻¹·(r − G·z)/ε` and `(ε·M + H·D⁻¹·G)·z = H·D⁻¹·r` — a `6B × 6B` system whose 6×6 blocks couple only bodies
//! that touch, factorised by block-sparse LU in minimum-degree order
//! (`impulse/direct/blocks.rs`), instead of the `u × u` dense LU. The regularisation's bias
//! is removed by iterating `x ← x + (W + ε·D)⁻¹·(b − W·x)` from `x = 0` (proximal point
//! iterations; `b − W·x` evaluated exactly through the bodies' velocities): on the range of
//! `W` each removes all but about `ε·d/(λ + ε·d)` of the error (`λ` the eigenvalue), so the
//! regularisation changes neither the velocities nor the conditions met — the iterations
//! stop when every equation holds to 10⁻³ of the velocity tolerance — and on the null space
//! of `W` (impulses the redundant points can trade without changing any velocity) nothing
//! moves from 0: for a frictionless or sticking set (`G = Hᵀ`) the result is the impulse
//! distribution of least `Σ P_n² + TANGENT_WEIGHT·Σ |P_t|²` (for frictionless sets the
//! minimum-norm one, as the dense solve's, `impulse/direct/dense.rs`).

use super::blocks::{Block, Six};
use super::{basis, relative_unknowns, Direct};
use crate::integrator::lts::impulse::row::Row;
use crate::integrator::lts::impulse::sweep::Velocities;
use msdem_geom::math::{Mat3, Vec3};

/// Compliance `ε` relative to the largest diagonal entry of the active Delassus operator:
/// small enough that one proximal iteration removes all but 10⁻³ of the error on a
/// 20-cube column (whose smallest non-zero eigenvalue is ≈ 10⁻³ of the largest), large
/// enough that the body-space blocks `ε·M + H·G` stay well conditioned (≈ 10⁶).
pub(super) const COMPLIANCE: f64 = 1e-6;
/// Most proximal iterations per pass.
const MAX_PROXIMAL: usize = 16;
/// Weight of a sticking point's tangential unknowns in the regularisation's norm relative
/// to the normal ones: of the impulses that give the same velocities, the iterations pick
/// the one with least `Σ P_n² + TANGENT_WEIGHT·Σ |P_t|²`. With equal weights the
/// minimum-norm impulses let friction at lightly loaded corner points carry moments that
/// normal impulses carry as well (a cube resting on two staggered ones), far outside
/// their friction discs (the resting rings of `pipelines/tower.yaml`: half the sticking
/// points). 10 is enough there (100 gave the same) and keeps the proximal iterations'
/// rate on tangential components (`ε·10/λ`) at ≈ 10⁻².
pub(super) const TANGENT_WEIGHT: f64 = 10.0;

/// The two ends of a row: (body, lever arm, sign of the impulse on it); `None` = obstacle.
pub(super) fn ends(row: &Row) -> [(Option<u32>, Vec3, f64); 2] {
    [(Some(row.a), row.ra, 1.0), (row.b, row.rb, -1.0)]
}

/// Generalised vector (force, moment about the centre of mass) of the world vector `w`
/// acting at lever arm `r` with sign `s`.
pub(super) fn generalised(w: &Vec3, r: &Vec3, s: f64) -> Six {
    let m = r.cross(w);
    Six::new(s * w.x, s * w.y, s * w.z, s * m.x, s * m.y, s * m.z)
}

/// The world vector of the local components `q` (n, t1, t2) of `row`.
fn world(row: &Row, q: &[f64; 3]) -> Vec3 {
    let [n, t1, t2] = basis(row);
    n * q[0] + t1 * q[1] + t2 * q[2]
}

impl Direct {
    /// Velocities `self.v` of the impulses `self.p` (from `self.v0` at `self.p0`) through
    /// the bodies' velocity changes: `O(points)`, no Delassus matrix.
    pub(super) fn body_velocities(&mut self, rows: &[Row], state: &Velocities) {
        let n = state.inv_mass.len();
        self.du.clear();
        self.du.resize(n, Six::zeros());
        for (j, row) in rows.iter().enumerate() {
            let dp = [0, 1, 2].map(|l| self.p[j][l] - self.p0[j][l]);
            if dp == [0.0; 3] {
                continue;
            }
            let w = world(row, &dp);
            for (body, r, s) in ends(row) {
                let Some(k) = body else { continue };
                let k = k as usize;
                let dv = w * (s * state.inv_mass[k]);
                let dw = state.inv_inertia[k] * r.cross(&(w * s));
                self.du[k] += Six::new(dv.x, dv.y, dv.z, dw.x, dw.y, dw.z);
            }
        }
        for (i, row) in rows.iter().enumerate() {
            let mut change = Vec3::zeros();
            for (body, r, s) in ends(row) {
                let Some(k) = body else { continue };
                let du = &self.du[k as usize];
                let dv = Vec3::new(du[0], du[1], du[2]);
                let dw = Vec3::new(du[3], du[4], du[5]);
                change += (dv + dw.cross(&r)) * s;
            }
            let e = basis(row);
            self.v[i] = [0, 1, 2].map(|k| self.v0[i][k] + e[k].dot(&change));
        }
    }

    /// One pass solved in body space (module docs); `tol_v` [m/s] the velocity tolerance
    /// of the caller's acceptance rule. `false` if the system is not solvable.
    pub(super) fn sparse_pass(&mut self, rows: &[Row], state: &Velocities, tol_v: f64) -> bool {
        let (index, columns, equations) = relative_unknowns(rows, &self.normal, &self.tangent);
        let u = columns.len();
        let mut x = vec![0.0; u];
        self.impulses_of(rows, &index, &x);
        self.body_velocities(rows, state);
        if u == 0 {
            return true;
        }
        // Generalised column (H) and equation (G) vectors of every unknown, per end.
        let h: Vec<[Six; 2]> = columns
            .iter()
            .map(|&(i, q)| {
                let w = world(&rows[i], &q);
                ends(&rows[i]).map(|(_, r, s)| generalised(&w, &r, s))
            })
            .collect();
        let g: Vec<[Six; 2]> = equations
            .iter()
            .map(|&(i, k)| {
                let f = basis(&rows[i])[k];
                ends(&rows[i]).map(|(_, r, s)| generalised(&f, &r, s))
            })
            .collect();
        let mobility = |k: usize, v: &Six| -> Six {
            let lin = Vec3::new(v[0], v[1], v[2]) * state.inv_mass[k];
            let ang = state.inv_inertia[k] * Vec3::new(v[3], v[4], v[5]);
            Six::new(lin.x, lin.y, lin.z, ang.x, ang.y, ang.z)
        };
        // ε from the largest diagonal entry W_cc = G_c·M⁻¹·H_c.
        let mut diagonal = 0.0_f64;
        for (c, &(i, _)) in equations.iter().enumerate() {
            let mut w_cc = 0.0;
            for (e, (body, _, _)) in ends(&rows[i]).iter().enumerate() {
                if let Some(k) = body {
                    w_cc += g[c][e].dot(&mobility(*k as usize, &h[c][e]));
                }
            }
            diagonal = diagonal.max(w_cc.abs());
        }
        let eps = COMPLIANCE * diagonal;
        // Inverse weight of each unknown in the regularisation (`D⁻¹`).
        let inv_weight: Vec<f64> = columns
            .iter()
            .map(|(_, q)| {
                if q[0] == 0.0 {
                    1.0 / TANGENT_WEIGHT
                } else {
                    1.0
                }
            })
            .collect();
        if !(eps > 0.0 && eps.is_finite()) {
            return false;
        }
        // ε·M + H·G, block by body pair.
        let bodies = state.inv_mass.len();
        self.lu.reset(bodies);
        for k in 0..bodies {
            let Some(inertia) = state.inv_inertia[k].try_inverse() else {
                return false;
            };
            let mut m = Block::zeros();
            let mass = Mat3::identity() / state.inv_mass[k];
            m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(mass * eps));
            m.fixed_view_mut::<3, 3>(3, 3).copy_from(&(inertia * eps));
            self.lu.add(k as u32, k as u32, &m);
        }
        for (c, &(i, _)) in columns.iter().enumerate() {
            let row_ends = ends(&rows[i]);
            for (ea, (alpha, _, _)) in row_ends.iter().enumerate() {
                let Some(alpha) = alpha else { continue };
                for (eb, (beta, _, _)) in row_ends.iter().enumerate() {
                    let Some(beta) = beta else { continue };
                    let block = h[c][ea] * (g[c][eb].transpose() * inv_weight[c]);
                    self.lu.add(*alpha, *beta, &block);
                }
            }
        }
        if !self.lu.factor() {
            return false;
        }
        // Proximal iterations: r = b − W·x is minus the equations' velocities at x.
        let mut y = vec![0.0; u];
        for _ in 0..MAX_PROXIMAL {
            let r: Vec<f64> = equations.iter().map(|&(i, k)| -self.v[i][k]).collect();
            let largest = r.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
            if !largest.is_finite() {
                return false;
            }
            if largest <= 1e-3 * tol_v {
                break;
            }
            self.z.clear();
            self.z.resize(bodies, Six::zeros());
            for (c, &(i, _)) in columns.iter().enumerate() {
                for (e, (body, _, _)) in ends(&rows[i]).iter().enumerate() {
                    if let Some(k) = body {
                        self.z[*k as usize] += h[c][e] * (inv_weight[c] * r[c]);
                    }
                }
            }
            self.lu.solve(&mut self.z);
            for (c, &(i, _)) in equations.iter().enumerate() {
                let mut gz = 0.0;
                for (e, (body, _, _)) in ends(&rows[i]).iter().enumerate() {
                    if let Some(k) = body {
                        gz += g[c][e].dot(&self.z[*k as usize]);
                    }
                }
                y[c] = inv_weight[c] * (r[c] - gz) / eps;
            }
            for (xc, yc) in x.iter_mut().zip(&y) {
                *xc += yc;
            }
            self.impulses_of(rows, &index, &x);
            self.body_velocities(rows, state);
        }
        x.iter().all(|v| v.is_finite())
    }
}
