//! How one wrench moves a particle over a step under each [`PicardScheme`], and where the
//! scheme evaluates forces: implicit Euler moves with [`advance_body`] itself (bit for
//! bit) and evaluates at the end of the step; the implicit midpoint rule moves positions
//! with the average of the start and end velocities and evaluates at the midpoint state;
//! the θ-method ([`super::theta`]) lies between the two; the split scheme
//! ([`super::split`]) moves as the midpoint rule and evaluates the law at the midpoint pose
//! with the end velocities.

use crate::contact::force::{DampingCalibration, Wrench};
use crate::motion::advance_body;
use crate::params::PicardScheme;
use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// Moves `body` (its start-of-step state) over `dt` \[s\] under the wrench `w` and gravity
/// `g` [m/s²]:
///
/// * Euler: [`advance_body`] (Euler–Cromer: positions with the new velocities);
/// * midpoint: `v' = v + Δt·(w/M + g)`, `x' = x + Δt·(v + v')/2`, the angular velocity
///   alike (gyroscopic term at the start state), the orientation turned by
///   `Δt·(ω + ω')/2`. For a linear spring `w = −k·(x + x')/2` this is the midpoint rule,
///   which keeps the spring's energy for every Δt.
///
/// The θ-method: [`super::theta::advance`].
///
/// `theta` is the θ-method's implicitness ([`crate::params::PicardParams::implicitness`]);
/// the other schemes ignore it.
pub fn advance(scheme: PicardScheme, theta: f64, body: &mut Body, w: &Wrench, g: &Vec3, dt: f64) {
    match scheme {
        PicardScheme::Euler => {
            advance_body(body, w, g, dt);
            return;
        }
        PicardScheme::Theta => {
            super::theta::advance(theta, body, w, g, dt);
            return;
        }
        PicardScheme::Midpoint | PicardScheme::Split => {}
    }
    let (v0, omega0) = (body.velocity, body.angular_velocity);
    body.velocity += dt * (w.force / body.mass + g);
    let r = body.orientation.to_rotation_matrix();
    let r = r.matrix();
    let inertia_w = r * body.inertia * r.transpose();
    let inv_inertia_w = r * body.inv_inertia * r.transpose();
    let gyro = omega0.cross(&(inertia_w * omega0));
    body.angular_velocity += dt * (inv_inertia_w * (w.torque - gyro));
    body.position += dt * 0.5 * (v0 + body.velocity);
    let turn = Quat::from_scaled_axis(dt * 0.5 * (omega0 + body.angular_velocity));
    let q = turn * body.orientation;
    body.orientation = Quat::new_normalize(q.into_inner());
}

/// The state between `start` and `end` where `scheme` evaluates forces (not implicit
/// Euler's: it evaluates `end` itself): [`midpoint`], the θ-state
/// ([`super::theta::state`] with `theta`) or the split state ([`super::split::state`]).
pub fn evaluated(scheme: PicardScheme, theta: f64, start: &Body, end: &Body, dt: f64) -> Body {
    match scheme {
        PicardScheme::Theta => super::theta::state(theta, start, end, dt),
        PicardScheme::Split => super::split::state(start, end, dt),
        PicardScheme::Midpoint | PicardScheme::Euler => midpoint(start, end, dt),
    }
}

/// How far a wrench change `δW` moves the state where a scheme evaluates forces — its pose
/// by `position·Δt²·δW/M`, its velocities by `velocity·Δt·δW/M` — and how far that pose
/// drifts with the start velocity `v`, `drift·Δt·v`: the factors of the Newton-type
/// updates and of their linearly implicit first guess.
#[derive(Clone, Copy, Debug)]
pub struct Implicitness {
    /// `θ²` for the θ-family (1 Euler, ¼ midpoint), ¼ for the split scheme [-].
    pub position: f64,
    /// `θ` for the θ-family, 1 for the split scheme [-].
    pub velocity: f64,
    /// How far the evaluated pose drifts with the start velocity, per `Δt` (`θ` for the
    /// θ-family, ½ for the split scheme: the midpoint pose) [-].
    pub drift: f64,
    /// The dashpot's correction for the step (the split scheme's, `calibration.rs`).
    pub damping: Option<DampingCalibration>,
}

