//! Hertz–Mindlin normal force of one body pair (`docs/design.md` §3, "Hertz–Mindlin"),
//! beside the seed's fade-in spring (seed 000 §2).
//!
//! * **Overlap.** Hertz's overlap `δ` is the interpenetration of the undeformed surfaces.
//!   Here the surfaces are the halos: `δ = m − d_min ∈ [0, m]`, the depth of the pair's
//!   deepest contact ([`super::Contact::depth`]), measured inside the halo exactly like the
//!   seed's spring. Two spheres of radii `r_a`, `r_b` whose meshes are `d` apart overlap by
//!   `δ = m − d`: Hertz's law for spheres of radii `r + ε`.
//! * **Effective modulus and radius.** `E* = 1/((1 − ν_a²)/E_a + (1 − ν_b²)/E_b)`
//!   (a rigid obstacle, `E = ∞`, adds nothing) and `1/R* = 1/R_a + 1/R_b` from the
//!   bounding radii (`R_b = ∞` for an obstacle: obstacles are flat).
//! * **Normal force** of the pair: `F_s = 4/3·E*·sqrt(R*)·δ^{3/2}` plus the pair dashpot
//!   of the seed's law at force exponent `p = 3/2`: with the tangent stiffness
//!   `K_t = 2·E*·sqrt(R*·δ)`, `c = 2ζ·sqrt(K_t·m_eff)`, ζ from
//!   [`super::pair::damping_ratio_power`]`(e, 1.5)` and the approach speed `u` at the
//!   force-weighted centroid along the force-weighted normal,
//!   `F = max(0, F_s + min(c·u, β·F_s))`, β = [`super::pair::DAMPING_CAP`]. The law is
//!   homogeneous (Tsuji's form of the Hertz dashpot), so `e` does not depend on the speed.
//! * **Distribution.** `F` is shared among the pair's contacts in proportion to their
//!   halo overlaps `S_i = w_i·(m − d_i)`, scaled so that the resultant along the
//!   force-weighted normal `N = ΣS_i·n_i/|ΣS_i·n_i|` is `F` (`F_n,i = F·S_i/|ΣS_i·n_i|`,
//!   the divisor bounded below by `ΣS_i/2`). A single contact carries `F` itself.

use super::pair::{damping_ratio_power, PairParams, DAMPING_CAP};
use super::Contact;
use crate::model::Elastic;
use msdem_geom::math::Vec3;

/// Hertz parameters of one body pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HertzPair {
    /// Effective Young's modulus `E*` \[Pa\].
    pub modulus: f64,
    /// Effective radius `R*` \[m\].
    pub radius: f64,
    /// Rolling friction coefficient `μ_r` \[-\].
    pub rolling_friction: f64,
}

/// Effective modulus `E* = 1/((1 − ν_a²)/E_a + (1 − ν_b²)/E_b)` \[Pa\] (∞ for two rigid
/// bodies).
pub fn effective_modulus(a: &Elastic, b: &Elastic) -> f64 {
    1.0 / (a.compliance() + b.compliance())
}

/// Effective radius `R* = 1/(1/r_a + 1/r_b)` \[m\]; `r_b = None` is a flat obstacle.
pub fn effective_radius(r_a: f64, r_b: Option<f64>) -> f64 {
    match r_b {
        Some(r_b) => 1.0 / (1.0 / r_a + 1.0 / r_b),
        None => r_a,
    }
}

impl HertzPair {
    /// Hertz's stiffness factor `K_h = 4/3·E*·sqrt(R*)` [N/m^{3/2}].
    pub fn stiffness_factor(&self) -> f64 {
        4.0 / 3.0 * self.modulus * self.radius.sqrt()
    }

    /// Elastic normal force `K_h·δ^{3/2}` \[N\] at overlap `δ ≥ 0` \[m\].
    pub fn spring_force(&self, overlap: f64) -> f64 {
        self.stiffness_factor() * overlap.max(0.0).powf(1.5)
    }

    /// Tangent stiffness `dF/dδ = 3/2·K_h·δ^{1/2}` [N/m].
    pub fn tangent_stiffness(&self, overlap: f64) -> f64 {
        1.5 * self.stiffness_factor() * overlap.max(0.0).sqrt()
    }

    /// Elastic energy `2/5·K_h·δ^{5/2}` \[J\] stored at overlap `δ`.
    pub fn energy(&self, overlap: f64) -> f64 {
        0.4 * self.stiffness_factor() * overlap.max(0.0).powf(2.5)
    }
}

