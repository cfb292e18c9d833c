//! Per-pair contact parameters: margin, effective mass and the pair's material values.
//!
//! Combination rules (documented choice; seed 000 §2 gives one material only):
//! * particle–particle: spring `K_s`, friction `μ` and restitution `e` are the arithmetic
//!   means of the two materials' values (equal materials keep their value);
//! * particle–obstacle: `K_s` is the particle material's spring (obstacles carry none);
//!   `μ` and `e` are the obstacle's own values, which the scenario declares "against
//!   particles".
//!
//! The margin is `m = ε_a + ε_b` (= 2ε for equal halos), the effective mass
//! `m_eff = 1/(1/M_a + 1/M_b)` with `1/M = 0` for obstacles (seed 000 §2).

use crate::frames::Other;
use crate::world::World;

/// Relative distance below which `(p − q)/|p − q|` is not trusted as a normal and the
/// robust fallback normal is used instead (fraction of the margin) [-].
pub const TINY_DISTANCE: f64 = 1e-4;

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
}

impl PairParams {
    /// Parameters of the pair (`a`, `b`) of `world` (`a` is a particle id; ids must be
    /// valid, as produced by the broad phase).
    pub fn of(world: &World, a: u32, b: Other) -> PairParams {
        let ba = &world.bodies[a as usize];
        let ma = &world.materials[ba.material as usize];
        match b {
            Other::Particle(j) => {
                let bb = &world.bodies[j as usize];
                let mb = &world.materials[bb.material as usize];
                PairParams {
                    margin: ba.epsilon + bb.epsilon,
                    spring: 0.5 * (ma.spring + mb.spring),
                    effective_mass: 1.0 / (1.0 / ba.mass + 1.0 / bb.mass),
                    friction: 0.5 * (ma.friction + mb.friction),
                    restitution: 0.5 * (ma.restitution + mb.restitution),
                }
            }
            Other::Obstacle(o) => {
                let ob = &world.obstacles[o as usize];
                PairParams {
                    margin: ba.epsilon + ob.epsilon,
                    spring: ma.spring,
                    effective_mass: ba.mass,
                    friction: ob.friction,
                    restitution: ob.restitution,
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

    /// Damping ratio ζ of the contact dashpot: the ζ for which an isolated impact of the
    /// clamped (never attractive) linear spring–dashpot rebounds with exactly the pair's
    /// restitution `e` ([`no_tension_restitution`] inverted by bisection) [-]. 0 for
    /// `e = 1`; restitutions below `no_tension_restitution(MAX_DAMPING_RATIO)` ≈ 0.024
    /// are realised with ζ = [`MAX_DAMPING_RATIO`].
    pub fn damping_ratio(&self) -> f64 {
        damping_ratio_for(self.restitution)
    }

    /// Normal damping coefficient `c = 2ζ·sqrt(k·m_eff)` [N·s/m].
    pub fn damping(&self) -> f64 {
        2.0 * self.damping_ratio() * (self.stiffness() * self.effective_mass).sqrt()
    }

    /// Angular frequency of the undamped contact oscillation
    /// `ω = sqrt(k/m_eff) = sqrt(K_s·sqrt(m_eff)/(m·m_eff))` [rad/s].
    pub fn angular_frequency(&self) -> f64 {
        (self.stiffness() / self.effective_mass).sqrt()
    }

    /// Potential energy stored in one contact's spring at triangle distance `dist`:
    /// the integral of the force law, `K_s·sqrt(m_eff)·(m − d)²/(2m)` \[J\]
    /// (0 outside the halo).
    pub fn spring_energy(&self, dist: f64) -> f64 {
        let overlap = (self.margin - dist).clamp(0.0, self.margin);
        0.5 * self.stiffness() * overlap * overlap
    }
}

/// Largest damping ratio used (keeps the dashpot stable at the step of
/// [`crate::integrate::stable_dt_estimate`], where `2ζ·ω·Δt < 2` needs ζ < 3.2).
pub const MAX_DAMPING_RATIO: f64 = 3.0;

/// Restitution of one impact of the linear spring–dashpot `F = k·δ + c·δ̇` with damping
/// ratio `zeta` when the force is clamped at zero instead of turning attractive: the
/// contact ends when `k·δ + c·δ̇ = 0`, earlier than `δ = 0`, so the rebound is faster than
/// the textbook `exp(−ζπ/sqrt(1 − ζ²))` (Schwager & Pöschel's no-tension result, derived
/// here from the closed-form oscillator solution).
pub fn no_tension_restitution(zeta: f64) -> f64 {
    if zeta <= 0.0 {
        return 1.0;
    }
    if (zeta - 1.0).abs() < 1e-9 {
        // Critical damping: δ ∝ t·e^{−ωt}, force zero at ωt = 2.
        return (-2.0f64).exp();
    }
    if zeta < 1.0 {
        let s = (1.0 - zeta * zeta).sqrt();
        let th = std::f64::consts::PI - (2.0 * zeta * s).atan2(1.0 - 2.0 * zeta * zeta);
        -(-zeta * th / s).exp() * (th.cos() - zeta / s * th.sin())
    } else {
        let q = (zeta * zeta - 1.0).sqrt();
        let phi = (2.0 * zeta * q / (2.0 * zeta * zeta - 1.0)).atanh();
        -(-zeta * phi / q).exp() * (phi.cosh() - zeta / q * phi.sinh())
    }
}

thread_local! {
    /// Last (restitution, ζ) solved on this thread: most contacts share one material pair.
    static LAST_ZETA: std::cell::Cell<(f64, f64)> = const { std::cell::Cell::new((1.0, 0.0)) };
}

/// Damping ratio for restitution `e` (see [`PairParams::damping_ratio`]).
pub fn damping_ratio_for(e: f64) -> f64 {
    if e >= 1.0 || e.is_nan() {
        return 0.0;
    }
    let (last_e, last_zeta) = LAST_ZETA.with(|c| c.get());
    if last_e == e {
        return last_zeta;
    }
    let (mut lo, mut hi) = (0.0, MAX_DAMPING_RATIO);
    if no_tension_restitution(hi) >= e {
        return hi;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if no_tension_restitution(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let zeta = 0.5 * (lo + hi);
    LAST_ZETA.with(|c| c.set((e, zeta)));
    zeta
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integrates one isolated clamped spring–dashpot impact finely and returns the
    /// rebound ratio (independent check of the closed form).
    fn simulate(zeta: f64) -> f64 {
        let (k, m) = (1.0f64, 1.0f64);
        let c = 2.0 * zeta * (k * m).sqrt();
        let (mut x, mut v, dt) = (0.0f64, 1.0f64, 1e-6);
        loop {
            let f = (k * x + c * v).max(0.0);
            v -= dt * f / m;
            x += dt * v;
            if x <= 0.0 || (f == 0.0 && v < 0.0) {
                return -v;
            }
        }
    }

    #[test]
    fn closed_form_matches_integration() {
        for z in [0.0, 0.1, 0.358, 0.7, 1.0, 1.5, 3.0] {
            let (a, b) = (no_tension_restitution(z), simulate(z));
            assert!((a - b).abs() < 1e-4, "ζ = {z}: {a} vs {b}");
        }
    }

    #[test]
    fn damping_ratio_inverts_restitution() {
        for e in [0.05, 0.3, 0.5, 0.9, 0.999] {
            let z = damping_ratio_for(e);
            assert!((no_tension_restitution(z) - e).abs() < 1e-9, "{e}");
            assert_eq!(damping_ratio_for(e), z);
        }
        assert_eq!(damping_ratio_for(1.0), 0.0);
        assert_eq!(damping_ratio_for(1e-6), MAX_DAMPING_RATIO);
        assert!(damping_ratio_for(0.3) > damping_ratio_for(0.6));
    }
}