impl Implicitness {
    /// Of `scheme` with the θ-method's implicitness `theta` (others ignore it) at the
    /// step `dt` \[s\].
    pub fn of(scheme: PicardScheme, theta: f64, dt: f64) -> Implicitness {
        match scheme {
            PicardScheme::Split => Implicitness {
                position: 0.25,
                velocity: 1.0,
                drift: 0.5,
                damping: Some(super::calibration::split(dt)),
            },
            _ => Implicitness {
                position: theta * theta,
                velocity: theta,
                drift: theta,
                damping: None,
            },
        }
    }
}

/// The state between `start` and `end` where the midpoint rule evaluates forces: average
/// position and velocities, orientation turned half of the step's turn
/// `Δt·(ω + ω')/2` ([`advance`]).
pub fn midpoint(start: &Body, end: &Body, dt: f64) -> Body {
    let mut m = start.clone();
    m.position = 0.5 * (start.position + end.position);
    m.velocity = 0.5 * (start.velocity + end.velocity);
    m.angular_velocity = 0.5 * (start.angular_velocity + end.angular_velocity);
    let turn = Quat::from_scaled_axis(0.5 * dt * m.angular_velocity);
    m.orientation = Quat::new_normalize((turn * start.orientation).into_inner());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Body {
        Body::test_body()
    }

    /// A linear spring `F = −k·x` solved exactly per step (the fixed point of the
    /// midpoint rule, `x' = ((1 − a)·x + Δt·v)/(1 + a)` with `a = Δt²k/4M`, evaluated at
    /// the [`midpoint`] state) keeps the energy `½Mv² + ½kx²` to rounding for Δt = 10
    /// oscillation periods, while implicit Euler loses almost all of it in one step.
    #[test]
    fn midpoint_keeps_the_energy_of_a_spring_at_any_step() {
        let (k, m): (f64, f64) = (800.0, 2.0);
        let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
        let dt = 10.0 * period;
        let energy =
            |b: &Body| 0.5 * m * b.velocity.norm_squared() + 0.5 * k * b.position.norm_squared();
        for (scheme, keeps) in [(PicardScheme::Midpoint, true), (PicardScheme::Euler, false)] {
            let mut b = body();
            b.position.x = 0.1;
            let e0 = energy(&b);
            for _ in 0..20 {
                let s = b.clone();
                // Both schemes: x' = x + Δt·v + θΔt²·F/M with F at the evaluated state
                // x + θ·(x' − x), θ = 1 (Euler) or ½ (midpoint): solve the linear equation.
                let theta = scheme.theta();
                let a = theta * dt * dt * k / m;
                let x1 = (s.position.x * (1.0 - a * (1.0 - theta)) + dt * s.velocity.x)
                    / (1.0 + a * theta);
                let xe = s.position.x + theta * (x1 - s.position.x);
                let w = Wrench {
                    force: Vec3::new(-k * xe, 0.0, 0.0),
                    torque: Vec3::zeros(),
                };
                advance(scheme, theta, &mut b, &w, &Vec3::zeros(), dt);
                assert!(
                    (b.position.x - x1).abs() < 1e-9 * (1.0 + x1.abs()),
                    "{scheme:?}: {} vs {x1}",
                    b.position.x
                );
                if scheme == PicardScheme::Midpoint {
                    let mid = midpoint(&s, &b, dt);
                    assert!((mid.position.x - xe).abs() < 1e-12 * (1.0 + xe.abs()));
                }
            }
            let ratio = energy(&b) / e0;
            if keeps {
                assert!((ratio - 1.0).abs() < 1e-9, "{scheme:?}: {ratio}");
            } else {
                assert!(ratio < 1e-6, "{scheme:?}: {ratio}");
            }
        }
    }

    #[test]
    fn euler_is_advance_body_bit_for_bit() {
        let mut a = body();
        a.velocity = Vec3::new(0.3, -0.2, 0.1);
        a.angular_velocity = Vec3::new(1.0, 2.0, -0.5);
        let mut b = a.clone();
        let w = Wrench {
            force: Vec3::new(1.0, 2.0, 3.0),
            torque: Vec3::new(0.1, 0.0, -0.2),
        };
        let g = Vec3::new(0.0, 0.0, -9.81);
        advance(PicardScheme::Euler, 1.0, &mut a, &w, &g, 1e-3);
        advance_body(&mut b, &w, &g, 1e-3);
        assert_eq!(a.position, b.position);
        assert_eq!(a.velocity, b.velocity);
        assert_eq!(a.orientation, b.orientation);
        assert_eq!(a.angular_velocity, b.angular_velocity);
    }
}