/// Normal forces \[N\] of the contacts `group` of one body pair under Hertz's law (module
/// docs), appended to `out` in the order of `group`; `rel(x)` is `v_a(x) − v_b(x)`
/// [m/s]. Returns the pair's total normal force `F` \[N\].
pub fn pair_normal_forces(
    pp: &PairParams,
    hz: &HertzPair,
    group: &[Contact],
    rel: &dyn Fn(&Vec3) -> Vec3,
    out: &mut Vec<f64>,
) -> f64 {
    let (mut total, mut depth) = (0.0, 0.0f64);
    let (mut dir, mut centre) = (Vec3::zeros(), Vec3::zeros());
    for c in group {
        let s = c.weight * (pp.margin - c.dist).clamp(0.0, pp.margin);
        total += s;
        dir += s * c.normal;
        centre += s * c.point;
        depth = depth.max(c.depth);
    }
    let depth = depth.min(pp.margin);
    let resultant = dir.norm();
    if total.is_nan() || total <= 0.0 || resultant == 0.0 || depth <= 0.0 {
        out.extend(group.iter().map(|_| 0.0));
        return 0.0;
    }
    let spring = hz.spring_force(depth);
    let mut force = spring;
    if pp.restitution < 1.0 {
        let zeta = damping_ratio_power(pp.restitution, 1.5);
        let c = 2.0 * zeta * (hz.tangent_stiffness(depth) * pp.effective_mass).sqrt();
        let n = dir / resultant;
        let approach = -rel(&(centre / total)).dot(&n);
        force = (spring + (c * approach).min(DAMPING_CAP * spring)).max(0.0);
    }
    let scale = force / resultant.max(0.5 * total);
    out.extend(
        group
            .iter()
            .map(|c| scale * c.weight * (pp.margin - c.dist).clamp(0.0, pp.margin)),
    );
    force
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Other;

    fn pair(e: f64) -> (PairParams, HertzPair) {
        let hz = HertzPair {
            modulus: 1e6,
            radius: 0.05,
            rolling_friction: 0.0,
        };
        let pp = PairParams {
            margin: 0.004,
            spring: 1000.0,
            effective_mass: 2.0,
            friction: 0.0,
            restitution: e,
            hertz: Some(hz),
            damping_scale: 1.0,
        };
        (pp, hz)
    }

    fn contact(dist: f64, normal: Vec3) -> Contact {
        Contact {
            a: 0,
            b: Other::Particle(1),
            point: Vec3::zeros(),
            normal,
            dist,
            weight: 1.0,
            depth: 0.004 - dist,
        }
    }

    #[test]
    fn force_is_the_derivative_of_the_energy_and_matches_hertz() {
        let (_, hz) = pair(1.0);
        for d in [1e-5, 1e-4, 1e-3, 3e-3] {
            let h = 1e-9;
            let de = (hz.energy(d + h) - hz.energy(d - h)) / (2.0 * h);
            assert!((de - hz.spring_force(d)).abs() < 1e-6 * hz.spring_force(d));
            // Independent form: 4/3·E*·sqrt(R*)·δ^{3/2} = 4/3·E*·sqrt(R*·δ)·δ.
            let direct = 4.0 / 3.0 * 1e6 * (0.05 * d).sqrt() * d;
            assert!((hz.spring_force(d) - direct).abs() < 1e-9 * direct);
        }
    }

    #[test]
    fn pair_force_is_shared_and_its_resultant_is_hertz() {
        let (pp, hz) = pair(1.0);
        let tilt = Vec3::new(0.3, 0.0, 1.0).normalize();
        let tilt2 = Vec3::new(-0.3, 0.0, 1.0).normalize();
        let group = [
            contact(0.002, Vec3::z()),
            contact(0.003, tilt),
            contact(0.003, tilt2),
        ];
        let mut out = Vec::new();
        let f = pair_normal_forces(&pp, &hz, &group, &|_| Vec3::zeros(), &mut out);
        assert!((f - hz.spring_force(0.002)).abs() < 1e-12 * f);
        let resultant: Vec3 = group.iter().zip(&out).map(|(c, f)| *f * c.normal).sum();
        assert!((resultant - f * Vec3::z()).norm() < 1e-9 * f, "{resultant}");
        // Approach adds damping for e < 1, never more than the spring (cap β = 1).
        let (pp, hz) = pair(0.5);
        let mut slow = Vec::new();
        let fs = pair_normal_forces(&pp, &hz, &group, &|_| -1e-3 * Vec3::z(), &mut slow);
        let mut fast = Vec::new();
        let ff = pair_normal_forces(&pp, &hz, &group, &|_| -1e3 * Vec3::z(), &mut fast);
        assert!(fs > f && fs < 2.0 * f);
        assert!((ff - 2.0 * f).abs() < 1e-9 * f);
    }
}
