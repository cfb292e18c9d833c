//! Contact forces (seed 000 §2) and their accumulation into forces and torques per body.
//!
//! Per merged contact with distance `d`, margin `m`, unit normal `n̂` (from `b` to `a`) and
//! relative velocity `v = v_a(x) − v_b(x)` of the two material points at the contact
//! point `x`:
//!
//! * **normal** (fade-in spring of seed 000 §2 plus a capped dashpot, see
//!   [`normal_force`]): with the overlap `δ = m − d ∈ [0, m]` and `k = K_s·sqrt(m_eff)/m`,
//!   `F_n = max(0, k·δ + min(c·(−v·n̂), β·k·δ))`. The spring `k·δ` is exactly the paper's
//!   law; the damping is our addition (the paper has none).
//! * **tangential** (regularised Coulomb friction): with the tangential slip velocity
//!   `v_t = v − (v·n̂)n̂`, `F_t = −μ·F_n·v_t / max(|v_t|, v_reg)`. Below `v_reg` friction
//!   acts as a viscous damper. In [`accumulate_forces`],
//!   `v_reg = 2·Δt·w_t·max(L_a, L_b)`, where `w_t` is the inverse effective mass of the pair
//!   along the slip direction at the contact point (incl. rotation) and `L_a`, `L_b` are the
//!   sums of the Coulomb limits `μ·F_n` of all contacts of either body: then all the
//!   viscous friction acting on one body can at most halve a common slip per step, so
//!   explicit Euler stays stable (per-contact regularisation lets a body resting on many
//!   contacts oscillate with period 2Δt). Consequence: static friction creeps at about
//!   `2·Δt·w_t·F_load` [m/s] under a tangential load.
//!
//! `a` receives `F = F_n·n̂ + F_t` at `x`, `b` receives `−F`; torques are taken about each
//! centre of mass.

use super::pair::{damping_ratio_power, PairParams, DAMPING_CAP};
use super::Contact;
use super::{hertz, rolling};
use crate::frames::ContactRecord;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::Vec3;

/// Force \[N\] and torque about the centre of mass [N·m] on one body, world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wrench {
    /// Force \[N\].
    pub force: Vec3,
    /// Torque about the centre of mass [N·m].
    pub torque: Vec3,
}

/// The force of one contact on body `a`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactForce {
    /// Magnitude of the normal force `F_n ≥ 0` \[N\].
    pub normal: f64,
    /// Total force on `a` (normal + tangential) \[N\]; `b` receives the opposite.
    pub force: Vec3,
}

/// Velocity [m/s] of the material point of `body` at world position `x`.
pub fn point_velocity(body: &Body, x: &Vec3) -> Vec3 {
    body.velocity + body.angular_velocity.cross(&(x - body.position))
}

/// Inverse effective mass [1/kg] of `body` for a unit impulse along `dir` at `x`:
/// `1/M + (r×t)ᵀ I_w⁻¹ (r×t)`.
pub fn inverse_mass_along(body: &Body, x: &Vec3, dir: &Vec3) -> f64 {
    let rt = (x - body.position).cross(dir);
    1.0 / body.mass + rt.dot(&(body.world_inv_inertia() * rt))
}

