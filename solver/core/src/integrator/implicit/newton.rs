//! Linearly implicit (semi-smooth Newton) update of the Picard wrench with the normal
//! contact Jacobian ([`crate::params::PicardAcceleration::Newton`]).
//!
//! One implicit step solves `G(W) = F(state(W)) − W = 0` for the wrench `W` (force and
//! torque) that moves every particle (seed 000 §2; Alg. 3 iterates `W ← F`). Under the
//! θ-method of [`super::scheme`] a change `ΔW_a` of particle `a`'s wrench changes its end
//! velocities by `θ·Δt·q_a` and its end pose by `θ²·Δt²·q_a`, with the generalised
//! accelerations `q_a = (ΔF_a/M_a, I_a⁻¹·Δτ_a)` (world-frame inertia at the guess). A
//! contact `c` of `a` and `b` at the point `x` with unit normal `n` (from `b` to `a`),
//! spring stiffness `k_c` and dashpot `c_c` moves apart along `n` at the rate
//! `J_a·q_a − J_b·q_b` with the rows `J_a = (n, (x − x_a) × n)`, so its wrench on `a`
//! changes by `−s_c·J_a·(J_a·q_a − J_b·q_b)` with
//!
//! `s_c = θ²·Δt²·k_c + θ·Δt·c_c` \[kg\].
//!
//! Newton's step `(I − ∂F/∂W)·ΔW = r` for the residual `r = F − W` is then the symmetric
//! positive definite system
//!
//! `𝓜_a·q_a + Σ_{c ∋ a} s_c·J_a·(J_a·q_a − J_b·q_b) = r_a`  (`q_b = 0` for an obstacle)
//!
//! with `𝓜 = diag(M·I, I_w)`: a mass matrix plus the weighted Laplacian of the contact
//! graph. It is solved by conjugate gradients preconditioned with the 6×6 diagonal blocks,
//! all sums in a fixed order (contacts in their detection order, particles in id order),
//! so the result is the same at any thread count; `ΔW_a = 𝓜_a·q_a`. Its stiffness grows
//! with `Δt²·k/M`, exactly where the relaxed fixed point `W ← W + ω·r` stops contracting:
//! with the Jacobian the iterations no longer grow with the time step.
//!
//! The Jacobian is semi-smooth: contacts without a normal force at the current guess (a
//! halo not overlapped, a dashpot clamping the force to 0) contribute nothing; a dashpot
//! at its cap `β·k·δ` contributes the spring `(1 + β)·k` and no damping. Friction is not
//! linearised: its regularisation already bounds its Picard contraction by ½ (see
//! [`crate::contact::force`]).

use super::scheme::Implicitness;
use crate::contact::force::{pair_damping, point_velocity};
use crate::contact::pair::{PairParams, DAMPING_CAP};
use crate::contact::Contact;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::{Mat3, Vec3};
use nalgebra::{Matrix6, Vector6};

/// Generalised 6-vector: force/linear part first, torque/angular part second.
pub type Vec6 = Vector6<f64>;
pub(super) type Mat6 = Matrix6<f64>;

/// The 6-vector `(a, b)`.
pub(super) fn join(a: &Vec3, b: &Vec3) -> Vec6 {
    Vec6::new(a.x, a.y, a.z, b.x, b.y, b.z)
}

/// Relative residual of the conjugate gradients at which the linear solve stops [-]: the
/// Newton step needs no more accuracy than the Picard tolerance it serves.
const CG_TOLERANCE: f64 = 1e-6;
/// Most conjugate-gradient iterations per Newton step.
const CG_MAX_ITERATIONS: usize = 200;

/// One contact row of the Jacobian: `s·J_a·J_aᵀ` … between particle `a` and particle `b`
/// (or an obstacle, `b = None`).
#[derive(Clone, Debug)]
struct Block {
    a: usize,
    b: Option<usize>,
    ja: Vec6,
    jb: Vec6,
    s: f64,
}

/// The assembled normal contact Jacobian of one guess and the scratch of its solver.
#[derive(Clone, Debug, Default)]
pub struct ContactJacobian {
    blocks: Vec<Block>,
    terms: Vec<Term>,
    /// Per particle: `𝓜 + Σ s·J·Jᵀ` (the 6×6 diagonal block) and its inverse.
    diagonal: Vec<Mat6>,
    inverse: Vec<Mat6>,
    /// Per particle: the generalised mass `𝓜 = diag(M·I, I_w)`, its inverse, and whether
    /// a contact row reached its diagonal block.
    mass: Vec<Mat6>,
    mass_inverse: Vec<Mat6>,
    touched: Vec<bool>,
    /// CG vectors.
    x: Vec<Vec6>,
    r: Vec<Vec6>,
    z: Vec<Vec6>,
    p: Vec<Vec6>,
    q: Vec<Vec6>,
}

