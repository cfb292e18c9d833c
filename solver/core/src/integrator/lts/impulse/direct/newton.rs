//! Semismooth Newton solve of a cluster's contact conditions (issue 12: toppling debris and
//! impact clusters, on which the active sets' sorting cycles), the conditions of seed 004 §6
//! as one non-smooth equation.
//!
//! Per contact point (impulse `P = (P_n, P_t)` and relative velocity `v = (v_n, v_t)` in the
//! row's local basis, normal floor `f`, friction `μ`, scale `r` = the point's effective
//! mass `1/(n·K·n)` [kg]) the Alart–Curnier function in velocity units
//!
//! * `Φ_n = (P_n − max(f, P_n − r·v_n))/r`: zero iff `P_n ≥ f`, `v_n ≥ 0` and
//!   `(P_n − f)·v_n = 0` (non-penetration, the restitution floor);
//! * `Φ_t = (P_t − proj_{|·| ≤ μ·P̂_n}(P_t − r·v_t))/r`, `P̂_n = max(f, P_n − r·v_n)`: zero iff
//!   `|P_t| ≤ μ·P_n`, `v_t = 0` inside the disc and `v_t` opposed to `P_t` on its rim (Coulomb);
//!
//! vanishes exactly where every condition of `impulse/direct.rs`'s acceptance holds. With
//! `v = v₀ + W·(P − P₀)` (`W` the Delassus operator) its generalised Jacobian is
//! `J = A + B·W`, `A`, `B` one 3×3 block per point (the derivative of the max and of the
//! disc projection on the side each point is on: pushing or open, sticking or sliding, a
//! sliding point's tangential block `(I − c·(I − q̂q̂ᵀ))/r`, `c = μ·P̂_n/|q|`, `q = P_t − r·v_t`).
//! Each Newton step solves `J·d = −Φ` in body space with the factorisation of
//! `impulse/direct/sparse.rs` (`direct/blocks.rs`): with `A' = A + ε·B·D` (the same
//! compliance `ε` and tangential weight `D` as the active-set solve; `A'` is invertible for
//! every point state), `d = A'⁻¹·(−Φ − B·G·z)` and
//! `(ε·M + Σ Gᵀ·ε·A'⁻¹B·G)·z = Σ Gᵀ·ε·A'⁻¹·(−Φ)` on the cluster's `6B` body velocities
//! (`G` a point's relative velocity rows, `M` the bodies' mass matrix). `ε` is a damping in
//! the manner of Levenberg and Marquardt: it starts at 10⁻³ of the largest diagonal entry
//! of `W` (the active-set solve's compliance is 10⁻⁶, the damping's floor), is raised tenfold after a step the line
//! search had to cut below a tenth (or could not take at all) and lowered tenfold after a
//! full step; at its floor the step is refined against the exact `J` (products with `W`
//! through the bodies' velocities) until the linear residual is 10⁻⁶ of `|Φ|`. Without
//! the damping the steps on the redundant corner points of shaken blocks were tens of
//! times the impulses and the line search cut them to 10⁻⁴. The step is taken with an
//! Armijo line search on the merit `θ = ½·|Φ|²` (never a growing merit); where it finds no
//! decrease, a steepest-descent step `−Jᵀ·Φ` (Cauchy length, the same search) is tried;
//! where that fails too the damping is raised, up to 10³ of the diagonal, then the solve
//! stops, as it does after 40 steps or 8 steps in a row that lowered the merit by less
//! than 10 %. The result is accepted by the caller's rule: every condition in the real
//! velocities to the tolerance. Where it stalls (docs/performance.md: toppling debris
//! and impacts) the merit has flat stretches: a sticking point whose tangential velocity
//! the others fix, which only a slide would free. Such a stall (the 8 flat steps, or no
//! decrease at the largest damping; not the 40-step limit, reached while still descending)
//! is reported by [`Direct::newton_stalled`], and the collision's later direct tries then
//! skip Newton (`impulse.rs`, the cost guard of issue 12: in a trace of the tower 886 of
//! 1,065 tries after a stalled one failed too, 38 % of the failed tries' work;
//! docs/performance.md, "Cost guard").

