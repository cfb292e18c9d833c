//! The skin of a set's certificates, sized for the motion of a step (issue 19: the
//! detection after a large step).
//!
//! Pairs certified beyond the skin at the reference pose are not stored, and the set is
//! refreshed — every active pair regenerated and screened at the current pose, then every
//! idle sibling group offered for narrowing — once B moved more than the skin from the
//! reference (see the parent module's docs). The base skin `κ·(ε_a + ε_b)`
//! ([`super::set::SKIN`]) suits explicit steps, where B moves a small fraction of it per
//! step. After a step ten times longer a moving pair has left its skin at every detection,
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
}
