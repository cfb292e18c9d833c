//! Per-pair contact parameters: margin, effective mass and the pair's material values.
//!
//! Combination rules (documented choice; seed 000 §2 gives one material only;
//! `docs/design.md` §3, "Material pairs"):
//! * particle–particle: spring `K_s`, friction `μ` and restitution `e` are the arithmetic
//!   means of the two materials' values (equal materials keep their value), unless the
//!   scenario's `material_pairs:` sets `e`, `μ` or `μ_r` for that pair
//!   ([`crate::model::MaterialPair`]), as LIGGGHTS' per-type-pair coefficient matrices
//!   do. The pair meets under Hertz–Mindlin when either material uses it, with
//!   `1/E* = (1 − ν_a²)/E_a + (1 − ν_b²)/E_b` (a seed material counts as rigid,
//!   `E = ∞`, like an obstacle without `youngs_modulus_pa`), `1/R* = 1/R_a + 1/R_b` and
//!   `m* = 1/(1/M_a + 1/M_b)`; `μ_r` is the mean over the Hertz sides;
//! * particle–obstacle: `K_s` is the particle material's spring (obstacles carry none);
//!   `μ` and `e` are the obstacle's own values, which the scenario declares "against
//!   particles".
//!
//! The margin is `m = ε_a + ε_b` (= 2ε for equal halos), the effective mass
//! `m_eff = 1/(1/M_a + 1/M_b)` with `1/M = 0` for obstacles (seed 000 §2).

use super::hertz::{effective_modulus, effective_radius, HertzPair};
use crate::model::{find_pair, ContactLaw, Elastic, Model, Other};
use crate::state::Body;

/// Relative distance below which `(p − q)/|p − q|` is not trusted as a normal and the
/// robust fallback normal is used instead (fraction of the margin) [-].
pub const TINY_DISTANCE: f64 = 1e-4;

/// A Hertz–Mindlin law's elastic constants and rolling friction; `None` for the seed's
/// spring.
fn law_parts(law: &ContactLaw) -> Option<(Elastic, f64)> {
    match *law {
        ContactLaw::HertzMindlin {
            elastic,
            rolling_friction,
        } => Some((elastic, rolling_friction)),
        ContactLaw::Seed => None,
    }
}

/// Contact parameters of one body pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairParams {
    /// Margin `m = ε_a + ε_b` \[m\]: contact iff the triangle distance is ≤ `m`.
    pub margin: f64,
    /// Spring constant `K_s` [N·kg^-1/2].
    pub spring: f64,
    /// Effective mass `1/(1/M_a + 1/M_b)` \[kg\].
    pub effective_mass: f64,
    /// Coulomb friction coefficient μ [-].
    pub friction: f64,
    /// Coefficient of restitution e in (0, 1] [-].
    pub restitution: f64,
    /// Hertz–Mindlin parameters when both sides use that law (a particle–obstacle pair:
    /// the particle), else `None`: the seed's spring ([`super::hertz`]).
    pub hertz: Option<HertzPair>,
    /// Factor on the dashpot's damping ratio [-]: 1 from [`PairParams::of`] (the law as
    /// calibrated for a resolved impact); the split implicit scheme sets the factor that
    /// makes its discrete impact rebound with `e` at its step
    /// ([`super::force::DampingCalibration`]).
    pub damping_scale: f64,
}

