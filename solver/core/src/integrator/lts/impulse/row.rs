//! The impulse of one contact point (seed 004 §6): its constraint, its effective mass
//! and its damped, clamped Picard update.
//!
//! With lever arms `r_a`, `r_b` from the centres of mass to the contact point, an impulse
//! `P` (on `a`, `−P` on `b`) changes the relative velocity of the two material points at
//! the contact by `K·P`, with the symmetric positive definite
//! `K = (1/M_a + 1/M_b)·1 − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×`
//! (world inverse inertias; `1/M = 0`, `I⁻¹ = 0` for an obstacle).
//! Each update first tries the whole 3×3 step `ΔP = −ω·K⁻¹·v_rel` (a sticking contact,
//! kept if it lies in the friction cone). Otherwise the normal update meets `v_n⁺ = 0` and
//! clamps the accumulated normal impulse at its floor (0 while compressing, `(1 + e)·P_c`
//! after Poisson's restitution kick); then the friction update cancels the tangential
//! relative velocity with the tangential block of `K` and clamps the accumulated friction
//! impulse to the disc `|P_t| ≤ μ·P_n`.

use super::sweep::Velocities;
use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::state::Body;
use msdem_geom::math::{Mat3, Vec3};

/// One contact point of the velocity solve.
#[derive(Clone, Debug)]
pub struct Row {
    /// First particle (cluster-local).
    pub(super) a: u32,
    /// Second particle, `None` for an obstacle.
    pub(super) b: Option<u32>,
    /// Unit normal from `b` towards `a`, and two unit tangents (right-handed basis).
    pub(super) n: Vec3,
    pub(super) t1: Vec3,
    pub(super) t2: Vec3,
    /// Lever arms from the centres of mass to the contact point \[m\].
    pub(super) ra: Vec3,
    pub(super) rb: Vec3,
    /// Relative velocity change per unit impulse [1/kg].
    k: Mat3,
    /// `K⁻¹` \[kg\].
    k_inv: Mat3,
    /// `1/(n·K·n)` \[kg\].
    kn_inv: f64,
    /// Inverse of the largest eigenvalue of the tangential 2×2 block of `K` \[kg\]: the
    /// isotropic step of the sliding update, whose radial clamp onto the disc is then the
    /// projection that leaves `v_t` opposed to `P_t` at the fixed point (Coulomb's maximal
    /// dissipation); with the anisotropic block inverse the clamped fixed point slides at
    /// an angle to the impulse.
    kt_scalar_inv: f64,
    /// Restitution coefficient of this point: the pair's `e`, or 0 for a resting contact.
    restitution: f64,
    /// Lower bound of the accumulated normal impulse: 0 while compressing, `(1 + e)·P_c`
    /// after the restitution kick [N·s].
    pub(super) floor: f64,
    /// Coulomb friction coefficient [-].
    pub(super) mu: f64,
    /// Accumulated normal impulse (≥ 0) and friction impulse along `t1`, `t2` [N·s].
    pub(super) pn: f64,
    pub(super) pt: [f64; 2],
    /// Impulse change of the last update (world) [N·s].
    delta: Vec3,
    /// Index of the contact point in the caller's contacts.
    contact: u32,
    /// The point approached slower than the resting speed (a persistent contact).
    resting: bool,
}

/// `[r]× M [r]×` as a matrix: the rotational part of `K` for lever arm `r` (with a minus).
fn rotational(r: &Vec3, inv_inertia: &Mat3) -> Mat3 {
    let s = r.cross_matrix();
    s * inv_inertia * s
}

/// A unit vector perpendicular to the unit vector `n`, chosen by a fixed rule.
fn tangent(n: &Vec3) -> Vec3 {
    let axis = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
        Vec3::x()
    } else if n.y.abs() <= n.z.abs() {
        Vec3::y()
    } else {
        Vec3::z()
    };
    n.cross(&axis).normalize()
}