use super::blocks::{Block, Six};
use super::sparse::{ends, generalised, COMPLIANCE, TANGENT_WEIGHT};
use super::{basis, projected, relative, violation, Direct};
use crate::integrator::lts::impulse::row::Row;
use crate::integrator::lts::impulse::sweep::Velocities;
use msdem_geom::math::{Mat3, Vec3};

/// Most Newton steps per solve (each one factorisation).
const MAX_STEPS: usize = 40;
/// Refinements of a Newton step against the unregularised Jacobian.
const MAX_REFINEMENTS: usize = 6;
/// Forcing term: a step's linear residual below this fraction of `|Φ|` stops its refinement.
const FORCING: f64 = 1e-6;
/// First damping of the Newton steps relative to the largest diagonal entry of `W`, and the
/// largest.
const DAMPING_START: f64 = 1e-3;
const DAMPING_MAX: f64 = 1e3;
/// Armijo's sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;
/// Step halvings of a line search.
const HALVINGS: u32 = 30;
/// Steps whose merit falls by less than this factor count as stalled; the solve stops
/// after [`STALL_STEPS`] of them in a row.
const STALL_FACTOR: f64 = 0.9;
const STALL_STEPS: u32 = 8;

/// One point's residual `Φ` and Jacobian blocks `A` (per `dP`) and `B` (per `dv`).
#[derive(Clone, Copy, Debug)]
struct Local {
    phi: [f64; 3],
    a: Mat3,
    b: Mat3,
}

/// The Alart–Curnier residual of a point (module docs) and, with `jacobian`, its blocks.
fn local(p: [f64; 3], v: [f64; 3], r: f64, floor: f64, mu: f64, jacobian: bool) -> Local {
    let [pn, p1, p2] = p;
    let [vn, v1, v2] = v;
    let mut a = Mat3::zeros();
    let mut b = Mat3::zeros();
    let trial = pn - r * vn;
    let push = trial > floor;
    let hat = if push { trial } else { floor };
    let phi_n = (pn - hat) / r;
    if push {
        b[(0, 0)] = 1.0;
    } else {
        a[(0, 0)] = 1.0 / r;
    }
    let q = [p1 - r * v1, p2 - r * v2];
    let size = (q[0] * q[0] + q[1] * q[1]).sqrt();
    let bound = mu * hat;
    let phi_t;
    if size <= bound && bound > 0.0 {
        // Sticking: Φ_t = v_t.
        phi_t = [v1, v2];
        b[(1, 1)] = 1.0;
        b[(2, 2)] = 1.0;
    } else {
        // Sliding (or frictionless): P_t − μ·P̂_n·q̂.
        let qh = if size > 0.0 {
            [q[0] / size, q[1] / size]
        } else {
            [0.0, 0.0]
        };
        let c = if size > 0.0 { bound / size } else { 0.0 };
        phi_t = [(p1 - bound * qh[0]) / r, (p2 - bound * qh[1]) / r];
        if jacobian {
            for k in 0..2 {
                for l in 0..2 {
                    let perp = f64::from(u8::from(k == l)) - qh[k] * qh[l];
                    a[(1 + k, 1 + l)] = (f64::from(u8::from(k == l)) - c * perp) / r;
                    b[(1 + k, 1 + l)] = c * perp;
                }
                if push {
                    a[(1 + k, 0)] = -mu * qh[k] / r;
                    b[(1 + k, 0)] = mu * qh[k];
                }
            }
        }
    }
    Local {
        phi: [phi_n, phi_t[0], phi_t[1]],
        a,
        b,
    }
}

