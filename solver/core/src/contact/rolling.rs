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
