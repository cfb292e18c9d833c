//! Fallback of the collision solve (issue 12): the convex relaxation of the Coulomb impulse
//! problem (Anitescu's cone complementarity, the form of Project Chrono's solvers), solved
//! by an accelerated projected gradient method with adaptive step size and restart (APGD,
//! after Mazhar, Heyn, Negrut and Tasora 2015), for the clusters that neither the Picard
//! sweeps (seed 004 §6) nor the direct solves (`impulse/direct.rs`) settle.
//!
//! With the impulses `P` of the cluster's contact points (local bases n, t1, t2), their
//! relative velocities are affine, `v(P) = v₀ + W·(P − P₀)` (`W` the Delassus operator,
//! symmetric positive semidefinite; `P₀`, `v₀` the start). The relaxation minimises the
//! kinetic energy of the outgoing motion,
//! `f(P) = ½·(P − P₀)ᵀ·W·(P − P₀) + v₀ᵀ·(P − P₀) = ½·(P − P₀)ᵀ·(v₀ + v(P))`,
//! over the convex set `C = Π Cᵢ`, `Cᵢ = {P_n ≥ floor, |P_t| ≤ μ·P_n}` (the Coulomb cone,
//! cut at the restitution floor). `∇f = v(P)`, so its optimality conditions
//! `−vᵢ ∈ N_{Cᵢ}(Pᵢ)` read, per point: `v_n ≥ 0` and `v_n·(P_n − floor) = 0` where the
//! friction is inside its disc (there `v_t = 0`: sticking); on the rim `|P_t| = μ·P_n`,
//! `v_t` opposed to `P_t` (Coulomb's maximal dissipation) and, where `P_n > floor`,
//! `v_n = μ·|v_t|`. That last equation is the only difference from the exact conditions
//! (`v_n = 0`): a sliding point separates at `μ` times its slip speed (Anitescu's
//! relaxation). The problem is a convex program over a closed convex set with a Lipschitz
//! gradient, so the projected gradient method converges to a minimiser from any start, and
//! every minimiser gives the same velocities where `W` is definite on the differences.
//! Sticking, non-penetration, the restitution floor and the friction cone hold exactly;
//! the remaining complementarity residual (`μ·|v_t|` on sliding points) is measured per
//! collision ([`crate::integrator::lts::impulse::ImpulseReport::complementarity`]).
//!
//! The iteration is preconditioned per point by its effective mass `sᵢ = 1/(n·Kᵢ·n)` (a
//! scalar per 3-block: the projection in the metric `S⁻¹` stays the Euclidean projection
//! onto each `Cᵢ`), `x ← proj_C(y − (1/L)·S·v(y))` with Nesterov's extrapolation
//! `y = x + β·(x − x_prev)`; `L` is raised until `f` lies below its quadratic model
//! (`f(x) ≤ f(y) + v(y)·(x − y) + L/2·|x − y|²_{S⁻¹}`, backtracking) and lowered by 10 %
//! after every step; the extrapolation restarts where the step goes against the gradient
//! (`v(y)·(x − x_prev) > 0`, O'Donoghue and Candès). It stops when the natural residual
//! `max_i |Pᵢ − proj_{Cᵢ}(Pᵢ − sᵢ·vᵢ)|/sᵢ` [m/s] (zero exactly at a minimiser) is below
//! the velocity tolerance, and keeps the iterate of least residual. Each step costs two
//! products with `W`, through the bodies' velocity changes (`O(points)`); sequential, so the
//! result is the same at any thread count.

use super::row::Row;
use super::sweep::Velocities;
use msdem_geom::math::Vec3;

/// Growth of `L` per failed backtracking test, and its decay after each step.
const GROW: f64 = 2.0;
const DECAY: f64 = 0.9;
/// Most backtracking doublings per step.
const BACKTRACKS: u32 = 40;

/// What one fallback solve achieved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RelaxedOutcome {
    /// The natural residual reached the velocity tolerance.
    pub converged: bool,
    /// Gradient steps taken.
    pub iterations: u32,
    /// Natural residual of the kept iterate [m/s].
    pub residual: f64,
}

/// Reusable buffers of the fallback.
#[derive(Debug, Default)]
pub struct Relaxed {
    p0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    /// Iterate, previous iterate, extrapolated point, trial and the best iterate, with
    /// their velocities.
    x: Vec<[f64; 3]>,
    vx: Vec<[f64; 3]>,
    y: Vec<[f64; 3]>,
    vy: Vec<[f64; 3]>,
    trial: Vec<[f64; 3]>,
    vtrial: Vec<[f64; 3]>,
    best: Vec<[f64; 3]>,
    /// Preconditioner: effective mass per point \[kg\].
    s: Vec<f64>,
    /// Bodies' velocity changes (linear, angular).
    du: Vec<[Vec3; 2]>,
}

