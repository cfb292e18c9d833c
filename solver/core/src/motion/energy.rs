//! Conserved and monitored quantities of the body state: kinetic and gravitational
//! energy, linear and angular momentum (statistics of seed 000 §6 runs, docs/design.md §6).

use crate::state::Body;
use msdem_geom::math::Vec3;

/// Energies and momenta of a set of bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Observables {
    /// Kinetic energy, translational + rotational `½Mv² + ½ωᵀI_wω` \[J\].
    pub kinetic: f64,
    /// Potential energy in the gravity field `−Σ M g·x` \[J\] (zero at the origin).
    pub potential: f64,
    /// Total linear momentum `Σ M v` [kg·m/s].
    pub linear_momentum: Vec3,
    /// Total angular momentum about the origin `Σ (x × Mv + I_w ω)` [kg·m²/s].
    pub angular_momentum: Vec3,
}

/// The terms one particle adds to the [`Observables`]: the summands of [`observables`],
/// so that a sum over particles split across processes (the distributed statistics of
/// `crate::distributed`) can be redone in particle order with the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParticleTerms {
    /// `½Mv² + ½ωᵀI_wω` \[J\].
    pub kinetic: f64,
    /// `M g·x` \[J\] (subtracted from the potential energy).
    pub weight_height: f64,
    /// `M v` [kg·m/s].
    pub momentum: [f64; 3],
    /// `x × Mv + I_w ω` [kg·m²/s].
    pub angular_momentum: [f64; 3],
}

/// The [`ParticleTerms`] of body `b` in the gravity field `g` [m/s²].
pub fn particle_terms(b: &Body, g: &Vec3) -> ParticleTerms {
    let r = b.orientation.to_rotation_matrix();
    let spin = r.matrix() * (b.inertia * (r.matrix().transpose() * b.angular_velocity));
    let p = b.mass * b.velocity;
    ParticleTerms {
        kinetic: 0.5 * p.dot(&b.velocity) + 0.5 * b.angular_velocity.dot(&spin),
        weight_height: b.mass * g.dot(&b.position),
        momentum: p.into(),
        angular_momentum: (b.position.cross(&p) + spin).into(),
    }
}

impl Observables {
    /// Adds one particle's terms (the step of the sum in [`observables`]).
    pub fn add(&mut self, t: &ParticleTerms) {
        self.kinetic += t.kinetic;
        self.potential -= t.weight_height;
        self.linear_momentum += Vec3::from(t.momentum);
        self.angular_momentum += Vec3::from(t.angular_momentum);
    }
}

/// Observables of `bodies` in the gravity field `g` [m/s²]: the [`ParticleTerms`]
/// summed in body order.
pub fn observables(bodies: &[Body], g: &Vec3) -> Observables {
    let mut o = Observables::default();
    for b in bodies {
        o.add(&particle_terms(b, g));
    }
    o
}
