//! The θ-method move of one particle over a step (see [`PicardScheme`]): implicit Euler
//! (θ = 1) is [`advance_body`] itself, bit for bit; the trapezoidal rule (θ = ½) moves
//! with the average of the start and end velocities.

use crate::contact::force::Wrench;
use crate::motion::advance_body;
use crate::params::PicardScheme;
use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// The wrench that moves a particle over the step: `(1 − θ)·F₀ + θ·W` for the
/// start-of-step forces `F₀` and the iterated end-of-step wrench `W` (implicit Euler:
/// `W`).
pub fn applied(scheme: PicardScheme, start: &Wrench, end: &Wrench) -> Wrench {
    match scheme {
        PicardScheme::Euler => *end,
        PicardScheme::Trapezoidal => Wrench {
            force: 0.5 * (start.force + end.force),
            torque: 0.5 * (start.torque + end.torque),
        },
    }
}

/// Moves `body` (its start-of-step state) over `dt` \[s\] under the applied wrench `w`
/// ([`applied`]) and gravity `g` [m/s²]:
///
/// * Euler: [`advance_body`] (Euler–Cromer: positions with the new velocities);
/// * trapezoidal: `v' = v + Δt·(w/M + g)`, `x' = x + Δt·(v + v')/2`, the angular velocity
///   alike (gyroscopic term at the start state), the orientation turned by
///   `Δt·(ω + ω')/2`. For a linear spring `w = −k·(x + x')/2` this is the trapezoidal
///   rule, which keeps the spring's energy for every Δt.
pub fn advance(scheme: PicardScheme, body: &mut Body, w: &Wrench, g: &Vec3, dt: f64) {
    if scheme == PicardScheme::Euler {
        advance_body(body, w, g, dt);
        return;
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

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Mat3;

    fn body() -> Body {
        Body {
            shape: 0,
            material: 0,
            mass: 2.0,
            inertia: Mat3::identity(),
            inv_inertia: Mat3::identity(),
            epsilon: 0.01,
            radius: 1.0,
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }

    /// A linear spring `F = −k·x` solved exactly per step (the fixed point of the
    /// trapezoidal rule, `x' = ((1 − a)·x + Δt·v)/(1 + a)` with `a = Δt²k/4M`) keeps the
    /// energy `½Mv² + ½kx²` to rounding for Δt = 10 oscillation periods, while implicit
    /// Euler loses almost all of it in one step.
    #[test]
    fn trapezoidal_keeps_the_energy_of_a_spring_at_any_step() {
        let (k, m): (f64, f64) = (800.0, 2.0);
        let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
        let dt = 10.0 * period;
        let energy =
            |b: &Body| 0.5 * m * b.velocity.norm_squared() + 0.5 * k * b.position.norm_squared();
        for (scheme, keeps) in [
            (PicardScheme::Trapezoidal, true),
            (PicardScheme::Euler, false),
        ] {
            let mut b = body();
            b.position.x = 0.1;
            let e0 = energy(&b);
            for _ in 0..20 {
                let s = b.clone();
                // Exact fixed point of the step by iteration on the linear map (contraction
                // is not needed: solve the 1-D linear equation directly).
                let theta = scheme.theta();
                // x' = x + Δt·((1−θ)v + θ v'), v' = v + Δt·((1−θ)F₀ + θF')/M, F = −kx
                let a = theta * theta * dt * dt * k / m;
                let f0 = -k * s.position.x;
                let x1 =
                    (s.position.x + dt * s.velocity.x + theta * dt * dt * (1.0 - theta) * f0 / m)
                        / (1.0 + a);
                let w_end = Wrench {
                    force: Vec3::new(-k * x1, 0.0, 0.0),
                    torque: Vec3::zeros(),
                };
                let w_start = Wrench {
                    force: Vec3::new(f0, 0.0, 0.0),
                    torque: Vec3::zeros(),
                };
                advance(
                    scheme,
                    &mut b,
                    &applied(scheme, &w_start, &w_end),
                    &Vec3::zeros(),
                    dt,
                );
                assert!((b.position.x - x1).abs() < 1e-12 * (1.0 + x1.abs()));
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
        advance(PicardScheme::Euler, &mut a, &w, &g, 1e-3);
        advance_body(&mut b, &w, &g, 1e-3);
        assert_eq!(a.position, b.position);
        assert_eq!(a.velocity, b.velocity);
        assert_eq!(a.orientation, b.orientation);
        assert_eq!(a.angular_velocity, b.angular_velocity);
    }
}
