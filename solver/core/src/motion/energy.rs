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

/// Observables of `bodies` in the gravity field `g` [m/s²].
pub fn observables(bodies: &[Body], g: &Vec3) -> Observables {
    let mut o = Observables::default();
    for b in bodies {
        let r = b.orientation.to_rotation_matrix();
        let spin = r.matrix() * (b.inertia * (r.matrix().transpose() * b.angular_velocity));
        let p = b.mass * b.velocity;
        o.kinetic += 0.5 * p.dot(&b.velocity) + 0.5 * b.angular_velocity.dot(&spin);
        o.potential -= b.mass * g.dot(&b.position);
        o.linear_momentum += p;
        o.angular_momentum += b.position.cross(&p) + spin;
    }
    o
}