impl Row {
    /// The row of contact `c` between cluster particle `c.a` and `b` (a cluster particle, or
    /// `None` for an obstacle), with the pair's parameters, at the velocities of `state`
    /// before any impulse. Contacts approaching faster than `resting_speed` [m/s] ask for
    /// the restitution rebound `−e·v_n⁻`, slower ones for `v_n⁺ ≥ 0`.
    pub fn new(
        c: &Contact,
        b: Option<u32>,
        pair: &PairParams,
        bodies: &[Body],
        state: &Velocities,
        resting_speed: f64,
    ) -> Row {
        let a = c.a;
        let n = c.normal.normalize();
        let t1 = tangent(&n);
        let t2 = n.cross(&t1);
        let ra = c.point - bodies[a as usize].position;
        let rb = b.map_or(Vec3::zeros(), |j| c.point - bodies[j as usize].position);
        let inv_mass = state.inv_mass[a as usize] + state.inv_mass_of(b);
        let k = Mat3::identity() * inv_mass
            - rotational(&ra, &state.inv_inertia[a as usize])
            - rotational(&rb, &state.inv_inertia_of(b));
        let k_inv = k.try_inverse().unwrap_or_else(Mat3::zeros);
        let kn_inv = 1.0 / n.dot(&(k * n));
        let (k11, k12, k22) = (t1.dot(&(k * t1)), t1.dot(&(k * t2)), t2.dot(&(k * t2)));
        let half_trace = 0.5 * (k11 + k22);
        let largest = half_trace + (0.25 * (k11 - k22) * (k11 - k22) + k12 * k12).sqrt();
        let kt_scalar_inv = 1.0 / largest;
        let relative = state.point_velocity(Some(a), &ra) - state.point_velocity(b, &rb);
        let approach = n.dot(&relative);
        let restitution = if approach < -resting_speed {
            pair.restitution
        } else {
            0.0
        };
        Row {
            a,
            b,
            n,
            t1,
            t2,
            ra,
            rb,
            k,
            k_inv,
            kn_inv,
            kt_scalar_inv,
            restitution,
            floor: 0.0,
            mu: pair.friction,
            pn: 0.0,
            pt: [0.0; 2],
            delta: Vec3::zeros(),
            contact: 0,
            resting: approach >= -resting_speed,
        }
    }

    /// Remembers that this row is contact `index` of the caller's contacts.
    pub fn with_contact(mut self, index: u32) -> Row {
        self.contact = index;
        self
    }

    /// The caller's index of this row's contact point.
    pub fn contact(&self) -> u32 {
        self.contact
    }

    /// Warm start: takes the impulse `p` [N·s] (world) as the accumulated impulse to start
    /// from, projected onto the constraints (`P_n ≥ 0`, `|P_t| ≤ μ·P_n`); returns whether it
    /// is non-zero ([`Row::apply`] then writes it into the velocities). The Picard sweeps
    /// converge to the same impulses from any start (each update is a projection that may
    /// also lower the accumulated impulse), only in fewer sweeps from a good one. Only
    /// resting points (approaching slower than the resting speed) are warm-started: an
    /// impact starts from zero, so that a solve cut short by its sweep limit never leaves
    /// a pushing impulse that the contact did not need.
    pub fn warm(&mut self, p: &Vec3) -> bool {
        if !self.resting {
            return false;
        }
        let pn = self.n.dot(p).max(0.0);
        let mut pt = [self.t1.dot(p), self.t2.dot(p)];
        let size = (pt[0] * pt[0] + pt[1] * pt[1]).sqrt();
        let bound = self.mu * pn;
        if size > bound {
            let scale = if size > 0.0 { bound / size } else { 0.0 };
            pt = [pt[0] * scale, pt[1] * scale];
        }
        if !(pn.is_finite() && pt[0].is_finite() && pt[1].is_finite()) {
            return false;
        }
        self.pn = 0.0;
        self.pt = [0.0; 2];
        self.accept(pn, pt) > 0.0
    }

    /// Effective mass of the point along its normal, `1/(n·K·n)` \[kg\]: the impulse per
    /// unit of normal velocity (the scale of the Newton solve, `impulse/direct/newton.rs`).
    pub(super) fn effective_mass(&self) -> f64 {
        self.kn_inv
    }

    /// The accumulated impulse on `a` (world) [N·s].
    pub fn impulse(&self) -> Vec3 {
        self.pn * self.n + self.pt[0] * self.t1 + self.pt[1] * self.t2
    }

