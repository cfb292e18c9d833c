//! Explicit Euler time integration of rigid bodies (seed 000 Alg. 1), kept separate from
//! contact detection so that other integrators (implicit Picard, local time stepping) can
//! reuse the "contacts → forces" stage and advance bodies individually.
//!
//! Ordering is **Euler–Cromer** (the permutation the paper mentions after Alg. 1):
//! velocities are updated first from the forces at the current state, then positions and
//! orientations move with the *new* velocities:
//!
//! ```text
//! v ← v + Δt·(F/M + g)
//! ω ← ω + Δt·I_w⁻¹(τ − ω × I_w ω),   I_w = R I Rᵀ
//! x ← x + Δt·v
//! q ← normalise(exp(½ Δt ω) ⊗ q)
//! ```
//!
//! Bodies carry no time: the caller advances the clock, so per-particle time stamps stay
//! possible.

pub mod energy;

use crate::contact::force::Wrench;
use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// Advances one body by `dt` \[s\] under the wrench `w` and gravity `g` [m/s²]
/// (Euler–Cromer, see the module docs).
pub fn advance_body(body: &mut Body, w: &Wrench, g: &Vec3, dt: f64) {
    body.velocity += dt * (w.force / body.mass + g);
    let r = body.orientation.to_rotation_matrix();
    let r = r.matrix();
    let inertia_w = r * body.inertia * r.transpose();
    let inv_inertia_w = r * body.inv_inertia * r.transpose();
    let omega = body.angular_velocity;
    let gyro = omega.cross(&(inertia_w * omega));
    body.angular_velocity += dt * (inv_inertia_w * (w.torque - gyro));
    body.position += dt * body.velocity;
    let turn = Quat::from_scaled_axis(dt * body.angular_velocity);
    let q = turn * body.orientation;
    body.orientation = Quat::new_normalize(q.into_inner());
}

/// Advances every body with its wrench (indexed like `bodies`); see [`advance_body`].
pub fn explicit_euler(bodies: &mut [Body], wrenches: &[Wrench], g: &Vec3, dt: f64) {
    for (body, w) in bodies.iter_mut().zip(wrenches) {
        advance_body(body, w, g, dt);
    }
}

/// The first body (id, quantity name) whose state holds a NaN or infinity, if any.
pub fn first_non_finite(bodies: &[Body]) -> Option<(u32, &'static str)> {
    bodies.iter().enumerate().find_map(|(i, b)| {
        let bad = if !b.position.iter().all(|x| x.is_finite()) {
            "position"
        } else if !b.orientation.coords.iter().all(|x| x.is_finite()) {
            "orientation"
        } else if !b.velocity.iter().all(|x| x.is_finite()) {
            "velocity"
        } else if !b.angular_velocity.iter().all(|x| x.is_finite()) {
            "angular velocity"
        } else {
            return None;
        };
        Some((i as u32, bad))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Mat3;

    fn body(inertia: Mat3) -> Body {
        Body {
            shape: 0,
            material: 0,
            mass: 2.0,
            inertia,
            inv_inertia: inertia.try_inverse().unwrap(),
            epsilon: 0.01,
            radius: 1.0,
            position: Vec3::new(1.0, 2.0, 3.0),
            orientation: Quat::identity(),
            velocity: Vec3::new(0.5, 0.0, 0.0),
            angular_velocity: Vec3::zeros(),
        }
    }

    #[test]
    fn euler_cromer_uses_the_new_velocity() {
        let mut b = body(Mat3::identity());
        let w = Wrench {
            force: Vec3::new(0.0, 4.0, 0.0),
            torque: Vec3::zeros(),
        };
        advance_body(&mut b, &w, &Vec3::new(0.0, 0.0, -10.0), 0.1);
        assert!((b.velocity - Vec3::new(0.5, 0.2, -1.0)).norm() < 1e-14);
        assert!((b.position - Vec3::new(1.05, 2.02, 2.9)).norm() < 1e-14);
    }

    #[test]
    fn constant_spin_rotates_by_omega_dt_and_keeps_unit_norm() {
        let mut b = body(Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0)));
        b.angular_velocity = Vec3::new(0.0, 0.0, 2.0);
        for _ in 0..1000 {
            advance_body(&mut b, &Wrench::default(), &Vec3::zeros(), 1e-3);
        }
        // Spin about a principal axis: no gyroscopic torque, angle 2 rad.
        assert!((b.angular_velocity - Vec3::new(0.0, 0.0, 2.0)).norm() < 1e-12);
        assert!((b.orientation.angle() - 2.0).abs() < 1e-9);
        assert!((b.orientation.norm() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn torque_free_spin_keeps_angular_momentum_to_first_order() {
        let inertia = Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0));
        let run = |dt: f64| {
            let mut b = body(inertia);
            b.angular_velocity = Vec3::new(1.0, 0.1, 0.5);
            let l0 = inertia * b.angular_velocity;
            let n = (1.0 / dt).round() as usize;
            for _ in 0..n {
                advance_body(&mut b, &Wrench::default(), &Vec3::zeros(), dt);
            }
            let r = b.orientation.to_rotation_matrix();
            let l = r.matrix() * inertia * r.matrix().transpose() * b.angular_velocity;
            (l - l0).norm()
        };
        let (e1, e2) = (run(1e-3), run(5e-4));
        assert!(e1 < 1e-2, "{e1}");
        assert!(e2 < 0.6 * e1, "error must shrink with dt: {e1} → {e2}");
    }

    #[test]
    fn non_finite_state_is_found_with_its_quantity() {
        let mut bodies = vec![body(Mat3::identity()); 3];
        assert_eq!(first_non_finite(&bodies), None);
        bodies[2].angular_velocity.y = f64::INFINITY;
        bodies[1].velocity.x = f64::NAN;
        assert_eq!(first_non_finite(&bodies), Some((1, "velocity")));
    }
}
