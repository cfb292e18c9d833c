//! The skin of a set's certificates, sized for the motion of a step (issue 19: the
//! detection after a large step), and its setting chosen by the set's user
//! ([`CertificateSkin`]).
//!
//! Pairs certified beyond the skin at the reference pose are not stored, and the set is
//! refreshed — every active pair regenerated and screened at the current pose, then every
//! idle sibling group offered for narrowing — once B moved more than the skin from the
//! reference (see the parent module's docs). The base skin is `κ·(ε_a + ε_b)` (κ =
//! [`CertificateSkin::relative`]). After a step ten times longer than the explicit one a
//! moving pair had left its base skin at every detection, so every detection paid a
//! refresh: on the hopper at 10× the explicit `dt` (midpoint rule, first second) 14 of 25
//! candidate pairs refreshed per detection, and the walks were 57 % of the implicit run's
//! detection time against the kernel calls' 28 %.
//!
//! So at a refresh the new skin is the larger of the base skin and
//! [`CertificateSkin::refresh_steps`] times B's motion over the last step (from the base
//! pose of the previous detection), at most [`MAX_SKIN`] times the base skin: a pair
//! moving steadily is refreshed every `refresh_steps`-th step instead of whenever it
//! crossed the base skin, at the price of storing (and certifying) the pairs within the
//! wider skin; a pair at rest keeps the base skin and stores no more. The implicit
//! detection and the pair-set queries use [`CertificateSkin::DEFAULT`] (κ = 0.25, 10
//! steps); the explicit step [`CertificateSkin::EXPLICIT`] (the same κ, a longer period:
//! its steps are ten times shorter, docs/performance.md "Explicit step: certificate
//! skin"). The skin only decides which certified pairs are stored and when the
//! certificates are renewed, never an outcome (every pair not certified at the current
//! pose is checked): contacts, widenings and narrowings within a refresh period are those
//! of checking every pair, and a refresh schedule changes only the cut's narrowings and
//! the check counts, never a contact (Lemma 5.7).

/// The skin setting of a set's certificates (see the module docs): the base skin κ
/// relative to the pair's margin `ε_a + ε_b` [-], and the refresh period sought for a
/// steadily moving pair, in steps of its last step's motion [-]. Larger values store more
/// certified pairs and refresh less often; the contacts are the same for any value
/// (Lemma 5.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CertificateSkin {
    relative: f32,
    refresh_steps: f64,
}

impl CertificateSkin {
    /// κ = 0.25, 10 steps: the pair-set / trajectory queries (tuned there: wider skins cost
    /// more on the `particle_pair` collision, docs/performance.md "Trajectory query") and
    /// any set whose user sets nothing.
    pub const DEFAULT: CertificateSkin = CertificateSkin {
        relative: 0.25,
        refresh_steps: 10.0,
    };

    /// The explicit step's setting: κ = 0.25 (a wider base stores more pairs at rest:
    /// +64 % peak memory on the §6.7 grid at κ = 2) and a refresh period of 100 steps
    /// for moving pairs (docs/performance.md "Explicit step: certificate skin").
    pub const EXPLICIT: CertificateSkin = CertificateSkin {
        relative: 0.25,
        refresh_steps: 100.0,
    };

    /// The implicit integrators' setting: κ = 0.25 and a refresh period of 30 steps (steps
    /// ten times the explicit one: θ at 10× 10–14 % less CPU than with 10 steps on the
    /// hopper and the staircase, the same states; docs/performance.md "Explicit step:
    /// certificate skin").
    pub const IMPLICIT: CertificateSkin = CertificateSkin {
        relative: 0.25,
        refresh_steps: 30.0,
    };

    /// κ = `relative` [-] and a refresh period of `refresh_steps` steps [-]; an error for
    /// a value that is not finite and positive.
    pub fn new(relative: f64, refresh_steps: f64) -> Result<CertificateSkin, String> {
        let k = relative as f32;
        if !(relative.is_finite() && k.is_finite() && k > 0.0) {
            return Err(format!(
                "certificate skin {relative}: must be a finite factor > 0 of the pair's margin"
            ));
        }
        if !(refresh_steps > 0.0 && refresh_steps <= MAX_REFRESH_STEPS) {
            return Err(format!(
                "certificate skin refresh period {refresh_steps}: \
                 must be a number of steps in (0, {MAX_REFRESH_STEPS:e}]"
            ));
        }
        Ok(CertificateSkin {
            relative: k,
            refresh_steps,
        })
    }

    /// κ: the base skin relative to the pair's margin [-].
    pub fn relative(self) -> f32 {
        self.relative
    }

    /// The refresh period sought for a moving pair, in steps [-].
    pub fn refresh_steps(self) -> f64 {
        self.refresh_steps
    }
}

impl Default for CertificateSkin {
    fn default() -> Self {
        CertificateSkin::DEFAULT
    }
}

impl std::str::FromStr for CertificateSkin {
    type Err = String;

    /// `κ` (the default refresh period) or `κ:steps`, e.g. `0.25:100`.
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| format!("certificate skin `{s}`: expected κ or κ:steps"))
        };
        match s.split_once(':') {
            Some((k, n)) => CertificateSkin::new(num(k)?, num(n)?),
            None => CertificateSkin::new(num(s)?, CertificateSkin::DEFAULT.refresh_steps),
        }
    }
}

impl std::fmt::Display for CertificateSkin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.relative, self.refresh_steps)
    }
}

/// Largest refresh period [steps] (beyond it the skin is capped by [`MAX_SKIN`] anyway).
pub const MAX_REFRESH_STEPS: f64 = 1e9;

/// Largest skin, relative to the base skin [-]: bounds the pairs stored for a fast pair.
pub(super) const MAX_SKIN: f32 = 64.0;

/// The skin \[m\] of a set refreshed after B moved `step` \[m\] since the previous
/// detection's base pose, for the base skin `base` \[m\] and the refresh period
/// `steps` [-].
pub(super) fn sized(base: f32, step: f64, steps: f64) -> f32 {
    let want = (steps * step) as f32;
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
        assert_eq!(sized(0.01, 0.0005, 10.0), 0.01);
        assert_eq!(sized(0.01, 0.002, 10.0), 0.02);
        assert_eq!(sized(0.01, 0.0002, 100.0), 0.02);
        assert_eq!(sized(0.01, 1.0, 10.0), 0.64);
        assert_eq!(sized(0.01, f64::INFINITY, 10.0), 0.01);
        assert_eq!(sized(0.01, f64::NAN, 10.0), 0.01);
    }

    /// Only finite positive values are skins; the text form is `κ` or `κ:steps`.
    #[test]
    fn a_skin_is_finite_and_positive() {
        let s = CertificateSkin::new(1.5, 20.0).expect("skin");
        assert_eq!((s.relative(), s.refresh_steps()), (1.5, 20.0));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(CertificateSkin::new(bad, 10.0).is_err(), "{bad}");
            assert!(CertificateSkin::new(0.25, bad).is_err(), "{bad}");
        }
        assert_eq!(CertificateSkin::default(), CertificateSkin::DEFAULT);
        assert_eq!("1.5:20".parse::<CertificateSkin>(), Ok(s));
        assert_eq!(
            "2".parse::<CertificateSkin>()
                .map(|s| (s.relative(), s.refresh_steps())),
            Ok((2.0, 10.0))
        );
        assert_eq!(s.to_string().parse::<CertificateSkin>(), Ok(s));
        for bad in ["", "x", "1:", ":3", "1:2:3", "-1", "1:0"] {
            assert!(bad.parse::<CertificateSkin>().is_err(), "{bad}");
        }
    }
}