impl PairParams {
    /// Parameters of the pair (`a`, `b`) of `bodies` (`a` is a particle id; ids must be
    /// valid, as produced by the broad phase), materials and obstacles from `model`.
    pub fn of(model: &Model, bodies: &[Body], a: u32, b: Other) -> PairParams {
        let ba = &bodies[a as usize];
        let ma = &model.materials[ba.material as usize];
        match b {
            Other::Particle(j) => {
                let bb = &bodies[j as usize];
                let mb = &model.materials[bb.material as usize];
                let set = find_pair(&model.material_pairs, ba.material, bb.material);
                let (la, lb) = (law_parts(&ma.law), law_parts(&mb.law));
                let hertz = (la.is_some() || lb.is_some()).then(|| {
                    let (ea, ra) = la.unwrap_or((Elastic::RIGID, 0.0));
                    let (eb, rb) = lb.unwrap_or((Elastic::RIGID, 0.0));
                    // Mean of the Hertz sides' rolling friction (a seed side has none).
                    let n = f64::from(u8::from(la.is_some()) + u8::from(lb.is_some()));
                    HertzPair {
                        modulus: effective_modulus(&ea, &eb),
                        radius: effective_radius(ba.radius, Some(bb.radius)),
                        rolling_friction: set
                            .and_then(|p| p.rolling_friction)
                            .unwrap_or((ra + rb) / n),
                    }
                });
                PairParams {
                    margin: ba.epsilon + bb.epsilon,
                    spring: 0.5 * (ma.spring + mb.spring),
                    effective_mass: 1.0 / (1.0 / ba.mass + 1.0 / bb.mass),
                    friction: set
                        .and_then(|p| p.friction)
                        .unwrap_or(0.5 * (ma.friction + mb.friction)),
                    restitution: set
                        .and_then(|p| p.restitution)
                        .unwrap_or(0.5 * (ma.restitution + mb.restitution)),
                    hertz,
                    damping_scale: 1.0,
                }
            }
            Other::Obstacle(o) => {
                let ob = &model.obstacles[o as usize];
                PairParams {
                    margin: ba.epsilon + ob.epsilon,
                    spring: ma.spring,
                    effective_mass: ba.mass,
                    friction: ob.friction,
                    restitution: ob.restitution,
                    hertz: match ma.law {
                        ContactLaw::HertzMindlin { elastic, .. } => Some(HertzPair {
                            modulus: effective_modulus(&elastic, &ob.elastic),
                            radius: effective_radius(ba.radius, None),
                            rolling_friction: ob.rolling_friction,
                        }),
                        ContactLaw::Seed => None,
                    },
                    damping_scale: 1.0,
                }
            }
        }
    }

    /// Peak force of one contact, reached at distance 0: `K_s·sqrt(m_eff)` \[N\]
    /// (seed 000 §2).
    pub fn peak_force(&self) -> f64 {
        self.spring * self.effective_mass.sqrt()
    }

    /// Linear stiffness of the fade-in spring: `k = K_s·sqrt(m_eff)/m` [N/m], so that the
    /// force is `k·(m − d)` for a distance `d ∈ [0, m]`.
    pub fn stiffness(&self) -> f64 {
        self.peak_force() / self.margin
    }

    /// Damping ratio ζ of the contact dashpot: the ζ for which an isolated single-point
    /// impact under the capped law of [`super::force::normal_force`] rebounds with exactly
    /// the pair's restitution `e` ([`impact_restitution`] inverted by bisection) [-].
    /// 0 for `e = 1`; restitutions below `impact_restitution(MAX_DAMPING_RATIO,
    /// DAMPING_CAP)` ≈ 0.109 are realised with ζ = [`MAX_DAMPING_RATIO`], i.e. rebound
    /// with ≈ 0.109. Times [`PairParams::damping_scale`].
    pub fn damping_ratio(&self) -> f64 {
        damping_ratio_for(self.restitution) * self.damping_scale
    }

    /// Normal damping coefficient `c = 2ζ·sqrt(k·m_eff)` [N·s/m].
    pub fn damping(&self) -> f64 {
        2.0 * self.damping_ratio() * (self.stiffness() * self.effective_mass).sqrt()
    }

    /// Angular frequency of the undamped contact oscillation
    /// `ω = sqrt(k/m_eff) = sqrt(K_s·sqrt(m_eff)/(m·m_eff))` [rad/s]. Hertz–Mindlin:
    /// the highest one inside the halo, `sqrt(K_t(m)/m_eff)` with the tangent stiffness
    /// at full overlap `δ = m` ([`HertzPair::tangent_stiffness`]).
    pub fn angular_frequency(&self) -> f64 {
        let stiffness = match &self.hertz {
            Some(hz) => hz.tangent_stiffness(self.margin),
            None => self.stiffness(),
        };
        (stiffness / self.effective_mass).sqrt()
    }

    /// Potential energy stored in one contact's spring at triangle distance `dist`:
    /// the integral of the force law, `K_s·sqrt(m_eff)·(m − d)²/(2m)` \[J\]
    /// (0 outside the halo).
    ///
    /// Hertz–Mindlin: `2/5·K_h·δ^{5/2}`, the pair's energy when this is its deepest
    /// contact ([`HertzPair::energy`]).
    pub fn spring_energy(&self, dist: f64) -> f64 {
        let overlap = (self.margin - dist).clamp(0.0, self.margin);
        if let Some(hz) = &self.hertz {
            return hz.energy(overlap);
        }
        0.5 * self.stiffness() * overlap * overlap
    }
}

