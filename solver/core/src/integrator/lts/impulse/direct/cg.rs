//! Matrix-free pass of the active-set solve for large clusters (`impulse/direct.rs`): the
//! Delassus product `W·x` goes through the bodies' velocity changes (`O(m)` per product,
//! no `3m × 3m` matrix), the active set's equations are solved by conjugate gradients with
//! a Jacobi preconditioner (the diagonal of each point's own effective-mass block). A
//! sliding point's friction is taken from the previous pass's normal impulse (lagged),
//! which keeps the system symmetric positive semi-definite; the passes update it.

use super::{basis, Direct, Normal, Tangent, CG_FRACTION, CG_MAX_ITERATIONS};
use crate::integrator::lts::impulse::row::Row;
use crate::integrator::lts::impulse::sweep::Velocities;
use msdem_geom::math::Vec3;

impl Direct {
    /// `out[i]` = relative velocity change of row `i` (local basis) caused by the impulses
    /// `x` (local bases) on all rows: `W·x`, matrix-free through the bodies' velocity
    /// changes (`Δv = P/M`, `Δω = I⁻¹ (r × P)`).
    fn product(&mut self, rows: &[Row], state: &Velocities, x: &[[f64; 3]], out: &mut [[f64; 3]]) {
        let n = state.velocity.len();
        self.dv.clear();
        self.dv.resize(n, Vec3::zeros());
        self.dw.clear();
        self.dw.resize(n, Vec3::zeros());
        for (row, p) in rows.iter().zip(x) {
            let [e0, e1, e2] = basis(row);
            let world = e0 * p[0] + e1 * p[1] + e2 * p[2];
            let a = row.a as usize;
            self.dv[a] += world * state.inv_mass[a];
            self.dw[a] += state.inv_inertia[a] * row.ra.cross(&world);
            if let Some(b) = row.b {
                let b = b as usize;
                self.dv[b] -= world * state.inv_mass[b];
                self.dw[b] -= state.inv_inertia[b] * row.rb.cross(&world);
            }
        }
        for (row, o) in rows.iter().zip(out.iter_mut()) {
            let a = row.a as usize;
            let mut v = self.dv[a] + self.dw[a].cross(&row.ra);
            if let Some(b) = row.b {
                let b = b as usize;
                v -= self.dv[b] + self.dw[b].cross(&row.rb);
            }
            *o = basis(row).map(|e| e.dot(&v));
        }
    }

    /// One pass: the impulses of the active set (pushing normals and sticking tangents
    /// unknown, open normals at their floor, sliding tangents `μ·P_n·d` with the `P_n` of
    /// the last pass) from its equations (`v_n = 0` per pushing point, `v_t = 0` per
    /// sticking one) by conjugate gradients, into `p` and their velocities into `v`.
    pub(super) fn cg_pass(&mut self, rows: &[Row], state: &Velocities, tol_v: f64) {
        let m = rows.len();
        // Unknown mask and constant part.
        self.mask.clear();
        self.c.clear();
        for (i, row) in rows.iter().enumerate() {
            let push = self.normal[i] == Normal::Push;
            let pn = if push { self.p[i][0] } else { row.floor };
            let (stick, pt) = match self.tangent[i] {
                Tangent::Stick => (true, [0.0, 0.0]),
                Tangent::Slide(d) => (false, [row.mu * pn * d[0], row.mu * pn * d[1]]),
            };
            self.mask.push([push, stick, stick]);
            self.c.push([if push { 0.0 } else { pn }, pt[0], pt[1]]);
        }
        // Velocities of the constant part: v_c = v0 + W·(c − p0).
        self.work.clear();
        self.work
            .extend((0..m).map(|i| std::array::from_fn(|k| self.c[i][k] - self.p0[i][k])));
        let mut vc = vec![[0.0; 3]; m];
        let work = std::mem::take(&mut self.work);
        self.product(rows, state, &work, &mut vc);
        self.work = work;
        for (v, v0) in vc.iter_mut().zip(&self.v0) {
            for k in 0..3 {
                v[k] += v0[k];
            }
        }
        // Conjugate gradients on E·W·Eᵀ·x = −E·v_c from the last pass's impulses.
        let masked = |mask: &[[bool; 3]], y: &mut [[f64; 3]]| {
            for (y, m) in y.iter_mut().zip(mask) {
                for k in 0..3 {
                    if !m[k] {
                        y[k] = 0.0;
                    }
                }
            }
        };
        let mut x: Vec<[f64; 3]> = self.p.clone();
        masked(&self.mask, &mut x);
        let mut wx = vec![[0.0; 3]; m];
        self.product(rows, state, &x, &mut wx);
        // Residual r = −E·(v_c + W·x): the equations' velocity error [m/s].
        let mut r: Vec<[f64; 3]> = (0..m)
            .map(|i| std::array::from_fn(|k| -(vc[i][k] + wx[i][k])))
            .collect();
        masked(&self.mask, &mut r);
        let dot = |a: &[[f64; 3]], b: &[[f64; 3]]| -> f64 {
            a.iter()
                .zip(b)
                .map(|(a, b)| a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
                .sum()
        };
        let largest = |a: &[[f64; 3]]| a.iter().flatten().fold(0.0_f64, |s, v| s.max(v.abs()));
        // Jacobi preconditioner: the diagonal of each row's own 3×3 block `K`.
        let diag: Vec<[f64; 3]> = rows
            .iter()
            .map(|row| basis(row).map(|e| 1.0 / e.dot(&(row.k * e)).max(f64::MIN_POSITIVE)))
            .collect();
        let precondition = |r: &[[f64; 3]], z: &mut Vec<[f64; 3]>| {
            z.clear();
            z.extend(
                r.iter()
                    .zip(&diag)
                    .map(|(r, g)| std::array::from_fn(|k| r[k] * g[k])),
            );
        };
        let mut z = Vec::with_capacity(m);
        precondition(&r, &mut z);
        let mut d = z.clone();
        let mut rz = dot(&r, &z);
        let mut ad = vec![[0.0; 3]; m];
        for _ in 0..CG_MAX_ITERATIONS {
            if largest(&r) <= CG_FRACTION * tol_v {
                break;
            }
            self.product(rows, state, &d, &mut ad);
            masked(&self.mask, &mut ad);
            let dad = dot(&d, &ad);
            if !(dad > 0.0) {
                break;
            }
            let alpha = rz / dad;
            for i in 0..m {
                for k in 0..3 {
                    x[i][k] += alpha * d[i][k];
                    r[i][k] -= alpha * ad[i][k];
                }
            }
            precondition(&r, &mut z);
            let rz_new = dot(&r, &z);
            let beta = rz_new / rz;
            rz = rz_new;
            for i in 0..m {
                for k in 0..3 {
                    d[i][k] = z[i][k] + beta * d[i][k];
                }
            }
        }
        // Impulses and their velocities.
        for i in 0..m {
            for k in 0..3 {
                self.p[i][k] = self.c[i][k] + x[i][k];
            }
        }
        self.work.clear();
        self.work
            .extend((0..m).map(|i| std::array::from_fn(|k| self.p[i][k] - self.p0[i][k])));
        let work = std::mem::take(&mut self.work);
        let mut v = std::mem::take(&mut self.v);
        self.product(rows, state, &work, &mut v);
        self.work = work;
        for (v, v0) in v.iter_mut().zip(&self.v0) {
            for k in 0..3 {
                v[k] += v0[k];
            }
        }
        self.v = v;
    }
}