/// `W·x` for point impulses `x` (local bases): the relative velocity changes they give,
/// through the bodies' velocity changes (`du`, one per body, a buffer).
fn w_times(rows: &[Row], state: &Velocities, x: &[[f64; 3]], du: &mut Vec<Six>) -> Vec<[f64; 3]> {
    du.clear();
    du.resize(state.inv_mass.len(), Six::zeros());
    for (row, xi) in rows.iter().zip(x) {
        if *xi == [0.0; 3] {
            continue;
        }
        let [n, t1, t2] = basis(row);
        let w = n * xi[0] + t1 * xi[1] + t2 * xi[2];
        for (body, r, s) in ends(row) {
            let Some(k) = body else { continue };
            let k = k as usize;
            let dv = w * (s * state.inv_mass[k]);
            let dw = state.inv_inertia[k] * r.cross(&(w * s));
            du[k] += Six::new(dv.x, dv.y, dv.z, dw.x, dw.y, dw.z);
        }
    }
    rows.iter()
        .map(|row| {
            let mut change = Vec3::zeros();
            for (body, r, s) in ends(row) {
                let Some(k) = body else { continue };
                let d = &du[k as usize];
                change += (Vec3::new(d[0], d[1], d[2]) + Vec3::new(d[3], d[4], d[5]).cross(&r)) * s;
            }
            basis(row).map(|e| e.dot(&change))
        })
        .collect()
}

fn mat_vec(m: &Mat3, x: &[f64; 3]) -> [f64; 3] {
    let y = m * Vec3::new(x[0], x[1], x[2]);
    [y.x, y.y, y.z]
}

fn norm2(x: &[[f64; 3]]) -> f64 {
    x.iter().flatten().map(|v| v * v).sum()
}

/// Merit `½·|Φ|²` of impulses `p` with velocities `v`.
fn merit(rows: &[Row], r: &[f64], p: &[[f64; 3]], v: &[[f64; 3]]) -> f64 {
    let mut sum = 0.0;
    for (i, row) in rows.iter().enumerate() {
        let l = local(p[i], v[i], r[i], row.floor, row.mu, false);
        sum += l.phi.iter().map(|x| x * x).sum::<f64>();
    }
    0.5 * sum
}

/// Largest condition violation [m/s] of impulses `p` projected onto their bounds, with
/// velocities `v` (`impulse/direct.rs`'s rule; the caller checks the projected impulses in
/// the real velocities).
fn largest_violation(rows: &[Row], p: &[[f64; 3]], v: &[[f64; 3]]) -> f64 {
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let (pn, pt) = projected(row, p[i]);
            violation([pn, pt[0], pt[1]], v[i], row.floor, row.mu)
        })
        .fold(0.0, f64::max)
}

/// Backtracking search along `d` (velocity change `wd = W·d`) from `θ₀` for
/// `θ(α) ≤ θ₀ − ARMIJO·α·slope` (`slope` > 0 the merit's decrease rate); the accepted
/// step length and merit, `None` if no step decreases the merit enough.
fn search(
    rows: &[Row],
    r: &[f64],
    (p, v): (&[[f64; 3]], &[[f64; 3]]),
    (d, wd): (&[[f64; 3]], &[[f64; 3]]),
    (theta0, slope, first): (f64, f64, f64),
) -> Option<(f64, f64)> {
    let mut alpha = first;
    let mut pt = p.to_vec();
    let mut vt = v.to_vec();
    for _ in 0..HALVINGS {
        for i in 0..p.len() {
            for k in 0..3 {
                pt[i][k] = p[i][k] + alpha * d[i][k];
                vt[i][k] = v[i][k] + alpha * wd[i][k];
            }
        }
        let theta = merit(rows, r, &pt, &vt);
        if theta <= theta0 - ARMIJO * alpha * slope && theta < theta0 {
            return Some((alpha, theta));
        }
        alpha *= 0.5;
    }
    None
}