/// Projection of `q` (local n, t1, t2) onto `{P_n ≥ floor, |P_t| ≤ μ·P_n}` (`floor ≥ 0`):
/// onto the cone first; if that lies below the floor, the projection lies on the plane
/// `P_n = floor` (a projection onto the intersection of a convex set and a half-space that
/// leaves the half-space lies on its boundary), where it is the radial clamp of `q_t` onto
/// the disc of radius `μ·floor`.
pub(super) fn project(q: [f64; 3], floor: f64, mu: f64) -> [f64; 3] {
    let [qn, q1, q2] = q;
    let t = (q1 * q1 + q2 * q2).sqrt();
    let cone = if t <= mu * qn {
        q
    } else if mu * t <= -qn || mu <= 0.0 {
        // Inside the polar cone (or frictionless: the normal axis).
        if mu <= 0.0 {
            [qn.max(0.0), 0.0, 0.0]
        } else {
            [0.0; 3]
        }
    } else {
        let pn = (qn + mu * t) / (1.0 + mu * mu);
        let scale = mu * pn / t;
        [pn, q1 * scale, q2 * scale]
    };
    if cone[0] >= floor {
        return cone;
    }
    let radius = mu * floor;
    let scale = if t > radius { radius / t } else { 1.0 };
    [floor, q1 * scale, q2 * scale]
}

/// Local basis (n, t1, t2) of a row.
fn basis(row: &Row) -> [Vec3; 3] {
    [row.n, row.t1, row.t2]
}

impl Relaxed {
    /// Velocities `out` of the impulses `p`: `v₀ + W·(p − P₀)`, through the bodies.
    fn velocities(
        du: &mut Vec<[Vec3; 2]>,
        rows: &[Row],
        state: &Velocities,
        (p0, v0): (&[[f64; 3]], &[[f64; 3]]),
        p: &[[f64; 3]],
        out: &mut [[f64; 3]],
    ) {
        du.clear();
        du.resize(state.inv_mass.len(), [Vec3::zeros(); 2]);
        for (i, row) in rows.iter().enumerate() {
            let d = [0, 1, 2].map(|k| p[i][k] - p0[i][k]);
            if d == [0.0; 3] {
                continue;
            }
            let [n, t1, t2] = basis(row);
            let w = n * d[0] + t1 * d[1] + t2 * d[2];
            let a = row.a as usize;
            du[a][0] += w * state.inv_mass[a];
            du[a][1] += state.inv_inertia[a] * row.ra.cross(&w);
            if let Some(b) = row.b {
                let b = b as usize;
                du[b][0] -= w * state.inv_mass[b];
                du[b][1] -= state.inv_inertia[b] * row.rb.cross(&w);
            }
        }
        for (i, row) in rows.iter().enumerate() {
            let a = &du[row.a as usize];
            let mut change = a[0] + a[1].cross(&row.ra);
            if let Some(b) = row.b {
                let b = &du[b as usize];
                change -= b[0] + b[1].cross(&row.rb);
            }
            let e = basis(row);
            out[i] = [0, 1, 2].map(|k| v0[i][k] + e[k].dot(&change));
        }
    }

