//! Time-step guidance for the explicit integrator and the seed 000 §2 force law.
//!
//! The fade-in spring `F = K_s·sqrt(m_eff)·(1 − d/m)` is linear in the halo overlap
//! `δ = m − d` with stiffness `k = K_s·sqrt(m_eff)/m`, so a contact oscillates with
//! `ω² = k/m_eff = K_s·sqrt(m_eff)/(m·m_eff)` and an impact lasts about half a period
//! `π/ω`. Explicit (Euler–Cromer) integration is stable for `ω·Δt < 2` per contact, and
//! resolves the impact only for `Δt ≪ π/ω`.
//!
//! A second limit is physical, not numerical: the halo can store at most
//! `½·K_s·sqrt(m_eff)·m` of energy per contact, so an impact with normal speed `v` is
//! stopped inside the halo only if `½·m_eff·v² ≲ ½·K_s·sqrt(m_eff)·m`, i.e.
//! `K_s ≳ sqrt(m_eff)·v²/m`; faster impacts drive the meshes into each other.

use super::pair::PairParams;
use crate::model::{Model, Other};
use crate::state::Body;

/// Steps per contact period `2π/ω` that [`stable_dt_estimate`] aims at.
pub const STEPS_PER_PERIOD: f64 = 20.0;

/// Largest recommended time step \[s\] for `bodies` of `model`: `(2π/ω_max)/20`, ten steps per impact,
/// where `ω_max` is the highest contact frequency over every kind of particle pair
/// (one representative particle per (shape, material)) and every particle–obstacle pair,
/// using the same pair rules as the force law ([`PairParams`]).
///
/// This stays below the explicit stability limit `2/ω` for up to about 40 simultaneous
/// contacts of one pair at full overlap. Scenario code can warn when `dt` exceeds it.
/// Returns `f64::INFINITY` without particles.
pub fn stable_dt_estimate(model: &Model, bodies: &[Body]) -> f64 {
    let mut reps: Vec<(u32, u32, u32)> = Vec::new(); // (shape, material, body id)
    for (i, b) in bodies.iter().enumerate() {
        if !reps.iter().any(|r| r.0 == b.shape && r.1 == b.material) {
            reps.push((b.shape, b.material, i as u32));
        }
    }
    let mut omega: f64 = 0.0;
    for (k, &(_, _, a)) in reps.iter().enumerate() {
        for &(_, _, b) in &reps[k..] {
            // A representative against itself stands for two equal particles.
            let pp = PairParams::of(model, bodies, a, Other::Particle(b));
            omega = omega.max(pp.angular_frequency());
        }
        for o in 0..model.obstacles.len() {
            let pp = PairParams::of(model, bodies, a, Other::Obstacle(o as u32));
            omega = omega.max(pp.angular_frequency());
        }
    }
    if omega > 0.0 {
        2.0 * std::f64::consts::PI / omega / STEPS_PER_PERIOD
    } else {
        f64::INFINITY
    }
}
