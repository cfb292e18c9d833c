//! The θ-method ([`PicardScheme::Theta`], θ = `picard.theta`, default
//! [`crate::params::THETA`]): how it moves a particle, where
//! it evaluates forces, and how the linear law's spring acts over a step under linearised
//! contacts (docs/design.md §6, "θ-method").
//!
//! Every particle moves with one wrench `W` over the step: `v' = v + Δt·(W/M + g)` (the
//! angular velocity alike, gyroscopic term at the start state), `x' = x + Δt·v_θ` with
//! `v_θ = (1 − θ)·v + θ·v'`, the orientation turned by `Δt·ω_θ`; `W` is evaluated at the
//! θ-state `x_θ = x + θ·(x' − x)`, `v_θ` (orientation turned by `θ·Δt·ω_θ`). A wrench change
//! `δW` moves the θ-state by `θ²Δt²·δW/M` and its velocity by `θΔt·δW/M`, the
//! implicitness every update of the parent module takes from [`PicardScheme::theta`].
//!
//! **Why θ slightly above ½.** At ten times the explicit step an impact lasts one or two
//! steps. Implicit Euler (θ = 1) is L-stable and leaves ≈ 0.03–0.05 of the approach speed
//! whatever the law's restitution `e`; the midpoint rule (θ = ½) keeps an undamped
//! spring's energy but is not L-stable, so the dashpot alone maps the approach speed by
//! `(1 − ζωΔt)/(1 + ζωΔt)`, negative at `ωΔt = π`, and an `e = 0.4` impact rebounds with
//! 0.59 on average over where in the step it begins. The θ-method's own damping of a
//! closed contact grows with `ωΔt` like the dashpot's failure does, so at θ = 0.55 the
//! mean rebound at 10× is 0.43 for `e = 0.4` (1-D model, `tools/models/discrete_impact.py`).

use crate::contact::force::Wrench;
use crate::params::PicardScheme;
use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// Moves `body` (its start-of-step state) over `dt` \[s\] under the wrench `w` and gravity
/// `g` [m/s²] by the θ-method with implicitness `theta` (module docs).
pub fn advance(theta: f64, body: &mut Body, w: &Wrench, g: &Vec3, dt: f64) {
    let (v0, omega0) = (body.velocity, body.angular_velocity);
    body.velocity += dt * (w.force / body.mass + g);
    let r = body.orientation.to_rotation_matrix();
    let r = r.matrix();
    let inertia_w = r * body.inertia * r.transpose();
    let inv_inertia_w = r * body.inv_inertia * r.transpose();
    let gyro = omega0.cross(&(inertia_w * omega0));
    body.angular_velocity += dt * (inv_inertia_w * (w.torque - gyro));
    body.position += dt * ((1.0 - theta) * v0 + theta * body.velocity);
    let turn =
        Quat::from_scaled_axis(dt * ((1.0 - theta) * omega0 + theta * body.angular_velocity));
    let q = turn * body.orientation;
    body.orientation = Quat::new_normalize(q.into_inner());
}

/// The θ-state between `start` and `end` (reached by [`advance`] over `dt` \[s\]) where the
/// θ-method evaluates forces: `x + θ·(x' − x)`, velocities `(1 − θ)·v + θ·v'`, the
/// orientation turned by `θ·Δt·ω_θ`.
pub fn state(theta: f64, start: &Body, end: &Body, dt: f64) -> Body {
    let mut m = start.clone();
    m.position = start.position + theta * (end.position - start.position);
    m.velocity = (1.0 - theta) * start.velocity + theta * end.velocity;
    m.angular_velocity = (1.0 - theta) * start.angular_velocity + theta * end.angular_velocity;
    let turn = Quat::from_scaled_axis(theta * dt * m.angular_velocity);
    m.orientation = Quat::new_normalize((turn * start.orientation).into_inner());
    m
}