/// Cap β of the dashpot relative to the spring [-]: while the bodies approach, the damping
/// force is at most `β·k·δ`, so the normal force stays below `(1 + β)·k·δ` and tends to 0
/// at first touch whatever the approach speed (law: [`super::force::normal_force`]).
/// β = 1: the dashpot at most doubles the spring force.
pub const DAMPING_CAP: f64 = 1.0;

/// Largest damping ratio used [-].
///
/// The capped law is linear on two pieces, and explicit Euler–Cromer with step `Δt` is
/// stable on each when, with `h = ω·Δt`:
/// * dashpot piece (stiffness `k`, damping `2ζ·sqrt(k·m_eff)`): `ζ·h < 1` and
///   `h² + 4ζ·h < 4` (Jury conditions for the amplification matrix of one step, whose
///   determinant is `1 − 2ζ·h` and trace `2 − h² − 2ζ·h`);
/// * capped piece (stiffness `(1 + β)·k`, no velocity term): `sqrt(1 + β)·h < 2`.
///
/// At the step of [`crate::contact::stability::stable_dt_estimate`], `h = 2π/20 ≈ 0.314`, so ζ ≤ 3
/// (limit ≈ 3.10) and β = [`DAMPING_CAP`] = 1 (limit ≈ 39) keep both pieces stable.
pub const MAX_DAMPING_RATIO: f64 = 3.0;

/// Restitution coefficient [-] of one isolated impact under the capped law
/// `F = max(0, k·δ + min(c·δ̇, β·k·δ))`, `c = 2ζ·sqrt(k·m_eff)`, for damping ratio `zeta`
/// and cap `beta ≥ 0`: exact closed form, the same for every impact speed.
///
/// With `τ = ω·t` and `x = ω·δ/v₀` (`v₀` the approach speed) the impact reads
/// `x'' = −max(0, x + min(2ζ·x', β·x))`, `x(0) = 0`, `x'(0) = 1`, and `e = −x'` once the
/// force has vanished. The right-hand side is homogeneous of degree 1 in `(x, x')`, so `e`
/// does not depend on `v₀`. It is linear on two pieces, visited in this order:
/// 1. capped (`2ζ·x' ≥ β·x`, from first touch): `x'' = −(1 + β)·x`, hence with
///    `s = sqrt(1 + β)`: `x = sin(s·τ)/s`, `x' = cos(s·τ)`, until `tan(s·τ) = 2ζ·s/β`;
/// 2. dashpot: `x'' + 2ζ·x' + x = 0`. While approaching, `2ζ·x' − β·x` only decreases,
///    and once `x' ≤ 0` it is negative, so the cap never returns. The force
///    `g = x + 2ζ·x'` obeys the same linear equation; the contact ends at its first zero
///    (before `x = 0`: `g ≤ x` once `x' ≤ 0`), after which the force stays 0 (`x`
///    decreases at constant `x'`), and there `e = −x' = x/(2ζ)`.
///
/// The first zero of `g` and the value of `x` there are closed forms in the under-,
/// critically and over-damped cases. Returns 1 for `zeta ≤ 0` and 0 when `g` never
/// vanishes (the bodies creep apart).
pub fn impact_restitution(zeta: f64, beta: f64) -> f64 {
    if zeta.is_nan() || zeta <= 0.0 {
        return 1.0;
    }
    // Piece 1 up to the switch.
    let s = (1.0 + beta).sqrt();
    let theta = (2.0 * zeta * s).atan2(beta);
    let (x1, v1) = (theta.sin() / s, theta.cos());
    // Force g and its derivative g' = x' + 2ζ·x'' = x' − 2ζ·g at the switch.
    let g0 = x1 + 2.0 * zeta * v1;
    let dg0 = v1 - 2.0 * zeta * g0;
    // Piece 2: y(τ) = e^{−ζτ}·(y(0)·C(τ) + (y'(0) + ζ·y(0))·S(τ)) for y = x and y = g.
    let big_g = dg0 + zeta * g0;
    let (tau, c, sn) = if zeta < 1.0 {
        let w = (1.0 - zeta * zeta).sqrt();
        // First τ > 0 with g0·cos(wτ) + (G/w)·sin(wτ) = 0.
        let tau = (g0 * w).atan2(-big_g) / w;
        (tau, (w * tau).cos(), (w * tau).sin() / w)
    } else if zeta == 1.0 {
        if big_g >= 0.0 {
            return 0.0;
        }
        let tau = -g0 / big_g;
        (tau, 1.0, tau)
    } else {
        let q = (zeta * zeta - 1.0).sqrt();
        // tanh(qτ) = −g0·q/G.
        let r = -g0 * q / big_g;
        if big_g >= 0.0 || r >= 1.0 {
            return 0.0;
        }
        let tau = r.atanh() / q;
        (tau, (q * tau).cosh(), (q * tau).sinh() / q)
    };
    let x = (-zeta * tau).exp() * (x1 * c + (v1 + zeta * x1) * sn);
    x / (2.0 * zeta)
}