/// Effective normal stiffness `k_c` \[N/m\] and damping `c_c` \[N·s/m\] of each contact of
/// one body pair at the current guess (see the module docs; `s_c = θ²Δt²·k_c + θΔt·c_c`),
/// and the slopes of the linear force law `k·δ + c·δ̇` that is clamped at zero and capped
/// (the piecewise-linear update, [`super::pwl`]): `∂F_n/∂δ` \[N/m\] along a common change
/// of the overlaps and `∂F_n/∂δ̇` \[N·s/m\]. `k_c` counts the dashpot's share
/// `k·(1 + D/S)` (the force over the overlap) and is zero where the dashpot clamps the
/// force to zero; the slopes are the spring and the dashpot below the cap (also where the
/// force is clamped: they tell how far the contact is from pushing again) and
/// `(1 + β)·k` and 0 at the cap.
fn pair_coefficients(
    pp: &PairParams,
    group: &[Contact],
    rel: &dyn Fn(&Vec3) -> Vec3,
    out: &mut Vec<Coefficients>,
) {
    if let Some(hz) = &pp.hertz {
        let depth = group.iter().map(|c| c.depth).fold(0.0, f64::max);
        let k = hz.tangent_stiffness(depth.clamp(0.0, pp.margin));
        let total: f64 = group.iter().map(|c| c.weight).sum();
        for c in group {
            let share = if total > 0.0 { c.weight / total } else { 0.0 };
            out.push(Coefficients {
                stiffness: k * share,
                damping: 0.0,
                slope: k * share,
                slope_damping: 0.0,
            });
        }
        return;
    }
    let k = pp.stiffness();
    let ratio = pair_damping(pp, group, rel);
    let weight: f64 = group.iter().map(|c| c.weight).sum();
    let damping = 2.0 * pp.damping_ratio() * (k * weight * pp.effective_mass).sqrt();
    for c in group {
        let overlap = (pp.margin - c.dist).clamp(0.0, pp.margin);
        let share = if weight > 0.0 { c.weight / weight } else { 0.0 };
        let kc = if overlap <= 0.0 {
            Coefficients::default()
        } else if ratio <= -1.0 {
            // No force: the semi-smooth Jacobian is zero.
            Coefficients {
                slope: k * c.weight,
                slope_damping: damping * share,
                ..Coefficients::default()
            }
        } else if ratio >= DAMPING_CAP {
            let capped = (1.0 + DAMPING_CAP) * k * c.weight;
            Coefficients {
                stiffness: capped,
                damping: 0.0,
                slope: capped,
                slope_damping: 0.0,
            }
        } else {
            Coefficients {
                stiffness: k * c.weight * (1.0 + ratio),
                damping: damping * share,
                slope: k * c.weight,
                slope_damping: damping * share,
            }
        };
        out.push(kc);
    }
}

/// What [`pair_coefficients`] finds for one contact.
#[derive(Clone, Copy, Debug, Default)]
struct Coefficients {
    /// `k_c` \[N/m\] and `c_c` \[N·s/m\] of the Newton update.
    stiffness: f64,
    damping: f64,
    /// `∂F_n/∂δ` \[N/m\] and `∂F_n/∂δ̇` \[N·s/m\] of the linear law.
    slope: f64,
    slope_damping: f64,
}

/// One contact's linearisation: normal, effective stiffness and damping, and the normal
/// component of the relative velocity `v_a(x) − v_b(x)` at the guess.
#[derive(Clone, Debug)]
struct Term {
    a: usize,
    b: Option<usize>,
    normal: Vec3,
    stiffness: f64,
    damping: f64,
    approach: f64,
}