/// Normal force magnitude `F_n ≥ 0` \[N\] of one merged contact; `v_rel` is
/// `v_a(x) − v_b(x)` [m/s].
///
/// Law: with the halo overlap `δ = m − d` clamped to `[0, m]` \[m\], the approach speed
/// `δ̇ = −v_rel·n̂` [m/s], the stiffness `k = K_s·sqrt(m_eff)/m` [N/m]
/// ([`PairParams::stiffness`]), the dashpot `c = 2ζ·sqrt(k·m_eff)` [N·s/m]
/// ([`PairParams::damping`]) and the cap β = [`super::pair::DAMPING_CAP`] = 1 [-]:
///
/// `F_n = max(0, k·δ + min(c·δ̇, β·k·δ))`.
///
/// * The spring `k·δ = K_s·sqrt(m_eff)·(1 − d/m)` is the force law of seed 000 §2; for
///   `e = 1` (ζ = 0) it is returned as is, unchanged bit for bit.
/// * The dashpot is our addition (seed 000 §2 has no damping): it realises the
///   restitution `e`. While approaching it resists with `c·δ̇` but never more than `β·k·δ`,
///   so `0 ≤ F_n ≤ (1 + β)·k·δ`: the force is continuous in the overlap, 0 at first touch
///   (`δ = 0`) for every approach speed, and Lipschitz in `(δ, δ̇)`, which the implicit
///   Picard iterations need for a fixed point. While separating the dashpot lowers the
///   force down to the clamp at 0: never attractive.
/// * `k·δ + min(c·δ̇, β·k·δ)` is homogeneous of degree 1 in `(δ, δ̇)`, so an isolated
///   single-point impact rebounds with a coefficient independent of the impact speed; ζ
///   is calibrated to `e` in closed form ([`super::pair::impact_restitution`],
///   [`PairParams::damping_ratio`]). With several merged contacts per pair each carries
///   its own spring and dashpot, so `e` is exact only for single-point impacts.
///
/// Hertz–Mindlin pairs ([`PairParams::hertz`]) use [`hertz::pair_normal_forces`] instead.
pub fn normal_force(c: &Contact, pp: &PairParams, v_rel: &Vec3) -> f64 {
    if let Some(hz) = &pp.hertz {
        let mut out = Vec::with_capacity(1);
        return hertz::pair_normal_forces(pp, hz, std::slice::from_ref(c), &|_| *v_rel, &mut out);
    }
    let overlap = (pp.margin - c.dist).clamp(0.0, pp.margin);
    let spring = pp.stiffness() * overlap;
    let damping = pp.damping();
    if damping == 0.0 {
        return spring;
    }
    let approach = -v_rel.dot(&c.normal);
    (spring + (damping * approach).min(DAMPING_CAP * spring)).max(0.0)
}

/// Regularisation velocity of friction [m/s]: `2·Δt·w_t·load` for the inverse effective
/// mass `w_t` [1/kg] along the slip and the summed Coulomb limit `load` \[N\] acting on the
/// bodies (see the module docs).
pub fn friction_regularisation(dt: f64, tangent_inv_mass: f64, load: f64) -> f64 {
    2.0 * dt * tangent_inv_mass * load
}

/// Force of one merged contact on body `a` (see the module docs for the law).
///
/// `v_rel` is `v_a(x) − v_b(x)` [m/s]; `v_reg` the regularisation velocity of friction
/// [m/s] ([`friction_regularisation`]).
pub fn contact_force(c: &Contact, pp: &PairParams, v_rel: &Vec3, v_reg: f64) -> ContactForce {
    friction_force(c, pp, v_rel, v_reg, normal_force(c, pp, v_rel))
}

/// Slip direction used to regularise friction: unit tangential relative velocity, or any
/// unit vector when there is no slip.
fn slip_direction(v_rel: &Vec3, n: &Vec3) -> Vec3 {
    let vt = v_rel - v_rel.dot(n) * n;
    let len = vt.norm();
    if len > 0.0 {
        vt / len
    } else {
        Vec3::zeros()
    }
}