thread_local! {
    /// Recently solved (restitution, ζ) pairs on this thread, newest first: a scene has
    /// few material pairs. NaN marks an empty slot (never equal to a restitution).
    static ZETA_CACHE: std::cell::Cell<[(f64, f64); 4]> =
        const { std::cell::Cell::new([(f64::NAN, 0.0); 4]) };
}

/// Damping ratio for restitution `e` under the cap [`DAMPING_CAP`] (see
/// [`PairParams::damping_ratio`]): bisection of the decreasing [`impact_restitution`] on
/// `[0, MAX_DAMPING_RATIO]`, cached per thread.
pub fn damping_ratio_for(e: f64) -> f64 {
    if e >= 1.0 || e.is_nan() {
        return 0.0;
    }
    let cache = ZETA_CACHE.with(|c| c.get());
    if let Some(&(_, zeta)) = cache.iter().find(|(ce, _)| *ce == e) {
        return zeta;
    }
    let restitution = |zeta| impact_restitution(zeta, DAMPING_CAP);
    let zeta = if restitution(MAX_DAMPING_RATIO) >= e {
        MAX_DAMPING_RATIO
    } else {
        let (mut lo, mut hi) = (0.0, MAX_DAMPING_RATIO);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if restitution(mid) > e {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let mut next = [(e, zeta); 4];
    next[1..].copy_from_slice(&cache[..3]);
    ZETA_CACHE.with(|c| c.set(next));
    zeta
}

/// Exponents `p` of the pair force law `F ∝ δ^p` at which [`damping_ratio_power`]
/// calibrates ζ (linear interpolation in between): 1 (flat faces), 2 (curved patches of
/// [`super::patch`]), 3 (a vertex pressing a face) and the steps between.
pub const EXPONENTS: [f64; 9] = [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0];

/// Restitution coefficient [-] of one isolated impact under the power law with a capped
/// dashpot, `F = max(0, K·δ^p + min(c·δ̇, β·K·δ^p))` with `c = 2ζ·sqrt(m_eff·K_t)` and the
/// tangent stiffness `K_t = p·K·δ^(p−1)`. In the units `x = δ/δ₀`, `τ = t/t₀` the impact
/// reads `x'' = −max(0, x^p + min(2ζ·sqrt(p)·x^((p−1)/2)·x', β·x^p))`, `x(0) = 0`,
/// `x'(0) = 1`: homogeneous, so `e` does not depend on the impact speed (the form of
/// Tsuji's damping for Hertz, generalised to any `p`). `p = 1` is [`impact_restitution`]
/// (closed form); other exponents are integrated with classical RK4 (`Δτ = 1e-3`).
pub fn impact_restitution_power(zeta: f64, beta: f64, p: f64) -> f64 {
    if (p - 1.0).abs() < 1e-12 {
        return impact_restitution(zeta, beta);
    }
    if zeta.is_nan() || zeta <= 0.0 {
        return 1.0;
    }
    let force = |x: f64, v: f64| {
        let x = x.max(0.0);
        let spring = x.powf(p);
        let dash = 2.0 * zeta * p.sqrt() * x.powf(0.5 * (p - 1.0)) * v;
        (spring + dash.min(beta * spring)).max(0.0)
    };
    let h = 1e-3;
    let (mut x, mut v) = (0.0f64, 1.0f64);
    for _ in 0..200_000 {
        let k1 = (v, -force(x, v));
        let k2 = (
            v + 0.5 * h * k1.1,
            -force(x + 0.5 * h * k1.0, v + 0.5 * h * k1.1),
        );
        let k3 = (
            v + 0.5 * h * k2.1,
            -force(x + 0.5 * h * k2.0, v + 0.5 * h * k2.1),
        );
        let k4 = (v + h * k3.1, -force(x + h * k3.0, v + h * k3.1));
        x += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        v += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        if v < 0.0 && (x <= 0.0 || force(x, v) == 0.0) {
            return -v;
        }
    }
    0.0
}

thread_local! {
    /// ζ at every exponent of [`EXPONENTS`] for recently asked restitutions, newest first.
    static POWER_CACHE: std::cell::RefCell<Vec<(f64, [f64; EXPONENTS.len()])>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Damping ratio ζ [-] for which an isolated impact under the power law of exponent `p`
/// ([`impact_restitution_power`], cap [`DAMPING_CAP`]) rebounds with restitution `e`:
/// calibrated by bisection at the [`EXPONENTS`] (once per thread and restitution) and
/// interpolated linearly in `p` (clamped to `[1, 3]`). `p = 1` gives
/// [`damping_ratio_for`] exactly.
pub fn damping_ratio_power(e: f64, p: f64) -> f64 {
    if e >= 1.0 || e.is_nan() {
        return 0.0;
    }
    let p = if p.is_nan() { 1.0 } else { p.clamp(1.0, 3.0) };
    if p == 1.0 {
        return damping_ratio_for(e);
    }
    let table = POWER_CACHE.with(|c| c.borrow().iter().find(|(ce, _)| *ce == e).map(|x| x.1));
    let table = table.unwrap_or_else(|| {
        let mut t = [0.0; EXPONENTS.len()];
        for (slot, &q) in t.iter_mut().zip(EXPONENTS.iter()) {
            *slot = if q == 1.0 {
                damping_ratio_for(e)
            } else {
                let rest = |z| impact_restitution_power(z, DAMPING_CAP, q);
                if rest(MAX_DAMPING_RATIO) >= e {
                    MAX_DAMPING_RATIO
                } else {
                    let (mut lo, mut hi) = (0.0, MAX_DAMPING_RATIO);
                    for _ in 0..40 {
                        let mid = 0.5 * (lo + hi);
                        if rest(mid) > e {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                    0.5 * (lo + hi)
                }
            };
        }
        POWER_CACHE.with(|c| {
            let mut c = c.borrow_mut();
            c.insert(0, (e, t));
            c.truncate(4);
        });
        t
    });
    let pos = (p - 1.0) / 0.25;
    let i = (pos.floor() as usize).min(EXPONENTS.len() - 2);
    let f = pos - i as f64;
    table[i] * (1.0 - f) + table[i + 1] * f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::stability::STEPS_PER_PERIOD;

    #[test]
    fn power_law_calibration_inverts_restitution() {
        // p = 1 agrees with the closed form; every p gives back e.
        assert!(
            (impact_restitution_power(0.3, DAMPING_CAP, 1.0)
                - impact_restitution(0.3, DAMPING_CAP))
            .abs()
                < 1e-15
        );
        let rk = impact_restitution_power(0.3, DAMPING_CAP, 1.0 + 1e-9);
        assert!(
            (rk - impact_restitution(0.3, DAMPING_CAP)).abs() < 1e-6,
            "{rk}"
        );
        for e in [0.3, 0.5, 0.8] {
            for p in [1.5, 2.0, 3.0] {
                let z = damping_ratio_power(e, p);
                let back = impact_restitution_power(z, DAMPING_CAP, p);
                assert!(
                    (back - e).abs() < 1e-6,
                    "e = {e}, p = {p}: ζ = {z} gives {back}"
                );
            }
        }
        assert_eq!(damping_ratio_power(1.0, 2.0), 0.0);
        assert_eq!(damping_ratio_power(0.5, 1.0), damping_ratio_for(0.5));
    }

    /// Integrates the dimensionless impact `x'' = −max(0, x + min(2ζ·x', β·x))`,
    /// `x(0) = 0`, `x'(0) = 1` with classical RK4 at step `h` until the force has vanished
    /// on the way out, and returns `−x'` (independent check of the closed form).
    fn rk4_restitution(zeta: f64, beta: f64, h: f64) -> f64 {
        let force = |x: f64, v: f64| (x + (2.0 * zeta * v).min(beta * x)).max(0.0);
        let rhs = |x: f64, v: f64| (v, -force(x, v));
        let (mut x, mut v) = (0.0f64, 1.0f64);
        for _ in 0..(100.0 / h) as usize {
            let k1 = rhs(x, v);
            let k2 = rhs(x + 0.5 * h * k1.0, v + 0.5 * h * k1.1);
            let k3 = rhs(x + 0.5 * h * k2.0, v + 0.5 * h * k2.1);
            let k4 = rhs(x + h * k3.0, v + h * k3.1);
            x += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            v += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            // Once the force is 0 on the way out it stays 0: x' is final.
            if v < 0.0 && (x <= 0.0 || force(x, v) == 0.0) {
                break;
            }
        }
        -v
    }

    #[test]
    fn closed_form_matches_rk4_integration() {
        for beta in [0.0, 0.5, DAMPING_CAP, 4.0] {
            for zeta in [0.02, 0.3, 0.7, 0.999, 1.0, 1.001, 1.5, 3.0] {
                let (a, b) = (
                    impact_restitution(zeta, beta),
                    rk4_restitution(zeta, beta, 2.5e-4),
                );
                assert!(
                    (a - b).abs() < 1e-8 && a > 0.0 && a < 1.0,
                    "β = {beta}, ζ = {zeta}: {a} vs {b}"
                );
            }
        }
        assert_eq!(impact_restitution(0.0, DAMPING_CAP), 1.0);
    }

    #[test]
    fn damping_ratio_inverts_restitution() {
        // Five values: more than the cache holds, asked twice so that entries are evicted.
        for _ in 0..2 {
            for e in [0.15, 0.3, 0.5, 0.9, 0.999] {
                let z = damping_ratio_for(e);
                let back = impact_restitution(z, DAMPING_CAP);
                assert!((back - e).abs() < 1e-12, "{e}: ζ = {z} gives {back}");
                assert_eq!(damping_ratio_for(e), z);
            }
        }
        assert_eq!(damping_ratio_for(1.0), 0.0);
        assert_eq!(damping_ratio_for(1e-6), MAX_DAMPING_RATIO);
        let floor = impact_restitution(MAX_DAMPING_RATIO, DAMPING_CAP);
        assert!((floor - 0.109).abs() < 1e-3, "documented floor: {floor}");
        // e decreases strictly with ζ (the bisection relies on it).
        let mut prev = 1.0;
        for i in 1..=300 {
            let e = impact_restitution(MAX_DAMPING_RATIO * f64::from(i) / 300.0, DAMPING_CAP);
            assert!(e < prev, "not decreasing at step {i}");
            prev = e;
        }
    }

    /// Largest eigenvalue modulus of one Euler–Cromer step of `x'' = −K·x − D·x'` at
    /// dimensionless step `h`: the matrix `[[1 − h²K, h(1 − hD)], [−hK, 1 − hD]]`.
    fn spectral_radius(k: f64, d: f64, h: f64) -> f64 {
        let (a, b, c, dd) = (1.0 - h * h * k, h * (1.0 - h * d), -h * k, 1.0 - h * d);
        let (tr, det) = (a + dd, a * dd - b * c);
        let disc = tr * tr - 4.0 * det;
        if disc < 0.0 {
            det.sqrt()
        } else {
            0.5 * (tr.abs() + disc.sqrt())
        }
    }

    #[test]
    fn euler_cromer_is_stable_at_the_recommended_step() {
        let h = 2.0 * std::f64::consts::PI / STEPS_PER_PERIOD;
        // Dashpot piece at the largest ζ, capped piece (stiffer spring, no dashpot).
        assert!(spectral_radius(1.0, 2.0 * MAX_DAMPING_RATIO, h) < 1.0);
        assert!(spectral_radius(1.0 + DAMPING_CAP, 0.0, h) <= 1.0 + 1e-12);
        // The documented limits are sharp: slightly beyond them the step diverges.
        assert!(spectral_radius(1.0, 2.0 * 3.11, h) > 1.0);
        assert!(spectral_radius(1.0 + 41.0, 0.0, h) > 1.0);
    }
}