/// One contact with a normal force at a guess, linearised (see the module docs).
#[derive(Clone, Debug)]
pub(super) struct Row {
    /// The particle `a` and the other particle (`None`: an obstacle).
    pub a: usize,
    pub b: Option<usize>,
    /// Jacobian rows `(n, (x − x_a) × n)` of `a` and of `b` (zero for an obstacle).
    pub ja: Vec6,
    pub jb: Vec6,
    /// Unit normal from `b` towards `a`.
    pub normal: Vec3,
    /// Effective normal stiffness `k_c` \[N/m\] and damping `c_c` \[N·s/m\].
    pub stiffness: f64,
    pub damping: f64,
    /// `s_c = θ²Δt²·k_c + θΔt·c_c` \[kg\].
    pub s: f64,
    /// Normal component of the relative velocity `v_a(x) − v_b(x)` \[m/s\].
    pub approach: f64,
    /// The pair's halo margin \[m\] (the spring acts while `dist < margin`).
    pub margin: f64,
    /// `∂F_n/∂δ` \[N/m\] and `∂F_n/∂δ̇` \[N·s/m\] of the linear law (see
    /// `pair_coefficients`).
    pub slope: f64,
    pub slope_damping: f64,
    /// Index of the contact in the contacts linearised.
    pub index: usize,
}

/// Calls `f` with every fine contact of `contacts` (merged, grouped by body pair) and its
/// linearisation at the guess `bodies` for the time step `dt` \[s\] and implicitness
/// `im` (contacts of unknown bodies are skipped; a contact whose force the dashpot
/// clamps to zero comes with `s = 0` and the slopes of its linear law).
pub(super) fn linearise(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    dt: f64,
    im: Implicitness,
    mut f: impl FnMut(&Contact, Row),
) {
    let n = bodies.len();
    let mut coefficients = Vec::new();
    let (pos, vel) = (im.position * dt * dt, im.velocity * dt);
    for run in crate::contact::pair_runs(contacts) {
        let first = run.start;
        let group = &contacts[run];
        let (a, b) = (group[0].a, group[0].b);
        if a as usize >= n {
            continue;
        }
        let other = match b {
            Other::Particle(j) if (j as usize) < n => Some(j as usize),
            Other::Particle(_) => continue,
            Other::Obstacle(_) => None,
        };
        let pp = PairParams::of(model, bodies, a, b);
        let ba = &bodies[a as usize];
        let rel = |x: &Vec3| {
            let mut v = point_velocity(ba, x);
            if let Some(j) = other {
                v -= point_velocity(&bodies[j], x);
            }
            v
        };
        coefficients.clear();
        pair_coefficients(&pp, group, &rel, &mut coefficients);
        for (i, (c, co)) in group.iter().zip(&coefficients).enumerate() {
            let (k, d) = (co.stiffness, co.damping);
            let s = pos * k + vel * d;
            let linear = pos * co.slope + vel * co.slope_damping;
            if !((s.is_finite() && s > 0.0) || (linear.is_finite() && linear > 0.0)) {
                continue;
            }
            let ja = join(&c.normal, &(c.point - ba.position).cross(&c.normal));
            let jb = match other {
                Some(j) => join(&c.normal, &(c.point - bodies[j].position).cross(&c.normal)),
                None => Vec6::zeros(),
            };
            f(
                c,
                Row {
                    a: a as usize,
                    b: other,
                    ja,
                    jb,
                    normal: c.normal,
                    stiffness: k,
                    damping: d,
                    s,
                    approach: rel(&c.point).dot(&c.normal),
                    margin: pp.margin,
                    slope: co.slope,
                    slope_damping: co.slope_damping,
                    index: first + i,
                },
            );
        }
    }
}

impl ContactJacobian {
    /// Assembles the Jacobian of the fine `contacts` at the guess `bodies` for the time
    /// step `dt` \[s\] and implicitness `im` (see the module docs).
    pub fn assemble(
        &mut self,
        model: &Model,
        bodies: &[Body],
        contacts: &[Contact],
        dt: f64,
        im: Implicitness,
    ) {
        self.begin(bodies);
        let mut rows = Vec::new();
        linearise(model, bodies, contacts, dt, im, |_, row| rows.push(row));
        for row in rows {
            if !(row.s.is_finite() && row.s > 0.0) {
                // No force at this guess: the semi-smooth Jacobian is zero.
                continue;
            }
            self.push(row.a, row.b, row.ja, row.jb, row.s);
            self.terms.push(Term {
                a: row.a,
                b: row.b,
                normal: row.normal,
                stiffness: row.stiffness,
                damping: row.damping,
                approach: row.approach,
            });
        }
        self.finish();
    }