    /// Natural residual `max_i |Pᵢ − proj(Pᵢ − sᵢ·vᵢ)|/sᵢ` [m/s].
    fn residual(rows: &[Row], s: &[f64], p: &[[f64; 3]], v: &[[f64; 3]]) -> f64 {
        let mut worst = 0.0_f64;
        for (i, row) in rows.iter().enumerate() {
            let q = [0, 1, 2].map(|k| p[i][k] - s[i] * v[i][k]);
            let r = project(q, row.floor, row.mu);
            let d = [0, 1, 2].map(|k| p[i][k] - r[k]);
            worst = worst.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() / s[i]);
        }
        worst
    }

    /// `f(p) − f(P₀) = ½·(p − P₀)·(v₀ + v(p))` [J].
    fn energy(p0: &[[f64; 3]], v0: &[[f64; 3]], p: &[[f64; 3]], v: &[[f64; 3]]) -> f64 {
        let mut sum = 0.0;
        for i in 0..p.len() {
            for k in 0..3 {
                sum += (p[i][k] - p0[i][k]) * (v0[i][k] + v[i][k]);
            }
        }
        0.5 * sum
    }

    /// Solves the relaxed problem of `rows` from their current impulses (projected onto
    /// `C`) and the velocities of `state`, at most `max_iterations` steps, to the natural
    /// residual `tol_v` [m/s] (module docs). The rows receive the iterate of least
    /// residual (always inside `C`), `state` its velocities. `shift` (one per row, or
    /// empty for none) adds `shiftᵢ·(P_n − P₀_n)` to `f`: the normal velocity of point `i`
    /// is measured as `v_n + shiftᵢ` (the de Saxcé shift of `impulse/coulomb.rs`; the
    /// natural residual too); `state` receives the real velocities.
    pub fn solve(
        &mut self,
        rows: &mut [Row],
        state: &mut Velocities,
        tol_v: f64,
        max_iterations: u32,
        shift: &[f64],
    ) -> RelaxedOutcome {
        let m = rows.len();
        let mut outcome = RelaxedOutcome::default();
        if m == 0 {
            outcome.converged = true;
            return outcome;
        }
        self.p0.clear();
        self.v0.clear();
        self.s.clear();
        for (i, row) in rows.iter().enumerate() {
            let v =
                state.point_velocity(Some(row.a), &row.ra) - state.point_velocity(row.b, &row.rb);
            let mut local = basis(row).map(|e| e.dot(&v));
            local[0] += shift.get(i).copied().unwrap_or(0.0);
            self.v0.push(local);
            self.p0.push([row.pn, row.pt[0], row.pt[1]]);
            let s = row.effective_mass();
            self.s.push(if s.is_finite() && s > 0.0 { s } else { 0.0 });
        }
        if self.s.iter().any(|&s| s <= 0.0) {
            return RelaxedOutcome {
                residual: f64::INFINITY,
                ..outcome
            };
        }
        let start = (&self.p0[..], &self.v0[..]);
        self.x.clear();
        self.x.extend(
            rows.iter()
                .zip(&self.p0)
                .map(|(row, p)| project(*p, row.floor, row.mu)),
        );
        self.vx.clear();
        self.vx.resize(m, [0.0; 3]);
        Self::velocities(&mut self.du, rows, state, start, &self.x, &mut self.vx);
        self.y.clone_from(&self.x);
        self.vy.clone_from(&self.vx);
        self.trial.clone_from(&self.x);
        self.vtrial.clone_from(&self.vx);
        self.best.clone_from(&self.x);
        let mut best = Self::residual(rows, &self.s, &self.x, &self.vx);
        let mut theta = 1.0_f64;
        let mut lipschitz = 1.0_f64;
        while best > tol_v && outcome.iterations < max_iterations && best.is_finite() {
            outcome.iterations += 1;
            let fy = Self::energy(&self.p0, &self.v0, &self.y, &self.vy);
            let mut accepted = false;
            for _ in 0..BACKTRACKS {
                let step = 1.0 / lipschitz;
                for (i, row) in rows.iter().enumerate() {
                    let q = [0, 1, 2].map(|k| self.y[i][k] - step * self.s[i] * self.vy[i][k]);
                    self.trial[i] = project(q, row.floor, row.mu);
                }
                Self::velocities(
                    &mut self.du,
                    rows,
                    state,
                    start,
                    &self.trial,
                    &mut self.vtrial,
                );
                let ft = Self::energy(&self.p0, &self.v0, &self.trial, &self.vtrial);
                let mut model = fy;
                for i in 0..m {
                    let mut sq = 0.0;
                    for k in 0..3 {
                        let d = self.trial[i][k] - self.y[i][k];
                        model += self.vy[i][k] * d;
                        sq += d * d;
                    }
                    model += 0.5 * lipschitz * sq / self.s[i];
                }
                // Relative slack: rounding of f at the size of its terms.
                let slack = 1e-12 * (fy.abs() + ft.abs());
                if ft <= model + slack {
                    accepted = true;
                    break;
                }
                lipschitz *= GROW;
            }
            if !accepted {
                break;
            }
            let residual = Self::residual(rows, &self.s, &self.trial, &self.vtrial);
            if residual < best {
                best = residual;
                self.best.clone_from(&self.trial);
            }
            let next = 0.5 * theta * ((theta * theta + 4.0).sqrt() - theta);
            let mut beta = theta * (1.0 - theta) / (theta * theta + next);
            theta = next;
            // Restart where the step goes against the gradient at y.
            let mut against = 0.0;
            for i in 0..m {
                for k in 0..3 {
                    against += self.vy[i][k] * (self.trial[i][k] - self.x[i][k]);
                }
            }
            if against > 0.0 {
                beta = 0.0;
                theta = 1.0;
            }
            for i in 0..m {
                for k in 0..3 {
                    let (xn, vn) = (self.trial[i][k], self.vtrial[i][k]);
                    self.y[i][k] = xn + beta * (xn - self.x[i][k]);
                    self.vy[i][k] = vn + beta * (vn - self.vx[i][k]);
                }
            }
            std::mem::swap(&mut self.x, &mut self.trial);
            std::mem::swap(&mut self.vx, &mut self.vtrial);
            lipschitz *= DECAY;
        }
        outcome.residual = best;
        outcome.converged = best <= tol_v;
        for (row, p) in rows.iter_mut().zip(&self.best) {
            row.accept(p[0], [p[1], p[2]]);
            row.apply(state);
        }
        outcome
    }
}