impl Direct {
    /// Semismooth Newton solve of `rows` from their current impulses and the velocities of
    /// `state` (module docs). Returns whether the impulses it reached meet every condition
    /// to `tol_v` [m/s] (before the caller's projection and check in the real velocities);
    /// either way `self.p` and `self.v` hold the last iterate. `false` also where a
    /// factorisation fails.
    pub(super) fn newton(&mut self, rows: &[Row], state: &Velocities, tol_v: f64) -> bool {
        let m = rows.len();
        self.v0.clear();
        self.p0.clear();
        for row in rows {
            self.v0.push(relative(row, state));
            self.p0.push([row.pn, row.pt[0], row.pt[1]]);
        }
        self.p.clear();
        self.p.extend_from_slice(&self.p0);
        self.v.clear();
        self.v.extend_from_slice(&self.v0);
        let r: Vec<f64> = rows.iter().map(Row::effective_mass).collect();
        if !r.iter().all(|x| x.is_finite() && *x > 0.0) {
            return false;
        }
        let diagonal = r.iter().map(|x| 1.0 / x).fold(0.0, f64::max);
        let eps_min = COMPLIANCE * diagonal;
        // Damping (Levenberg–Marquardt style): the compliance of the step's system, raised
        // where a step had to be cut short, lowered after a full step.
        let mut eps = DAMPING_START * diagonal;
        let weight = [1.0, TANGENT_WEIGHT, TANGENT_WEIGHT];
        let bodies = state.inv_mass.len();
        let mut du = Vec::new();
        let mut stalled = 0;
        for _ in 0..MAX_STEPS {
            let (p, v) = (self.p.clone(), self.v.clone());
            if largest_violation(rows, &p, &v) <= tol_v {
                return true;
            }
            let locals: Vec<Local> = (0..m)
                .map(|i| local(p[i], v[i], r[i], rows[i].floor, rows[i].mu, true))
                .collect();
            let theta0 = 0.5
                * locals
                    .iter()
                    .flat_map(|l| l.phi)
                    .map(|x| x * x)
                    .sum::<f64>();
            if !theta0.is_finite() {
                return false;
            }
            // A' = A + ε·B·D, its inverse and ε·A'⁻¹·B per point.
            let mut inv = Vec::with_capacity(m);
            let mut coupling = Vec::with_capacity(m);
            for l in &locals {
                let reg = l.a + l.b * Mat3::from_diagonal(&Vec3::from(weight)) * eps;
                let Some(ri) = reg.try_inverse() else {
                    return false;
                };
                inv.push(ri);
                coupling.push(ri * l.b * eps);
            }
            // Body-space blocks ε·M + Σ Gᵀ·(ε·A'⁻¹B)·G.
            self.lu.reset(bodies);
            for k in 0..bodies {
                let Some(inertia) = state.inv_inertia[k].try_inverse() else {
                    return false;
                };
                let mut block = Block::zeros();
                let mass = Mat3::identity() / state.inv_mass[k];
                block.fixed_view_mut::<3, 3>(0, 0).copy_from(&(mass * eps));
                block
                    .fixed_view_mut::<3, 3>(3, 3)
                    .copy_from(&(inertia * eps));
                self.lu.add(k as u32, k as u32, &block);
            }
            let gens: Vec<[[Six; 3]; 2]> = rows
                .iter()
                .map(|row| {
                    let e = basis(row);
                    ends(row).map(|(_, arm, s)| e.map(|f| generalised(&f, &arm, s)))
                })
                .collect();
            for (i, row) in rows.iter().enumerate() {
                let row_ends = ends(row);
                for (ea, (alpha, _, _)) in row_ends.iter().enumerate() {
                    let Some(alpha) = alpha else { continue };
                    for (eb, (beta, _, _)) in row_ends.iter().enumerate() {
                        let Some(beta) = beta else { continue };
                        let mut block = Block::zeros();
                        for k in 0..3 {
                            for l in 0..3 {
                                let c = coupling[i][(k, l)];
                                if c != 0.0 {
                                    block += gens[i][ea][k] * (gens[i][eb][l].transpose() * c);
                                }
                            }
                        }
                        self.lu.add(*alpha, *beta, &block);
                    }
                }
            }
            if !self.lu.factor() {
                return false;
            }
            // Newton step J·d = −Φ, refined against the exact J.
            let target: Vec<[f64; 3]> = locals.iter().map(|l| l.phi.map(|x| -x)).collect();
            let mut d = vec![[0.0; 3]; m];
            let mut residual = target.clone();
            let goal = FORCING * FORCING * norm2(&target);
            let refinements = if eps <= eps_min { MAX_REFINEMENTS } else { 1 };
            for _ in 0..refinements {
                // Correction c = J'⁻¹·residual in body space.
                let scaled: Vec<[f64; 3]> = (0..m)
                    .map(|i| mat_vec(&(inv[i] * eps), &residual[i]))
                    .collect();
                self.z.clear();
                self.z.resize(bodies, Six::zeros());
                for (i, row) in rows.iter().enumerate() {
                    for (e, (body, _, _)) in ends(row).iter().enumerate() {
                        if let Some(k) = body {
                            for l in 0..3 {
                                self.z[*k as usize] += gens[i][e][l] * scaled[i][l];
                            }
                        }
                    }
                }
                self.lu.solve(&mut self.z);
                for i in 0..m {
                    let mut gz = [0.0; 3];
                    for (e, (body, _, _)) in ends(&rows[i]).iter().enumerate() {
                        if let Some(k) = body {
                            for (l, g) in gz.iter_mut().enumerate() {
                                *g += gens[i][e][l].dot(&self.z[*k as usize]);
                            }
                        }
                    }
                    let bgz = mat_vec(&locals[i].b, &gz);
                    let rhs = [0, 1, 2].map(|k| residual[i][k] - bgz[k]);
                    let c = mat_vec(&inv[i], &rhs);
                    for k in 0..3 {
                        d[i][k] += c[k];
                    }
                }
                let wd = w_times(rows, state, &d, &mut du);
                for i in 0..m {
                    let jd = mat_vec(&locals[i].a, &d[i]);
                    let bwd = mat_vec(&locals[i].b, &wd[i]);
                    residual[i] = [0, 1, 2].map(|k| target[i][k] - jd[k] - bwd[k]);
                }
                if norm2(&residual) <= goal {
                    break;
                }
            }
            if !d.iter().flatten().all(|x| x.is_finite()) {
                return false;
            }
            let wd = w_times(rows, state, &d, &mut du);
            // The merit's decrease rate along an exact Newton step is 2θ; the refined step's
            // is used as is (the search checks the real merit).
            let mut next = search(rows, &r, (&p, &v), (&d, &wd), (theta0, 2.0 * theta0, 1.0))
                .map(|(alpha, theta)| (alpha, theta, d.clone(), wd.clone()));
            if next.is_none() {
                // Steepest descent −Jᵀ·Φ = −(Aᵀ·Φ + W·Bᵀ·Φ), Cauchy length |g|²/|J·g|².
                let bt: Vec<[f64; 3]> = locals
                    .iter()
                    .map(|l| mat_vec(&l.b.transpose(), &l.phi))
                    .collect();
                let wbt = w_times(rows, state, &bt, &mut du);
                let g: Vec<[f64; 3]> = (0..m)
                    .map(|i| {
                        let at = mat_vec(&locals[i].a.transpose(), &locals[i].phi);
                        [0, 1, 2].map(|k| -(at[k] + wbt[i][k]))
                    })
                    .collect();
                let wg = w_times(rows, state, &g, &mut du);
                let jg: Vec<[f64; 3]> = (0..m)
                    .map(|i| {
                        let ag = mat_vec(&locals[i].a, &g[i]);
                        let bwg = mat_vec(&locals[i].b, &wg[i]);
                        [0, 1, 2].map(|k| ag[k] + bwg[k])
                    })
                    .collect();
                let (gg, jj) = (norm2(&g), norm2(&jg));
                if gg > 0.0 && jj > 0.0 {
                    next = search(rows, &r, (&p, &v), (&g, &wg), (theta0, gg, gg / jj))
                        .map(|(alpha, theta)| (alpha, theta, g, wg));
                }
            }
            let Some((alpha, theta, step, wstep)) = next else {
                if eps < DAMPING_MAX * diagonal {
                    eps = (eps * 10.0).min(DAMPING_MAX * diagonal);
                    continue;
                }
                self.stalled = true;
                return false;
            };
            if alpha >= 1.0 {
                eps = (eps * 0.1).max(eps_min);
            } else if alpha < 0.1 {
                eps = (eps * 10.0).min(DAMPING_MAX * diagonal);
            }
            for i in 0..m {
                for k in 0..3 {
                    self.p[i][k] = p[i][k] + alpha * step[i][k];
                    self.v[i][k] = v[i][k] + alpha * wstep[i][k];
                }
            }
            // Velocities afresh from the impulses (no drift of the incremental update).
            self.body_velocities(rows, state);
            if theta > STALL_FACTOR * theta0 {
                stalled += 1;
                if stalled >= STALL_STEPS {
                    self.stalled = true;
                    break;
                }
            } else {
                stalled = 0;
            }
        }
        largest_violation(rows, &self.p, &self.v) <= tol_v
    }
}