    /// Starts a system over `bodies`: their generalised masses `𝓜 = diag(M·I, I_w)`
    /// (world-frame inertia at these poses) and no contact rows.
    pub(super) fn begin(&mut self, bodies: &[Body]) {
        self.blocks.clear();
        self.terms.clear();
        self.mass.clear();
        self.mass.extend(bodies.iter().map(|b| {
            let r = b.orientation.to_rotation_matrix();
            let inertia = r.matrix() * b.inertia * r.matrix().transpose();
            let mut m = Mat6::zeros();
            m.fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(Mat3::identity() * b.mass));
            m.fixed_view_mut::<3, 3>(3, 3).copy_from(&inertia);
            m
        }));
        self.diagonal.clone_from(&self.mass);
        self.mass_inverse.clear();
        self.mass_inverse.extend(bodies.iter().map(|b| {
            let r = b.orientation.to_rotation_matrix();
            let inverse = r.matrix() * b.inv_inertia * r.matrix().transpose();
            let mut m = Mat6::zeros();
            m.fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(Mat3::identity() / b.mass));
            m.fixed_view_mut::<3, 3>(3, 3).copy_from(&inverse);
            m
        }));
        self.touched.clear();
        self.touched.resize(bodies.len(), false);
    }

    /// Drops the contact rows, keeping the masses of [`ContactJacobian::begin`].
    pub(super) fn clear_rows(&mut self) {
        self.blocks.clear();
        self.terms.clear();
        for (i, t) in self.touched.iter_mut().enumerate() {
            if *t {
                self.diagonal[i] = self.mass[i];
                *t = false;
            }
        }
    }

    /// Adds the row `s·J·Jᵀ` of a contact between particle `a` (row `ja`) and particle `b`
    /// (row `jb`; `None`: an obstacle) with the weight `s` \[kg\] (ignored unless finite
    /// and positive, or when an index is out of range).
    pub(super) fn push(&mut self, a: usize, b: Option<usize>, ja: Vec6, jb: Vec6, s: f64) {
        let n = self.mass.len();
        if !(s.is_finite() && s > 0.0) || a >= n || b.is_some_and(|j| j >= n) {
            return;
        }
        self.diagonal[a] += s * ja * ja.transpose();
        if let Some(t) = self.touched.get_mut(a) {
            *t = true;
        }
        if let Some(j) = b {
            self.diagonal[j] += s * jb * jb.transpose();
            if let Some(t) = self.touched.get_mut(j) {
                *t = true;
            }
        }
        self.blocks.push(Block { a, b, ja, jb, s });
    }

    /// [`ContactJacobian::finish`] that inverts only the blocks a row reached (the others
    /// take the inverse mass of [`ContactJacobian::begin`]).
    pub(super) fn finish_touched(&mut self) {
        self.inverse.clear();
        for (i, (d, &t)) in self.diagonal.iter().zip(&self.touched).enumerate() {
            let inverse = if t { d.try_inverse() } else { None };
            self.inverse.push(inverse.unwrap_or(self.mass_inverse[i]));
        }
    }

    /// Inverts the 6×6 diagonal blocks (the preconditioner) after the rows are pushed.
    pub(super) fn finish(&mut self) {
        self.inverse.clear();
        self.inverse
            .extend(self.diagonal.iter().zip(&self.mass).map(|(d, m)| {
                d.try_inverse()
                    .or_else(|| m.try_inverse())
                    .unwrap_or_else(Mat6::zeros)
            }));
    }

    /// Per particle: the generalised mass `𝓜` of [`ContactJacobian::begin`].
    pub(super) fn masses(&self) -> &[Mat6] {
        &self.mass
    }

    /// Per particle: the generalised accelerations `q` of the last
    /// [`ContactJacobian::solve`].
    pub(super) fn solution(&self) -> &[Vec6] {
        &self.x
    }

    /// The linearly implicit first guess of a step (a Rosenbrock-type step): the
    /// contacts linearised at the start state (assembled there by
    /// [`ContactJacobian::assemble`]) give the forces at the evaluated state as
    /// `F₀ − Σ_c s·J·(k_c·(Δx_a − Δx_b) + c_c·(Δv_a − Δv_b))·n` for the start forces `F₀`
    /// and the moves to the evaluated state `Δx = θΔt·v + θ²Δt²·(q + g)`,
    /// `Δv = θΔt·(q + g)` (θ = 1: the end of the step, ½: its midpoint). Setting them equal
    /// to `𝓜·q` gives `A·q = b` with
    /// `b = F₀ − Σ_c J·(k_c·θΔt·(v_a − v_b)·n + (θ²Δt²·k_c + θΔt·c_c)·(g_a − g_b)·n)`
    /// (`g_b = 0` for an obstacle); returns the wrenches `𝓜·q` in `wrenches`. For linear
    /// springs this is the exact implicit step; the Newton iterations correct for contacts
    /// that open, close or switch.
    #[allow(clippy::too_many_arguments)]
    pub fn predict(
        &mut self,
        start: &[Vec6],
        gravity: &Vec3,
        dt: f64,
        im: Implicitness,
        free: &[bool],
        wrenches: &mut Vec<Vec6>,
    ) -> usize {
        let mut rhs: Vec<Vec6> = start.to_vec();
        for (t, blk) in self.terms.iter().zip(&self.blocks) {
            let g_rel = if t.b.is_some() {
                0.0
            } else {
                t.normal.dot(gravity)
            };
            let push = t.stiffness * im.drift * dt * t.approach
                + (im.position * dt * dt * t.stiffness + im.velocity * dt * t.damping) * g_rel;
            rhs[t.a] -= push * blk.ja;
            if let Some(j) = t.b {
                rhs[j] += push * blk.jb;
            }
        }
        self.solve(&rhs, free, wrenches)
    }

    /// `y = A·x` (see the module docs), restricted to the `free` particles (the others
    /// are held at 0).
    fn apply(&self, x: &[Vec6], free: &[bool], y: &mut [Vec6]) {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = if free[i] {
                self.mass[i] * x[i]
            } else {
                Vec6::zeros()
            };
        }
        for blk in &self.blocks {
            let xb = blk.b.map_or(0.0, |j| blk.jb.dot(&x[j]));
            let rate = blk.s * (blk.ja.dot(&x[blk.a]) - xb);
            if free[blk.a] {
                y[blk.a] += rate * blk.ja;
            }
            if let Some(j) = blk.b {
                if free[j] {
                    y[j] -= rate * blk.jb;
                }
            }
        }
    }

    /// Solves `A·q = r` (see the module docs) for the generalised accelerations `q` of the
    /// `free` particles (the others keep `q = 0`) and returns the wrench updates `𝓜·q` in
    /// `delta`. Returns the CG iterations used.
    pub fn solve(&mut self, rhs: &[Vec6], free: &[bool], delta: &mut Vec<Vec6>) -> usize {
        let n = rhs.len();
        let zero = Vec6::zeros();
        for v in [
            &mut self.x,
            &mut self.r,
            &mut self.z,
            &mut self.p,
            &mut self.q,
        ] {
            v.clear();
            v.resize(n, zero);
        }
        let dot = |a: &[Vec6], b: &[Vec6]| a.iter().zip(b).map(|(x, y)| x.dot(y)).sum::<f64>();
        for ((r, b), &f) in self.r.iter_mut().zip(rhs).zip(free) {
            if f {
                *r = *b;
            }
        }
        let norm0 = dot(&self.r, &self.r).sqrt();
        let mut iterations = 0;
        if norm0 > 0.0 && norm0.is_finite() {
            for ((z, inv), r) in self.z.iter_mut().zip(&self.inverse).zip(&self.r) {
                *z = inv * r;
            }
            self.p.clone_from(&self.z);
            let mut rz = dot(&self.r, &self.z);
            while iterations < CG_MAX_ITERATIONS {
                iterations += 1;
                let (p, mut q) = (std::mem::take(&mut self.p), std::mem::take(&mut self.q));
                self.apply(&p, free, &mut q);
                let pq = dot(&p, &q);
                if !(pq > 0.0 && pq.is_finite()) {
                    self.p = p;
                    self.q = q;
                    break;
                }
                let alpha = rz / pq;
                for ((x, r), (pi, qi)) in self.x.iter_mut().zip(&mut self.r).zip(p.iter().zip(&q)) {
                    *x += alpha * pi;
                    *r -= alpha * qi;
                }
                self.p = p;
                self.q = q;
                if dot(&self.r, &self.r).sqrt() <= CG_TOLERANCE * norm0 {
                    break;
                }
                for (((z, inv), r), &f) in
                    self.z.iter_mut().zip(&self.inverse).zip(&self.r).zip(free)
                {
                    *z = if f { inv * r } else { zero };
                }
                let rz_new = dot(&self.r, &self.z);
                let beta = rz_new / rz;
                rz = rz_new;
                for (p, z) in self.p.iter_mut().zip(&self.z) {
                    *p = z + beta * *p;
                }
            }
        }
        delta.clear();
        delta.extend(self.x.iter().zip(&self.mass).map(|(q, m)| m * q));
        iterations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system() -> ContactJacobian {
        let row = |n: Vec3, r: Vec3| join(&n, &r.cross(&n));
        let z = Vec3::z();
        let mut j = ContactJacobian {
            mass: [1.0, 2.0, 3.0]
                .iter()
                .map(|&m| {
                    let mut d = Mat6::identity() * m;
                    d.fixed_view_mut::<3, 3>(3, 3)
                        .copy_from(&(Mat3::identity() * 0.1 * m));
                    d
                })
                .collect(),
            ..ContactJacobian::default()
        };
        j.blocks = vec![
            Block {
                a: 0,
                b: None,
                ja: row(z, Vec3::new(0.01, 0.0, -0.1)),
                jb: Vec6::zeros(),
                s: 1e4,
            },
            Block {
                a: 1,
                b: Some(0),
                ja: row(z, Vec3::new(0.0, 0.02, -0.1)),
                jb: row(z, Vec3::new(0.0, 0.02, 0.1)),
                s: 5e3,
            },
            Block {
                a: 2,
                b: Some(1),
                ja: row(Vec3::new(0.6, 0.0, 0.8), Vec3::new(-0.06, 0.0, -0.08)),
                jb: row(Vec3::new(0.6, 0.0, 0.8), Vec3::new(0.06, 0.0, 0.08)),
                s: 2e3,
            },
        ];
        j.diagonal = j.mass.clone();
        for b in j.blocks.clone() {
            j.diagonal[b.a] += b.s * b.ja * b.ja.transpose();
            if let Some(o) = b.b {
                j.diagonal[o] += b.s * b.jb * b.jb.transpose();
            }
        }
        j.inverse = j
            .diagonal
            .iter()
            .map(|d| d.try_inverse().unwrap())
            .collect();
        j
    }

    /// A chain obstacle – 0 – 1 – 2 with stiff, off-centre contacts: CG's answer
    /// satisfies the system to its tolerance (checked with the operator itself and with a
    /// dense assembly of the same matrix solved by LU); a particle held fixed gets no
    /// update.
    #[test]
    fn cg_solves_the_contact_system() {
        let mut j = system();
        let rhs = vec![
            Vec6::new(1.0, 0.0, -3.0, 0.1, 0.0, 0.0),
            Vec6::new(0.0, 2.0, 5.0, 0.0, -0.2, 0.0),
            Vec6::new(0.5, 0.0, 1.0, 0.0, 0.0, 0.3),
        ];
        let free = vec![true; 3];
        let mut delta = Vec::new();
        let it = j.solve(&rhs, &free, &mut delta);
        assert!(it <= 18, "{it} iterations");
        // Dense 18×18 assembly, solved by LU.
        let mut dense = nalgebra::DMatrix::<f64>::zeros(18, 18);
        for i in 0..3 {
            dense.view_mut((6 * i, 6 * i), (6, 6)).copy_from(&j.mass[i]);
        }
        for b in &j.blocks {
            let (a, s) = (b.a, b.s);
            let add = |m: &mut nalgebra::DMatrix<f64>, r: usize, c: usize, v: Mat6| {
                let mut view = m.view_mut((6 * r, 6 * c), (6, 6));
                view += v;
            };
            add(&mut dense, a, a, s * b.ja * b.ja.transpose());
            if let Some(o) = b.b {
                add(&mut dense, o, o, s * b.jb * b.jb.transpose());
                add(&mut dense, a, o, -s * b.ja * b.jb.transpose());
                add(&mut dense, o, a, -s * b.jb * b.ja.transpose());
            }
        }
        let mut r = nalgebra::DVector::<f64>::zeros(18);
        for (i, b) in rhs.iter().enumerate() {
            r.rows_mut(6 * i, 6).copy_from(b);
        }
        let q = dense.lu().solve(&r).unwrap();
        for (i, (d, m)) in delta.iter().zip(&j.mass).enumerate() {
            let want = m * q.rows(6 * i, 6);
            assert!(
                (d - want).norm() <= 1e-5 * (1.0 + want.norm()),
                "{i}: {d:?} vs {want:?}"
            );
        }
        // Along y nothing couples particle 1: its update there is the residual itself.
        assert!((delta[1][1] - 2.0).abs() < 1e-9);
        let free = vec![true, false, true];
        j.solve(&rhs, &free, &mut delta);
        assert_eq!(delta[1], Vec6::zeros());
    }
}
