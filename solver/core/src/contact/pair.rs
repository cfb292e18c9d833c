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
    /// Margin `m = ε_a + ε_b` [m]: contact iff the triangle distance is ≤ `m`.
    pub margin: f64,
    /// Spring constant `K_s` [N·kg^-1/2].
    pub spring: f64,
    /// Effective mass `1/(1/M_a + 1/M_b)` [kg].
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

    /// Peak force of one contact, reached at distance 0: `K_s·sqrt(m_eff)` [N]
    /// (seed 000 §2).
    pub fn peak_force(&self) -> f64 {
        self.spring * self.effective_mass.sqrt()
    }

    /// Linear stiffness of the fade-in spring: `k = K_s·sqrt(m_eff)/m` [N/m], so that the
    /// force is `k·(m − d)` for a distance `d ∈ [0, m]`.
    pub fn stiffness(&self) -> f64 {
        self.peak_force() / self.margin
    }

    /// Damping ratio ζ of the linear spring–dashpot with restitution `e`:
    /// `ζ = −ln e / sqrt(π² + ln² e)` [-] (0 for `e = 1`).
    pub fn damping_ratio(&self) -> f64 {
        let e = self.restitution.clamp(1e-12, 1.0);
        let l = e.ln();
        -l / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt()
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
    /// the integral of the force law, `K_s·sqrt(m_eff)·(m − d)²/(2m)` [J]
    /// (0 outside the halo).
    pub fn spring_energy(&self, dist: f64) -> f64 {
        let overlap = (self.margin - dist).clamp(0.0, self.margin);
        0.5 * self.stiffness() * overlap * overlap
    }
}
