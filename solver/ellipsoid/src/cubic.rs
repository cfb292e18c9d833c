//! Real roots of a monic cubic, analytically (seed 002 §3, eq. (10): the derivative of the
//! characteristic quartic is solved in closed form).

use crate::math::Real;

/// Real roots of `ζ³ + a₂ ζ² + a₁ ζ + a₀`, ascending, each polished by two Newton steps.
///
/// Trigonometric form when the discriminant says three real roots, Cardano's otherwise;
/// a (near) double root is returned once or twice depending on the sign the rounding gives
/// the discriminant, which is harmless for the ChM test (it evaluates the quartic at every
/// root returned). Never returns NaN for finite input.
pub fn real_roots_monic_cubic(a2: Real, a1: Real, a0: Real) -> ([Real; 3], usize) {
    // Depressed cubic t³ + p t + q with ζ = t − a₂/3.
    let shift = a2 / 3.0;
    let p = a1 - a2 * shift;
    let q = 2.0 * shift * shift * shift - a1 * shift + a0;
    let mut roots = [0.0; 3];
    let n;
    if p == 0.0 && q == 0.0 {
        roots[0] = -shift;
        n = 1;
    } else {
        // Discriminant sign: Δ/(-27·4) ∝ (q/2)² + (p/3)³.
        let h = (q / 2.0) * (q / 2.0) + (p / 3.0) * (p / 3.0) * (p / 3.0);
        if h < 0.0 {
            // Three distinct real roots (p < 0).
            let r = (-p / 3.0).sqrt();
            let cos_arg = (-q / (2.0 * r * r * r)).clamp(-1.0, 1.0);
            let phi = cos_arg.acos();
            let two_pi_3 = 2.0 * std::f64::consts::PI / 3.0;
            for (k, root) in roots.iter_mut().enumerate() {
                *root = 2.0 * r * (phi / 3.0 - two_pi_3 * k as Real).cos() - shift;
            }
            n = 3;
        } else {
            let s = h.sqrt();
            let u = (-q / 2.0 + s).cbrt();
            let v = (-q / 2.0 - s).cbrt();
            roots[0] = u + v - shift;
            n = 1;
        }
    }
    for root in roots.iter_mut().take(n) {
        for _ in 0..2 {
            let f = ((*root + a2) * *root + a1) * *root + a0;
            let df = (3.0 * *root + 2.0 * a2) * *root + a1;
            if df != 0.0 && df.is_finite() {
                let next = *root - f / df;
                if next.is_finite() {
                    *root = next;
                }
            }
        }
    }
    roots[..n].sort_by(|x, y| x.total_cmp(y));
    (roots, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_known_roots() {
        // (ζ − 1)(ζ − 2)(ζ + 3) = ζ³ − 7ζ + 6
        let (r, n) = real_roots_monic_cubic(0.0, -7.0, 6.0);
        assert_eq!(n, 3);
        for (x, e) in r.iter().zip([-3.0, 1.0, 2.0]) {
            assert!((x - e).abs() < 1e-12, "{r:?}");
        }
    }

    #[test]
    fn one_real_root() {
        // (ζ − 2)(ζ² + 1) = ζ³ − 2ζ² + ζ − 2
        let (r, n) = real_roots_monic_cubic(-2.0, 1.0, -2.0);
        assert_eq!(n, 1);
        assert!((r[0] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn triple_root() {
        // (ζ − 1)³
        let (r, n) = real_roots_monic_cubic(-3.0, 3.0, -1.0);
        assert!(n >= 1);
        assert!((r[0] - 1.0).abs() < 1e-4);
    }
}