/// The spring force per unit stiffness \[m\] (an overlap) with which the linear law acts
/// over a step of the θ-method whose halo overlap goes from `o0` to `o1` \[m\], given the
/// discrete gradient `gradient` \[m\] of its potential between them
/// (`linearised.rs`): `(2 − 2θ)·gradient + (2θ − 1)·clamp(o1, 0, margin)`. While the
/// contact stays closed below the cap this is `(1 − θ)·o0 + θ·o1`, the θ-state's overlap;
/// its work over the step is never more than the potential's change (the end-of-step part
/// `k·o1·(o1 − o0)` is at least `k·(U(o1) − U(o0))` for the convex `U`), so a contact that
/// opens or closes within a step gains no energy. θ = ½ is the discrete gradient itself.
pub fn spring_overlap(theta: f64, gradient: f64, o1: f64, margin: f64) -> f64 {
    (2.0 - 2.0 * theta) * gradient + (2.0 * theta - 1.0) * o1.clamp(0.0, margin)
}

/// Whether `scheme` evaluates forces between the start and the end of a step (the
/// midpoint rule and the θ-method) rather than at the end (implicit Euler).
pub fn evaluates_inside(scheme: PicardScheme) -> bool {
    scheme != PicardScheme::Euler
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::THETA;

    fn body() -> Body {
        Body::test_body()
    }

    /// An undamped linear spring `F = −k·x` solved exactly per step at `ωΔt = π` (ten
    /// times the explicit step): [`advance`] and [`state`] reproduce the θ-method's linear
    /// map, and the energy falls by the analytic factor `(1 + (1 − θ)²h²)/(1 + θ²h²)` per
    /// step (`h = ωΔt`), between the midpoint rule's 1 and implicit Euler's `1/(1 + h²)`.
    #[test]
    fn theta_damps_an_undamped_spring_by_its_analytic_factor() {
        let (k, m): (f64, f64) = (800.0, 2.0);
        let omega = (k / m).sqrt();
        let dt = std::f64::consts::PI / omega; // ωΔt = π: ten times the explicit step
        let h = omega * dt;
        let theta = THETA;
        let energy =
            |b: &Body| 0.5 * m * b.velocity.norm_squared() + 0.5 * k * b.position.norm_squared();
        let mut b = body();
        b.position.x = 0.1;
        let e0 = energy(&b);
        let steps = 10;
        for _ in 0..steps {
            let s = b.clone();
            // x' = x + Δt·v + θΔt²·F/M with F = −k·x_θ, x_θ = x + θ(x' − x): linear in x'.
            let a = theta * dt * dt * k / m;
            let x1 =
                (s.position.x * (1.0 - a * (1.0 - theta)) + dt * s.velocity.x) / (1.0 + a * theta);
            let xt = s.position.x + theta * (x1 - s.position.x);
            let w = Wrench {
                force: Vec3::new(-k * xt, 0.0, 0.0),
                torque: Vec3::zeros(),
            };
            advance(theta, &mut b, &w, &Vec3::zeros(), dt);
            assert!((b.position.x - x1).abs() < 1e-9 * (1.0 + x1.abs()));
            let st = state(theta, &s, &b, dt);
            assert!((st.position.x - xt).abs() < 1e-12 * (1.0 + xt.abs()));
        }
        // The map on (x, v/ω) is a scaled rotation: its determinant, the per-step energy
        // factor, is (1 + (1 − θ)²h²)/(1 + θ²h²) (θ-method on x'' = −ω²x).
        let per_step = (1.0 + (1.0 - theta).powi(2) * h * h) / (1.0 + theta * theta * h * h);
        let want = per_step.powi(steps);
        let ratio = energy(&b) / e0;
        assert!(
            (ratio / want - 1.0).abs() < 1e-9,
            "energy ratio {ratio} vs analytic {want}"
        );
        assert!(ratio < 0.1 && ratio > 1e-3, "{ratio}");
    }

    /// θ = ½ is the midpoint rule's discrete gradient; θ = 1 the end-of-step spring; a
    /// closed contact gets the θ-state's overlap.
    #[test]
    fn the_spring_blend_interpolates_between_the_gradient_and_the_end() {
        let margin = 1.0;
        assert_eq!(spring_overlap(0.5, 0.3, 0.8, margin), 0.3);
        assert_eq!(spring_overlap(1.0, 0.3, 0.8, margin), 0.8);
        // Closed, below the cap: gradient = (o0 + o1)/2.
        let (o0, o1) = (0.2, 0.6);
        let g = 0.5 * (o0 + o1);
        let want = (1.0 - THETA) * o0 + THETA * o1;
        assert!((spring_overlap(THETA, g, o1, margin) - want).abs() < 1e-15);
    }
}
