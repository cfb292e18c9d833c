//! Rolling resistance of a Hertz–Mindlin pair (`docs/design.md` §3, "Hertz–Mindlin"): the
//! constant directional torque (Ai et al. 2011, model A) `M_r = −μ_r·R*·F_n·ω̂_rel` on `a`
//! (`−M_r` on `b`), with `ω_rel = ω_a − ω_b`, `F_n` the pair's normal force and `R*` its
//! effective radius.
//!
//! Like friction it is regularised at small `|ω_rel|`: the torque is
//! `−μ_r·R*·F_n·ω_rel/max(|ω_rel|, ω_reg)` with `ω_reg = 2·Δt·w_r·μ_r·R*·F_n`, where
//! `w_r = ω̂ᵀ(I_a⁻¹ + I_b⁻¹)ω̂` is the pair's inverse moment of inertia about `ω̂`: below
//! `ω_reg` the torque at most halves the relative spin per explicit step, so a sphere at
//! rest does not rock.

use crate::state::Body;
use msdem_geom::math::Vec3;

/// Rolling-resistance torque on `a` [N·m] for the limit `μ_r·R*·F_n` `limit` [N·m]; `b`
/// is `None` for an obstacle; `dt` the time step \[s\].
pub fn rolling_torque(a: &Body, b: Option<&Body>, limit: f64, dt: f64) -> Vec3 {
    let mut omega = a.angular_velocity;
    if let Some(b) = b {
        omega -= b.angular_velocity;
    }
    let spin = omega.norm();
    if limit <= 0.0 || spin == 0.0 || spin.is_nan() {
        return Vec3::zeros();
    }
    let axis = omega / spin;
    let mut w = axis.dot(&(a.world_inv_inertia() * axis));
    if let Some(b) = b {
        w += axis.dot(&(b.world_inv_inertia() * axis));
    }
    let reg = 2.0 * dt * w * limit;
    -limit * omega / spin.max(reg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::{Mat3, Quat};

    fn spinning(omega: Vec3) -> Body {
        let inertia = Mat3::from_diagonal(&Vec3::new(0.02, 0.02, 0.04));
        Body {
            shape: 0,
            material: 0,
            mass: 5.0,
            inertia,
            inv_inertia: inertia.try_inverse().unwrap(),
            epsilon: 0.001,
            radius: 0.1,
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: omega,
        }
    }

    #[test]
    fn torque_opposes_the_relative_spin_and_never_overshoots_it() {
        let (limit, dt) = (0.3, 1e-4);
        // Fast spin: the full torque μ_r·R*·F_n against ω_rel.
        let a = spinning(Vec3::new(0.0, 5.0, 0.0));
        let b = spinning(Vec3::new(0.0, -1.0, 0.0));
        let t = rolling_torque(&a, Some(&b), limit, dt);
        assert!((t - Vec3::new(0.0, -limit, 0.0)).norm() < 1e-12);
        // Co-rotating bodies roll without relative spin: no torque.
        assert_eq!(
            rolling_torque(&a, Some(&a.clone()), limit, dt),
            Vec3::zeros()
        );
        // Slow spin against an obstacle: one explicit step removes at most half of it.
        for w in [1e-1, 1e-3, 1e-6] {
            let s = spinning(Vec3::new(w, 0.0, 0.0));
            let t = rolling_torque(&s, None, limit, dt);
            let dw = dt * (s.world_inv_inertia() * t).x;
            assert!(dw < 0.0 && -dw <= 0.5 * w * (1.0 + 1e-12), "{w}: {dw}");
            assert!(t.norm() <= limit * (1.0 + 1e-12));
        }
    }
}
