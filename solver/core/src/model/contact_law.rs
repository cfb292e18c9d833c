//! Which contact law a material uses: the seed's fade-in spring (seed 000 §2) or
//! Hertz–Mindlin (Hertz's elastic sphere contact with rolling resistance; `docs/design.md`
//! §3, "Hertz–Mindlin").

/// Elastic constants of a body's material for Hertz's contact law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elastic {
    /// Young's modulus `E` \[Pa\], > 0; `f64::INFINITY` for a rigid body (an obstacle
    /// without elastic keys).
    pub youngs_modulus: f64,
    /// Poisson's ratio `ν` in (−1, 0.5) \[-\].
    pub poisson_ratio: f64,
}

impl Elastic {
    /// A rigid body: `E = ∞`, so it adds nothing to the pair's compliance.
    pub const RIGID: Elastic = Elastic {
        youngs_modulus: f64::INFINITY,
        poisson_ratio: 0.0,
    };

    /// Compliance `(1 − ν²)/E` [1/Pa] (0 for a rigid body).
    pub fn compliance(&self) -> f64 {
        if self.youngs_modulus.is_infinite() {
            0.0
        } else {
            (1.0 - self.poisson_ratio * self.poisson_ratio) / self.youngs_modulus
        }
    }
}

impl Default for Elastic {
    fn default() -> Self {
        Elastic::RIGID
    }
}

/// The contact law of a particle material.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ContactLaw {
    /// The seed's fade-in spring `K_s·sqrt(m_eff)·(1 − d/m)` (seed 000 §2).
    #[default]
    Seed,
    /// Hertz's normal force `4/3·E*·sqrt(R*)·δ^{3/2}` with the restitution dashpot,
    /// regularised Coulomb friction and constant-torque rolling resistance
    /// ([`crate::contact::hertz`], [`crate::contact::rolling`]).
    HertzMindlin {
        /// Young's modulus and Poisson's ratio.
        elastic: Elastic,
        /// Rolling friction coefficient `μ_r` \[-\], ≥ 0.
        rolling_friction: f64,
    },
}