/// Adds the forces and torques of `contacts` to `wrenches` (indexed by particle id).
///
/// Material and obstacle data come from `model`; masses and the kinematic state (positions, velocities,
/// orientations) from `bodies`, so that an iterative integrator can evaluate forces at a
/// guessed state. When `records` is given, one [`ContactRecord`] per contact is appended.
/// Returns the potential energy stored in the contact springs \[J\]
/// ([`PairParams::spring_energy`] times each contact's weight).
///
/// **Damping per body pair.** The contacts of one body pair (consecutive in `contacts`)
/// share one capped dashpot ([`pair_damping`]): with the springs `S_i = k·w_i·(m − d_i)`
/// ([`super::Contact::weight`]), their sum `S`, the pair's tangent stiffness
/// `K_t = k·Σ w_i`, the force-weighted normal `N` and centroid `x̄`, and the approach
/// speed `u = −(v_a(x̄) − v_b(x̄))·N`, the dashpot is `D = min(c·u, β·S)` with
/// `c = 2ζ·sqrt(K_t·m_eff)`, ζ calibrated for the pair's current exponent
/// `p = δ_max·K_t/S` ([`super::pair::damping_ratio_power`]). Each contact gets
/// `F_n,i = max(0, S_i + D·S_i/S)`. A pair that touches at many points therefore
/// rebounds like one contact with restitution `e` (a per-point dashpot would damp each
/// point on its own: `√N` times too much for `N` points in step), and a sphere rolling on a
/// plane (no approach of the pair) is not braked by its own dashpot. For a single seed
/// point the law is [`normal_force`] exactly.
pub fn accumulate_forces(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    dt: f64,
    wrenches: &mut [Wrench],
    records: Option<&mut Vec<ContactRecord>>,
) -> f64 {
    accumulate_forces_calibrated(model, bodies, contacts, dt, wrenches, records, None)
}

/// A time integrator's correction of the linear law's dashpot for its own step: each
/// body pair's damping ratio is multiplied by `scale(e, ω·dt)` for its restitution `e` and
/// its contact frequency `ω = sqrt(k·Σw/m_eff)` (the pair's stiffness over all its
/// contacts) at the step `dt` \[s\] ([`PairParams::damping_scale`]). Hertz pairs are left
/// as they are. The split implicit scheme's calibration:
/// `crate::integrator::implicit` (`calibration.rs`).
#[derive(Clone, Copy, Debug)]
pub struct DampingCalibration {
    /// The step \[s\].
    pub dt: f64,
    /// `scale(e, ωΔt)` [-].
    pub scale: fn(f64, f64) -> f64,
}

impl DampingCalibration {
    /// `pp` with the damping scale for the pair's `contacts` (one pair's run).
    fn apply(&self, mut pp: PairParams, group: &[Contact]) -> PairParams {
        if pp.hertz.is_some() || pp.restitution >= 1.0 {
            return pp;
        }
        let weight: f64 = group.iter().map(|c| c.weight).sum();
        let omega = (pp.stiffness() * weight.max(0.0) / pp.effective_mass).sqrt();
        pp.damping_scale = (self.scale)(pp.restitution, omega * self.dt);
        pp
    }
}

/// [`accumulate_forces`] with the dashpot corrected by `calibration` (`None`: the law as
/// it is, bit for bit).
pub fn accumulate_forces_calibrated(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    dt: f64,
    wrenches: &mut [Wrench],
    mut records: Option<&mut Vec<ContactRecord>>,
    calibration: Option<DampingCalibration>,
) -> f64 {
    let mut prepared = Vec::with_capacity(contacts.len());
    let mut rolling = Vec::new();
    let energy = prepare_forces_calibrated(
        model,
        bodies,
        contacts,
        dt,
        &mut prepared,
        &mut rolling,
        calibration,
    );
    for r in &rolling {
        let c = &contacts[r.first as usize];
        wrenches[c.a as usize].torque += r.torque;
        if let Other::Particle(j) = c.b {
            wrenches[j as usize].torque -= r.torque;
        }
    }
    // The summed Coulomb limits per body, for the friction regularisation.
    let mut load = vec![0.0; bodies.len()];
    for (c, p) in contacts.iter().zip(&prepared) {
        load[c.a as usize] += p.limit;
        if let Other::Particle(j) = c.b {
            load[j as usize] += p.limit;
        }
    }
    for (c, p) in contacts.iter().zip(&prepared) {
        let load_b = match c.b {
            Other::Particle(j) => load[j as usize],
            Other::Obstacle(_) => 0.0,
        };
        let w = contact_wrench(bodies, c, p, load[c.a as usize], load_b, dt);
        let wa = &mut wrenches[c.a as usize];
        wa.force += w.force;
        wa.torque += w.torque_a;
        if let Other::Particle(j) = c.b {
            let wb = &mut wrenches[j as usize];
            wb.force -= w.force;
            wb.torque -= w.torque_b;
        }
        if let Some(r) = records.as_deref_mut() {
            r.push(ContactRecord {
                a: c.a,
                b: c.b,
                point: c.point.into(),
                normal: c.normal.into(),
                force: w.force.into(),
            });
        }
    }
    energy
}

