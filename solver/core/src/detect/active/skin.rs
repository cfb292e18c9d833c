//! The skin of a set's certificates, sized for the motion of a step (issue 19: the
//! detection after a large step).
//!
//! Pairs certified beyond the skin at the reference pose are not stored, and the set is
//! refreshed — every active pair regenerated and screened at the current pose, then every
//! idle sibling group offered for narrowing — once B moved more than the skin from the
//! reference (see the parent module's docs). The base skin `κ·(ε_a + ε_b)` is a setting
//! of the set chosen by its user ([`BaseSkin`]): [`BaseSkin::DEFAULT`] (κ = 0.25) for the
//! implicit detection and the pair-set queries, [`BaseSkin::EXPLICIT`] for the explicit
//! step, where B moves a small fraction of it per step. After a step ten times longer a moving pair has left its skin at every detection,
//! so every detection pays a refresh: on the hopper at 10× the explicit `dt` (midpoint
//! rule, first second) 14 of 25 candidate pairs refreshed per detection, and the walks
//! were 57 % of the implicit run's detection time against the kernel calls' 28 %.
//!
//! So at a refresh the new skin is the larger of the base skin and [`STEP_SKINS`] times
//! B's motion over the last step (from the base pose of the previous detection), at most
//! [`MAX_SKIN`] times the base skin: a pair moving steadily is refreshed every
//! `STEP_SKINS`-th step instead of every step, at the price of storing (and certifying)
//! the pairs within the wider skin. An explicit step moves far less than the base skin,
//! which it keeps. The skin only decides which certified pairs are stored and when the
//! certificates are renewed, never an outcome (every pair not certified at the current
//! pose is checked): contacts, widenings and narrowings within a refresh period are those
//! of checking every pair, and a refresh schedule changes only the cut's narrowings and
//! the check counts, never a contact (Lemma 5.7).

/// The base skin κ of a set's certificates, relative to the pair's margin `ε_a + ε_b`
/// [-] (see the module docs): larger stores more certified pairs and refreshes less
/// often; the contacts are the same for any value (Lemma 5.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseSkin(f32);

impl BaseSkin {
    /// κ = 0.25: the implicit detection (which widens it with the step, [`sized`]) and
    /// the pair-set / trajectory queries (tuned there: wider skins cost more on the
    /// `particle_pair` collision, docs/performance.md "Trajectory query").
    pub const DEFAULT: BaseSkin = BaseSkin(0.25);

    /// The explicit step's κ (docs/performance.md "Explicit step: certificate skin"):
    /// fewer refreshes on the staircase and the hopper for a few more stored pairs.
    pub const EXPLICIT: BaseSkin = BaseSkin(2.0);

    /// κ = `factor` [-]; an error for a factor that is not finite and positive.
    pub fn relative(factor: f64) -> Result<BaseSkin, String> {
        let k = factor as f32;
        if factor.is_finite() && k.is_finite() && k > 0.0 {
            Ok(BaseSkin(k))
        } else {
            Err(format!(
                "certificate skin {factor}: must be a finite factor > 0 of the pair's margin"
            ))
        }
    }

    /// κ [-].
    pub fn factor(self) -> f32 {
        self.0
    }
}

impl Default for BaseSkin {
    fn default() -> Self {
        BaseSkin::DEFAULT
    }
}

/// Refresh period sought, in steps of the last step's motion [-].
pub(super) const STEP_SKINS: f64 = 10.0;

/// Largest skin, relative to the base skin [-]: bounds the pairs stored for a fast pair.
pub(super) const MAX_SKIN: f32 = 64.0;

/// The skin \[m\] of a set refreshed after B moved `step` \[m\] since the previous
/// detection's base pose, for the base skin `base` \[m\].
pub(super) fn sized(base: f32, step: f64) -> f32 {
    let want = (STEP_SKINS * step) as f32;
    if want.is_finite() {
        base.max(want.min(MAX_SKIN * base))
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small steps keep the base skin; large ones widen it, up to the cap.
    #[test]
    fn the_skin_follows_the_step() {
        assert_eq!(sized(0.01, 0.0005), 0.01);
        assert_eq!(sized(0.01, 0.002), 0.02);
        assert_eq!(sized(0.01, 1.0), 0.64);
        assert_eq!(sized(0.01, f64::INFINITY), 0.01);
        assert_eq!(sized(0.01, f64::NAN), 0.01);
    }

    /// Only finite positive factors are skins.
    #[test]
    fn a_skin_is_finite_and_positive() {
        assert_eq!(BaseSkin::relative(1.5).map(BaseSkin::factor), Ok(1.5));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(BaseSkin::relative(bad).is_err(), "{bad}");
        }
        assert_eq!(BaseSkin::default(), BaseSkin::DEFAULT);
    }
}
