//! The split scheme's calibrated dashpot ([`super::split`]; docs/design.md §6, "Split
//! scheme"): per body pair, the factor on the law's damping ratio ζ with which one
//! impact of the split step rebounds — on average over where in a step it begins — with
//! the law's restitution `e` at the pair's `ωΔt`.
//!
//! The split step of one linear spring–dashpot contact is a scalar map (units
//! `m_eff = k = 1`, approach speed 1, overlap `δ`): `δ₁ = δ₀ + h·(u₀ + u₁)/2`,
//! `u₁ = u₀ − h·F` with `F = max(0, S + min(2ζ'·u₁, S))` (the law of
//! [`crate::contact::force::normal_force`], cap β = 1) and `S` the spring's discrete
//! gradient between `δ₀` and `δ₁` (`linearised.rs`); `h = ωΔt`. [`mean_rebound`] runs it
//! through one impact for twenty entry phases (the first touch at `−p·h`,
//! `p = 0, 0.05, …, 0.95`); its mean falls monotonically with ζ', and bisection finds the
//! ζ' that gives `e`. The factor `ζ'/ζ` is tabulated once per restitution (per process,
//! at [`H_GRID`]) and interpolated linearly in `h`; it is 1 at `h = 0`, where the
//! continuous law's calibration holds. 1-D model figures
//! (`tools/models/discrete_impact.py`, `calibration()`): `ζ'/ζ` at 10× the explicit step
//! (`h = π`) is 1.90 / 1.59 / 1.28 / 1.12 / 0.69 / 0.51 for `e` = 0.1 / 0.2 / 0.4 / 0.5 /
//! 0.8 / 0.95.

use crate::contact::force::DampingCalibration;
use crate::contact::pair::damping_ratio_for;
use std::sync::Mutex;

/// The `ωΔt` at which the factor is tabulated [-] (20× the explicit step is `2π`).
pub const H_GRID: [f64; 14] = [
    0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.5, 6.0, 8.0, 12.0,
];
/// Entry phases of [`mean_rebound`].
const PHASES: u32 = 20;
/// Largest calibrated ζ' [-].
const MAX_ZETA: f64 = 40.0;

/// The law's force for the spring `s` and the approach speed `u` (cap β = 1), `m = k = 1`.
fn law(s: f64, u: f64, zeta: f64) -> f64 {
    if s <= 0.0 {
        return 0.0;
    }
    (s + (2.0 * zeta * u).min(s)).max(0.0)
}

/// The spring's discrete gradient between the overlaps `d0` and `d1`.
fn gradient(d0: f64, d1: f64) -> f64 {
    let u = |d: f64| if d > 0.0 { 0.5 * d * d } else { 0.0 };
    if (d1 - d0).abs() > 1e-14 {
        (u(d1) - u(d0)) / (d1 - d0)
    } else {
        d0.max(0.0)
    }
}

/// One split step from `(d0, u0)` at `h = ωΔt` with damping ratio `zeta`: the root of
/// the increasing residual `u₁ − u₀ + h·F(u₁)` by bisection.
fn step(d0: f64, u0: f64, h: f64, zeta: f64) -> (f64, f64) {
    let force = |u1: f64| law(gradient(d0, d0 + 0.5 * h * (u0 + u1)), u1, zeta);
    let res = |u1: f64| u1 - u0 + h * force(u1);
    let (mut lo, mut hi) = (u0 - 1.0, u0);
    while res(lo) > 0.0 {
        lo = u0 - 2.0 * (u0 - lo);
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if res(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let u1 = 0.5 * (lo + hi);
    (d0 + 0.5 * h * (u0 + u1), u1)
}

/// Rebound speed of one impact (approach speed 1) entering at phase `p` of a step.
fn rebound(h: f64, zeta: f64, p: f64) -> f64 {
    let (mut d, mut u) = (-p * h, 1.0);
    for _ in 0..100_000 {
        (d, u) = step(d, u, h, zeta);
        if d < 0.0 && u < 0.0 {
            return -u;
        }
    }
    0.0
}

/// Mean rebound of the split step over [`PHASES`] entry phases at `h = ωΔt` [-].
pub fn mean_rebound(h: f64, zeta: f64) -> f64 {
    (0..PHASES)
        .map(|i| rebound(h, zeta, f64::from(i) / f64::from(PHASES)))
        .sum::<f64>()
        / f64::from(PHASES)
}

/// The ζ' with `mean_rebound(h, ζ') = e` (bisection; [`MAX_ZETA`] if even it rebounds
/// more, 0 if even no damping rebounds less).
fn calibrated_zeta(e: f64, h: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, MAX_ZETA);
    if mean_rebound(h, hi) > e {
        return hi;
    }
    if mean_rebound(h, lo) < e {
        return lo;
    }
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if mean_rebound(h, mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The factor `ζ'/ζ` at every [`H_GRID`] point for restitution `e`.
fn table(e: f64) -> [f64; H_GRID.len()] {
    let zeta = damping_ratio_for(e);
    let mut t = [1.0; H_GRID.len()];
    if zeta > 0.0 {
        for (f, &h) in t.iter_mut().zip(&H_GRID).skip(1) {
            *f = calibrated_zeta(e, h) / zeta;
        }
    }
    t
}

/// Tables of the restitutions asked for so far (a scene has few).
static TABLES: Mutex<Vec<(u64, [f64; H_GRID.len()])>> = Mutex::new(Vec::new());

/// The factor on the law's damping ratio for restitution `e` at `h = ωΔt` (module docs):
/// linear between the [`H_GRID`] points, constant beyond the last. Deterministic (the
/// tables depend on `e` only).
pub fn split_damping_scale(e: f64, h: f64) -> f64 {
    let valid = e > 0.0 && e < 1.0 && h > 0.0;
    if !valid {
        return 1.0;
    }
    let key = e.to_bits();
    let cached = TABLES
        .lock()
        .ok()
        .and_then(|t| t.iter().find(|(k, _)| *k == key).map(|(_, t)| *t));
    let t = match cached {
        Some(t) => t,
        None => {
            let t = table(e);
            if let Ok(mut all) = TABLES.lock() {
                all.push((key, t));
            }
            t
        }
    };
    let last = H_GRID.len() - 1;
    if h >= H_GRID[last] {
        return t[last];
    }
    let i = H_GRID.partition_point(|&g| g <= h) - 1;
    let w = (h - H_GRID[i]) / (H_GRID[i + 1] - H_GRID[i]);
    t[i] + w * (t[i + 1] - t[i])
}

/// The split scheme's calibration at the step `dt` \[s\].
pub fn split(dt: f64) -> DampingCalibration {
    DampingCalibration {
        dt,
        scale: split_damping_scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calibrated factor makes the model's mean rebound `e` (to the bisection's
    /// precision at the grid points), and the undamped split step is elastic.
    #[test]
    fn the_calibrated_dashpot_rebounds_with_e_in_the_model() {
        assert!((mean_rebound(std::f64::consts::PI, 0.0) - 1.0).abs() < 1e-6);
        for e in [0.2, 0.5, 0.8] {
            let zeta = damping_ratio_for(e);
            let h = H_GRID[8];
            let r = mean_rebound(h, zeta * split_damping_scale(e, h));
            assert!((r - e).abs() < 1e-3, "e = {e}: {r}");
        }
        assert_eq!(split_damping_scale(0.5, 0.0), 1.0);
    }
}