/// What pass 1 of [`accumulate_forces`] finds for one contact.
#[derive(Clone, Copy, Debug)]
pub struct PreparedContact {
    /// The pair's parameters.
    pub pp: PairParams,
    /// Relative velocity `v_a − v_b` at the contact point [m/s].
    pub v_rel: Vec3,
    /// Normal force magnitude \[N\].
    pub normal: f64,
    /// Coulomb limit `μ·F_n` \[N\], summed per body over all its contacts (in contact
    /// order) for the friction regularisation.
    pub limit: f64,
}

/// The rolling-resistance torque of a Hertz–Mindlin pair: `+torque` on the pair's
/// particle `a`, `−torque` on a particle `b`.
#[derive(Clone, Copy, Debug)]
pub struct RollingTorque {
    /// Index of the pair's first contact.
    pub first: u32,
    /// Torque on `a` \[N·m\].
    pub torque: Vec3,
}

/// Pass 1 of [`accumulate_forces`]: the normal force and Coulomb limit of every contact
/// (one entry per contact in `prepared`) and the rolling torques of the pairs (in pair
/// order in `rolling`); returns the contacts' spring energy \[J\]. Both buffers are
/// cleared first.
pub fn prepare_forces(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    dt: f64,
    prepared: &mut Vec<PreparedContact>,
    rolling: &mut Vec<RollingTorque>,
) -> f64 {
    prepare_forces_calibrated(model, bodies, contacts, dt, prepared, rolling, None)
}

/// [`prepare_forces`] with the dashpot corrected by `calibration` (`None`: the law as it
/// is, bit for bit).
pub fn prepare_forces_calibrated(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    dt: f64,
    prepared: &mut Vec<PreparedContact>,
    rolling: &mut Vec<RollingTorque>,
    calibration: Option<DampingCalibration>,
) -> f64 {
    prepared.clear();
    rolling.clear();
    let mut energy = 0.0;
    for run in super::pair_runs(contacts) {
        let start = run.start;
        let group = &contacts[run];
        let (a, b) = (group[0].a, group[0].b);
        let pp = PairParams::of(model, bodies, a, b);
        let pp = match &calibration {
            Some(cal) => cal.apply(pp, group),
            None => pp,
        };
        let ba = &bodies[a as usize];
        let bb = match b {
            Other::Particle(j) => Some(&bodies[j as usize]),
            Other::Obstacle(_) => None,
        };
        let rel = |x: &Vec3| {
            let mut v = point_velocity(ba, x);
            if let Some(bb) = bb {
                v -= point_velocity(bb, x);
            }
            v
        };
        // Hertz–Mindlin: one pair law, its energy and rolling resistance (`hertz`, `rolling`).
        let mut hertz_normals = Vec::new();
        if let Some(hz) = &pp.hertz {
            let total = hertz::pair_normal_forces(&pp, hz, group, &rel, &mut hertz_normals);
            let depth = group.iter().map(|c| c.depth).fold(0.0, f64::max);
            energy += hz.energy(depth.min(pp.margin));
            let limit = hz.rolling_friction * hz.radius * total;
            rolling.push(RollingTorque {
                first: start as u32,
                torque: rolling::rolling_torque(ba, bb, limit, dt),
            });
        }
        let damping = if pp.hertz.is_some() {
            0.0
        } else {
            pair_damping(&pp, group, &rel)
        };
        for (i, c) in group.iter().enumerate() {
            let v_rel = rel(&c.point);
            let normal = if let Some(&f) = hertz_normals.get(i) {
                f
            } else if group.len() == 1 && c.weight == 1.0 {
                energy += pp.spring_energy(c.dist);
                normal_force(c, &pp, &v_rel)
            } else {
                energy += c.weight * pp.spring_energy(c.dist);
                let spring = c.weight * pp.stiffness() * (pp.margin - c.dist).clamp(0.0, pp.margin);
                (spring + damping * spring).max(0.0)
            };
            prepared.push(PreparedContact {
                pp,
                v_rel,
                normal,
                limit: pp.friction * normal,
            });
        }
    }
    energy
}