    /// One damped Picard update (relaxation `omega` in (0, 1]) from the velocities of
    /// `state` towards `v_n⁺ = 0`, `v_t⁺ = 0`: new accumulated impulses, clamped to
    /// `P_n ≥ floor` and `|P_t| ≤ μ·P_n`.
    /// Returns the size of the impulse change [N·s]; [`Row::apply`] writes it into the
    /// velocities.
    pub fn solve(&mut self, state: &Velocities, omega: f64) -> f64 {
        let mut relative =
            state.point_velocity(Some(self.a), &self.ra) - state.point_velocity(self.b, &self.rb);
        // Sticking: the whole impulse that stops the relative motion, if within the cone.
        let whole = self.k_inv * relative;
        let pn = self.pn - omega * self.n.dot(&whole);
        let pt = [
            self.pt[0] - omega * self.t1.dot(&whole),
            self.pt[1] - omega * self.t2.dot(&whole),
        ];
        if pn >= self.floor && (pt[0] * pt[0] + pt[1] * pt[1]).sqrt() <= self.mu * pn {
            return self.accept(pn, pt);
        }
        // Otherwise the normal impulse first, then the friction impulse, each clamped.
        let vn = self.n.dot(&relative);
        let pn = (self.pn - omega * vn * self.kn_inv).max(self.floor);
        let dpn = pn - self.pn;
        relative += self.k * (dpn * self.n);
        let vt = [self.t1.dot(&relative), self.t2.dot(&relative)];
        let mut pt = [
            self.pt[0] - omega * vt[0] * self.kt_scalar_inv,
            self.pt[1] - omega * vt[1] * self.kt_scalar_inv,
        ];
        let bound = self.mu * pn;
        let size = (pt[0] * pt[0] + pt[1] * pt[1]).sqrt();
        if size > bound {
            let scale = if size > 0.0 { bound / size } else { 0.0 };
            pt = [pt[0] * scale, pt[1] * scale];
        }
        self.accept(pn, pt)
    }

    /// Takes the new accumulated impulses; returns the size of the change.
    pub(super) fn accept(&mut self, pn: f64, pt: [f64; 2]) -> f64 {
        self.delta = (pn - self.pn) * self.n
            + (pt[0] - self.pt[0]) * self.t1
            + (pt[1] - self.pt[1]) * self.t2;
        self.pn = pn;
        self.pt = pt;
        self.delta.norm()
    }

    /// Poisson's restitution kick after the compression phase: raises the accumulated
    /// normal impulse from the compression impulse `P_c` to `(1 + e)·P_c` and keeps that as
    /// its floor. Returns whether the point has a kick at all ([`Row::apply`] writes it).
    pub fn kick(&mut self) -> bool {
        self.floor = (1.0 + self.restitution) * self.pn;
        self.delta = (self.floor - self.pn) * self.n;
        self.pn = self.floor;
        self.restitution > 0.0 && self.floor > 0.0
    }

    /// Applies the impulse change of the last [`Row::solve`] to the two particles.
    pub fn apply(&self, state: &mut Velocities) {
        let a = self.a as usize;
        state.velocity[a] += self.delta * state.inv_mass[a];
        state.angular[a] += state.inv_inertia[a] * self.ra.cross(&self.delta);
        if let Some(b) = self.b {
            let b = b as usize;
            state.velocity[b] -= self.delta * state.inv_mass[b];
            state.angular[b] -= state.inv_inertia[b] * self.rb.cross(&self.delta);
        }
    }

    /// Speed of the relative motion at the contact point in the velocities of `state` [m/s].
    pub fn relative_speed(&self, state: &Velocities) -> f64 {
        (state.point_velocity(Some(self.a), &self.ra) - state.point_velocity(self.b, &self.rb))
            .norm()
    }

    /// Size of the accumulated impulse `|P|` [N·s].
    pub fn impulse_norm(&self) -> f64 {
        (self.pn * self.pn + self.pt[0] * self.pt[0] + self.pt[1] * self.pt[1]).sqrt()
    }

    /// Whether the contact point carries a non-zero impulse.
    pub fn is_active(&self) -> bool {
        self.pn > 0.0 || self.pt != [0.0; 2]
    }
}