/// Pass 2 of [`accumulate_forces`] for one contact: its force on `a` (`−force` on a
/// particle `b`) and the torques about the two centres of mass, given the summed Coulomb
/// limits `load_a`, `load_b` of the two bodies \[N\] (`load_b` unused for an obstacle).
pub fn contact_wrench(
    bodies: &[Body],
    c: &Contact,
    p: &PreparedContact,
    load_a: f64,
    load_b: f64,
    dt: f64,
) -> ContactWrench {
    let ba = &bodies[c.a as usize];
    let other = match c.b {
        Other::Particle(j) => Some(&bodies[j as usize]),
        Other::Obstacle(_) => None,
    };
    let t = slip_direction(&p.v_rel, &c.normal);
    let mut w_t = inverse_mass_along(ba, &c.point, &t);
    let mut body_load = load_a;
    if let Some(bb) = other {
        w_t += inverse_mass_along(bb, &c.point, &t);
        body_load = body_load.max(load_b);
    }
    let v_reg = friction_regularisation(dt, w_t, body_load);
    let f = friction_force(c, &p.pp, &p.v_rel, v_reg, p.normal);
    ContactWrench {
        force: f.force,
        torque_a: (c.point - ba.position).cross(&f.force),
        torque_b: other.map_or_else(Vec3::zeros, |bb| (c.point - bb.position).cross(&f.force)),
    }
}

/// One contact's share of the wrenches of its two bodies ([`contact_wrench`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactWrench {
    /// Force on `a` \[N\] (`b` gets `−force`).
    pub force: Vec3,
    /// Torque on `a` about its centre of mass \[N·m\].
    pub torque_a: Vec3,
    /// `(x − x_b) × force` \[N·m\]: subtracted from a particle `b`'s torque (zero for an
    /// obstacle).
    pub torque_b: Vec3,
}

/// The pair dashpot of [`accumulate_forces`] relative to the pair's spring force, `D/S`
/// [-] (0 for `e = 1` or without overlap); `rel(x)` is the relative velocity
/// `v_a(x) − v_b(x)` [m/s].
pub fn pair_damping(pp: &PairParams, group: &[Contact], rel: &dyn Fn(&Vec3) -> Vec3) -> f64 {
    if pp.restitution >= 1.0 {
        return 0.0;
    }
    let k = pp.stiffness();
    let (mut spring, mut weight, mut depth) = (0.0, 0.0, 0.0f64);
    let (mut dir, mut centre) = (Vec3::zeros(), Vec3::zeros());
    for c in group {
        let s = c.weight * k * (pp.margin - c.dist).clamp(0.0, pp.margin);
        spring += s;
        weight += c.weight;
        depth = depth.max(c.depth);
        dir += s * c.normal;
        centre += s * c.point;
    }
    let Some(n) = dir.try_normalize(0.0) else {
        return 0.0;
    };
    if spring.is_nan() || spring <= 0.0 {
        return 0.0;
    }
    centre /= spring;
    let stiffness = k * weight;
    let p = depth * stiffness / spring;
    let zeta = damping_ratio_power(pp.restitution, p) * pp.damping_scale;
    let c = 2.0 * zeta * (stiffness * pp.effective_mass).sqrt();
    let approach = -rel(&centre).dot(&n);
    (c * approach).min(DAMPING_CAP * spring) / spring
}

/// The force of one contact on `a` for a given normal force magnitude `normal` \[N\]:
/// `normal·n̂` plus regularised Coulomb friction (module docs).
pub fn friction_force(
    c: &Contact,
    pp: &PairParams,
    v_rel: &Vec3,
    v_reg: f64,
    normal: f64,
) -> ContactForce {
    let mut force = normal * c.normal;
    let vt = v_rel - v_rel.dot(&c.normal) * c.normal;
    let slip = vt.norm();
    let limit = pp.friction * normal;
    if limit > 0.0 && slip > 0.0 {
        force -= limit * vt / slip.max(v_reg);
    }
    ContactForce { normal, force }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(e: f64, mu: f64) -> PairParams {
        PairParams {
            margin: 0.02,
            spring: 1000.0,
            effective_mass: 4.0,
            friction: mu,
            restitution: e,
            hertz: None,
            damping_scale: 1.0,
        }
    }

    fn contact(dist: f64) -> Contact {
        Contact {
            a: 0,
            b: Other::Obstacle(0),
            point: Vec3::zeros(),
            normal: Vec3::z(),
            dist,
            weight: 1.0,
            depth: 0.02 - dist,
        }
    }

    #[test]
    fn spring_matches_the_paper_law_and_its_energy() {
        let pp = params(1.0, 0.0);
        for &d in &[0.001, 0.005, 0.01, 0.019] {
            let f = contact_force(&contact(d), &pp, &Vec3::zeros(), 0.0);
            let paper = 1000.0 * (1.0 - d / 0.02) * (1.0f64 / (1.0 / 4.0)).sqrt();
            assert!((f.normal - paper).abs() < 1e-9 * paper.max(1.0), "{d}");
            assert!((f.force - paper * Vec3::z()).norm() < 1e-9 * paper.max(1.0));
            // F = −dU/dd (central difference, U quadratic so exact up to rounding).
            let h = 1e-6;
            let du = (pp.spring_energy(d + h) - pp.spring_energy(d - h)) / (2.0 * h);
            assert!(
                (f.normal + du).abs() < 1e-6 * paper.max(1.0),
                "{d}: {} vs {}",
                f.normal,
                -du
            );
        }
        let at_zero = contact_force(&contact(0.0), &pp, &Vec3::zeros(), 0.0);
        assert!((at_zero.normal - pp.peak_force()).abs() < 1e-9);
        assert_eq!(pp.spring_energy(0.03), 0.0);
        assert_eq!(
            contact_force(&contact(0.02), &pp, &Vec3::zeros(), 0.0).normal,
            0.0
        );
    }

    #[test]
    fn damping_resists_approach_and_is_never_attractive() {
        let pp = params(0.5, 0.0);
        let (k, c) = (pp.stiffness(), pp.damping());
        assert!(c > 0.0);
        let at = |d: f64, vz: f64| contact_force(&contact(d), &pp, &(vz * Vec3::z()), 0.0);
        let still = at(0.01, 0.0).normal;
        assert_eq!(still, k * 0.01);
        // Slow approach: the plain dashpot c·δ̇ (below the cap β·k·δ = 1000 N).
        let slow = at(0.01, -1.0).normal;
        assert!(c < DAMPING_CAP * k * 0.01);
        assert!((slow - still - c).abs() < 1e-9 * slow);
        // Fast approach: capped at (1 + β)·k·δ.
        assert!((at(0.01, -1e3).normal - (1.0 + DAMPING_CAP) * still).abs() < 1e-9 * still);
        // Separating: less than the spring, clamped at 0, never attractive.
        let separating = at(0.01, 0.1).normal;
        assert!((separating - (still - 0.1 * c)).abs() < 1e-9 * still);
        let fast = at(0.01, 1e3);
        assert_eq!(fast.normal, 0.0);
        assert_eq!(fast.force, Vec3::zeros());
        // e = 1: the paper's spring exactly, whatever the velocity.
        let elastic = params(1.0, 0.0);
        for vz in [-1e3, -1.0, 0.0, 2.0] {
            let f = contact_force(&contact(0.01), &elastic, &(vz * Vec3::z()), 0.0);
            assert_eq!(f.normal, elastic.stiffness() * (elastic.margin - 0.01));
        }
    }

    #[test]
    fn normal_force_is_continuous_at_first_touch() {
        for e in [0.1, 0.4, 0.9] {
            let pp = params(e, 0.0);
            let k = pp.stiffness();
            for speed in [1e-3, 1.0, 1e3, 1e6] {
                let approach = -speed * Vec3::z();
                // Touching exactly (δ = 0) and outside the halo: no force.
                assert_eq!(normal_force(&contact(0.02), &pp, &approach), 0.0);
                assert_eq!(normal_force(&contact(0.03), &pp, &approach), 0.0);
                // δ → 0⁺: F_n ≤ (1 + β)·k·δ → 0 whatever the approach speed.
                for delta in [1e-3, 1e-6, 1e-9, 1e-12] {
                    let f = normal_force(&contact(0.02 - delta), &pp, &approach);
                    let bound = (1.0 + DAMPING_CAP) * k * delta;
                    assert!(
                        f > 0.0 && f <= bound * (1.0 + 1e-6),
                        "{e} {speed} {delta}: {f}"
                    );
                }
                let tiny = normal_force(&contact(0.02 - 1e-12), &pp, &approach);
                assert!(tiny < 1e-6, "{tiny} N at δ = 1e-12 m");
            }
        }
    }

    /// One isolated impact of the dimensional law (this module's [`normal_force`]) at
    /// approach speed `v0`, integrated with RK4 at 1/4000 of the undamped period; returns
    /// the rebound speed ratio.
    fn simulated_restitution(pp: &PairParams, v0: f64) -> f64 {
        let m = pp.effective_mass;
        let h = 2.0 * std::f64::consts::PI / pp.angular_frequency() / 4000.0;
        // Body `a` above an obstacle: distance d, velocity v along the normal +z.
        let accel = |d: f64, v: f64| normal_force(&contact(d), pp, &(v * Vec3::z())) / m;
        let (mut d, mut v) = (pp.margin, -v0);
        for _ in 0..100_000 {
            let k1 = (v, accel(d, v));
            let k2 = (
                v + 0.5 * h * k1.1,
                accel(d + 0.5 * h * k1.0, v + 0.5 * h * k1.1),
            );
            let k3 = (
                v + 0.5 * h * k2.1,
                accel(d + 0.5 * h * k2.0, v + 0.5 * h * k2.1),
            );
            let k4 = (v + h * k3.1, accel(d + h * k3.0, v + h * k3.1));
            d += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            v += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            if v > 0.0 && (d >= pp.margin || accel(d, v) == 0.0) {
                break;
            }
        }
        v / v0
    }

    #[test]
    fn isolated_impact_rebounds_with_e_at_every_speed() {
        for e in [0.2, 0.4, 0.7, 0.95] {
            let pp = params(e, 0.0);
            // Largest speed: peak overlap ≈ v/ω = 0.01 m, inside the 0.02 m halo.
            let v_max = 0.01 * pp.angular_frequency();
            for v0 in [v_max, 0.1 * v_max, 0.01 * v_max] {
                let r = simulated_restitution(&pp, v0);
                assert!((r - e).abs() < 1e-7, "e = {e}, v0 = {v0} m/s: {r}");
            }
        }
    }

    #[test]
    fn friction_opposes_slip_and_obeys_coulomb() {
        let pp = params(1.0, 0.4);
        let slip = Vec3::new(2.0, -1.0, 0.0);
        let v_reg = friction_regularisation(1e-5, 0.25, 0.4 * 500.0);
        assert!((v_reg - 1e-3).abs() < 1e-15);
        let f = contact_force(&contact(0.01), &pp, &slip, v_reg);
        let ft = f.force - f.normal * Vec3::z();
        assert!((ft.norm() - 0.4 * f.normal).abs() < 1e-9 * f.normal);
        assert!((ft.normalize() + slip.normalize()).norm() < 1e-12);
        // Slow slip: regularised, below the Coulomb limit, proportional to the slip.
        let slow = Vec3::new(0.25 * v_reg, 0.0, 0.0);
        let g = contact_force(&contact(0.01), &pp, &slow, v_reg);
        assert!(((g.force.x).abs() - 0.25 * 0.4 * g.normal).abs() < 1e-9 * g.normal);
        assert!(g.force.x < 0.0);
    }
}
