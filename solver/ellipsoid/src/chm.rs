//! ChM: the characteristic-equation contact test of two ellipsoids (seed 002 §3,
//! eqs. (7)–(10), after Wang, Wang & Kim 2001, the seed's ref. \[37\]).
//!
//! # The quartic
//! With the quadrics `Q₁, Q₂` of eq. (7), `g(ξ) = det(ξ Q₁ + Q₂)` (eq. (8)), made monic
//! (eq. (9)). Its roots are invariant under a common affine map, so we work in the frame
//! where ellipsoid A is the unit sphere at the origin (`Q₁ = diag(1, 1, 1, −1)`); B becomes
//! `(y − c)ᵀ S (y − c) ≤ 1` with `S = R_A Aᵀ_A N_B A_A R_A`, `c = R_A⁻¹ A_Aᵀ (b_B − b_A)`.
//! A Schur complement and Cayley–Hamilton give the monic quartic in closed form,
//!
//! `g(ξ) = (1 + ξ) det(ξI + S) − ξ cᵀ S adj(ξI + S) c`
//! `     = ξ⁴ + (t + 1 − k₁) ξ³ + (m + t − t k₁ + k₂) ξ² + (D + m − D|c|²) ξ + D`,
//!
//! with `t = tr S`, `m` the sum of the principal 2×2 minors of `S`, `D = det S`,
//! `k₁ = cᵀ S c`, `k₂ = |S c|²` — no 4×4 determinant and no eigen-solve.
//!
//! # Root criterion used, and why
//! `g(0) = det S > 0` (the seed's condition (a)(1) always holds) and `g` is monic, so its
//! positive roots come in pairs and (seed remarks (ii), (iii)) the ellipsoids are
//! **separated iff `g` has two distinct positive roots, touching iff a positive double
//! root** — i.e. iff `min_{ξ>0} g(ξ) < 0` (resp. `= 0`). That minimum is attained at a
//! positive root of the cubic `g′(ζ) = 0` (eq. (10)), solved analytically
//! ([`crate::cubic`]). So we evaluate `g` at every positive real root of `g′` and take the
//! smallest value. This is the seed's rule (b)(1) without its preconditions: the
//! discriminant test (a)(2) and the root ordering (a)(3) flip sign under rounding near a
//! double root of `g′`, and case (b)(2) needs a bisection — evaluating `g` at every
//! critical point needs neither and decides the same thing.
//!
//! For the sign we do not evaluate the expanded polynomial (cancellation) but the
//! dimensionless factored form `ψ(ζ) = g(ζ) / ((1 + ζ) det(ζI + S))
//! = 1 − ζ/(1 + ζ) · cᵀ S (ζI + S)⁻¹ c`, which has the sign of `g` for `ζ > 0`. With
//! `λ = ζ/(1 + ζ)`, `1 − ψ` is the Perram–Wertheim contact function `F(λ)`; `√F` is the
//! factor by which both ellipsoids must be scaled about their centres to touch, so
//! `ψ ≈ −2 δ/ℓ` for a small gap `δ` on a length `ℓ` of the order of the radii.
//! `|ψ_min| ≤` [`TOUCH_TOLERANCE`] is reported as touching.
//!
//! Coincident centres give `c = 0`, `g(ξ) = (1 + ξ) det(ξI + S) > 0`: overlapping, no NaN.

use crate::cubic::real_roots_monic_cubic;
use crate::math::{Iso3, Mat3, Real, Vec3};
use crate::shape::Ellipsoid;

/// Band of `ψ_min` reported as [`ChmState::Touching`] \[-\] (a relative gap of about half
/// of it).
pub const TOUCH_TOLERANCE: Real = 1e-10;

/// Contact state decided by the characteristic equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChmState {
    /// Two distinct positive roots: a separating plane exists.
    Separated,
    /// A positive double root (within [`TOUCH_TOLERANCE`]): the ellipsoids touch externally.
    Touching,
    /// No positive root: the ellipsoids overlap (or one contains the other).
    Overlapping,
}

/// The ChM verdict with the numbers behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChmReport {
    /// The decision.
    pub state: ChmState,
    /// The smallest `ψ` over the positive critical points of `g` (`1.0` when `g′` has no
    /// positive root) \[-\]; negative exactly when `g` is negative there, i.e. when
    /// separated. Near touching it approaches `1 − max F` (the critical points of `g`
    /// and of `ψ` merge at the double root).
    pub psi_min: Real,
    /// That critical point `ζ` (`None` when `g′` has no positive root).
    pub critical_point: Option<Real>,
    /// The monic quartic's coefficients `[b₀, b₁, b₂, b₃]` of eq. (9), in A's unit-sphere
    /// frame.
    pub quartic: [Real; 4],
}

impl ChmReport {
    /// Whether the ellipsoids touch or overlap (the filter's answer).
    pub fn in_contact(&self) -> bool {
        self.state != ChmState::Separated
    }
}

/// `S` and `c` of the module doc: B seen from the frame where A is the unit sphere.
fn relative_quadric(a: &Ellipsoid, pose_a: &Iso3, b: &Ellipsoid, pose_b: &Iso3) -> (Mat3, Vec3) {
    let ra = Vec3::from(a.radii());
    let rot_a = pose_a.rotation.to_rotation_matrix().into_inner();
    let rot_b = pose_b.rotation.to_rotation_matrix().into_inner();
    let rel = rot_a.transpose() * rot_b;
    let inv_rb2 = b.radii_squared().map(|r| 1.0 / r);
    let n_b_in_a = rel * Mat3::from_diagonal(&inv_rb2) * rel.transpose();
    let s = Mat3::from_diagonal(&ra) * n_b_in_a * Mat3::from_diagonal(&ra);
    let s = (s + s.transpose()) * 0.5;
    let delta = rot_a.transpose() * (pose_b.translation.vector - pose_a.translation.vector);
    (s, delta.component_div(&ra))
}

/// Coefficients `[b₀, b₁, b₂, b₃]` of the monic characteristic quartic (eq. (9)).
fn quartic(s: &Mat3, c: &Vec3) -> [Real; 4] {
    let t = s.trace();
    let m = s[(0, 0)] * s[(1, 1)] - s[(0, 1)] * s[(1, 0)] + s[(0, 0)] * s[(2, 2)]
        - s[(0, 2)] * s[(2, 0)]
        + s[(1, 1)] * s[(2, 2)]
        - s[(1, 2)] * s[(2, 1)];
    let d = s.determinant();
    let sc = s * c;
    let k1 = c.dot(&sc);
    let k2 = sc.norm_squared();
    [
        d,
        d + m - d * c.norm_squared(),
        m + t - t * k1 + k2,
        t + 1.0 - k1,
    ]
}

/// `ψ(ζ) = 1 − ζ/(1 + ζ) cᵀ S (ζI + S)⁻¹ c`, the sign of `g(ζ)` for `ζ > 0`.
fn psi(s: &Mat3, c: &Vec3, zeta: Real) -> Real {
    let shifted = s + Mat3::identity() * zeta;
    match shifted.cholesky() {
        Some(ch) => {
            let w = ch.solve(c);
            1.0 - zeta / (1.0 + zeta) * (s * c).dot(&w)
        }
        None => 1.0,
    }
}

/// The monic characteristic quartic `g(ξ)` of eq. (9) for two posed ellipsoids, as
/// `[b₀, b₁, b₂, b₃]` (A's unit-sphere frame; the roots are frame-independent).
pub fn characteristic_quartic(
    a: &Ellipsoid,
    pose_a: &Iso3,
    b: &Ellipsoid,
    pose_b: &Iso3,
) -> [Real; 4] {
    let (s, c) = relative_quadric(a, pose_a, b, pose_b);
    quartic(&s, &c)
}

/// ChM (seed 002 §3): decides separated / touching / overlapping from the positive roots
/// of the derivative of the characteristic equation (see the module doc for the
/// criterion). Deterministic, no iteration, no NaN for valid ellipsoids and finite poses.
pub fn chm(a: &Ellipsoid, pose_a: &Iso3, b: &Ellipsoid, pose_b: &Iso3) -> ChmReport {
    let (s, c) = relative_quadric(a, pose_a, b, pose_b);
    let q = quartic(&s, &c);
    // g′(ζ)/4 = ζ³ + ¾ b₃ ζ² + ½ b₂ ζ + ¼ b₁  (eq. (10)).
    let (roots, n) = real_roots_monic_cubic(0.75 * q[3], 0.5 * q[2], 0.25 * q[1]);
    let mut psi_min = 1.0;
    let mut critical_point = None;
    for &zeta in roots.iter().take(n) {
        if zeta > 0.0 && zeta.is_finite() {
            let value = psi(&s, &c, zeta);
            if value < psi_min {
                psi_min = value;
                critical_point = Some(zeta);
            }
        }
    }
    let state = if psi_min < -TOUCH_TOLERANCE {
        ChmState::Separated
    } else if psi_min <= TOUCH_TOLERANCE {
        ChmState::Touching
    } else {
        ChmState::Overlapping
    };
    ChmReport {
        state,
        psi_min,
        critical_point,
        quartic: q,
    }
}

/// The boolean filter: `true` when ChM finds the ellipsoids touching or overlapping.
pub fn chm_in_contact(a: &Ellipsoid, pose_a: &Iso3, b: &Ellipsoid, pose_b: &Iso3) -> bool {
    chm(a, pose_a, b, pose_b).in_contact()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Vec3};
    use nalgebra::Matrix4;

    /// Seed eq. (7): the 4×4 quadric of a posed ellipsoid.
    fn seed_q(e: &Ellipsoid, pose: &Iso3) -> Matrix4<Real> {
        let n = e.quadric_matrix(pose);
        let b = pose.translation.vector;
        let nb = n * b;
        let mut q = Matrix4::zeros();
        q.fixed_view_mut::<3, 3>(0, 0).copy_from(&n);
        for i in 0..3 {
            q[(i, 3)] = -nb[i];
            q[(3, i)] = -nb[i];
        }
        q[(3, 3)] = b.dot(&nb) - 1.0;
        q
    }

    #[test]
    fn closed_form_quartic_matches_seed_determinant() {
        let a = Ellipsoid::new([3.0, 1.0, 2.0]).unwrap();
        let b = Ellipsoid::new([1.5, 0.7, 2.5]).unwrap();
        let pa = Iso3::from_parts(
            Vec3::new(0.3, -0.2, 0.5).into(),
            Quat::from_euler_angles(0.3, -0.7, 1.1),
        );
        let pb = Iso3::from_parts(
            Vec3::new(2.9, 1.1, -0.4).into(),
            Quat::from_euler_angles(-1.2, 0.4, 0.2),
        );
        let (q1, q2) = (seed_q(&a, &pa), seed_q(&b, &pb));
        let lead = q1.determinant();
        let coeffs = characteristic_quartic(&a, &pa, &b, &pb);
        for xi in [-3.0, -0.5, 0.0, 0.4, 1.7, 5.0] {
            let seed = (q1 * xi + q2).determinant() / lead;
            let ours = (((xi + coeffs[3]) * xi + coeffs[2]) * xi + coeffs[1]) * xi + coeffs[0];
            assert!(
                (seed - ours).abs() <= 1e-9 * (1.0 + seed.abs()),
                "ξ={xi}: seed {seed} ours {ours}"
            );
        }
    }

    #[test]
    fn unit_spheres_perram_wertheim() {
        let s = Ellipsoid::sphere(1.0).unwrap();
        let at = |x: Real| Iso3::translation(x, 0.0, 0.0);
        let r = chm(&s, &at(0.0), &s, &at(2.5));
        assert_eq!(r.state, ChmState::Separated);
        // ψ at g's critical point is ≥ the Perram–Wertheim minimum 1 − δ²/(r_A + r_B)²
        // (ψ and g share their sign, not their critical points) and negative.
        assert!(r.psi_min < 0.0 && r.psi_min >= 1.0 - 2.5f64.powi(2) / 4.0 - 1e-12);
        assert_eq!(chm(&s, &at(0.0), &s, &at(1.5)).state, ChmState::Overlapping);
        assert_eq!(chm(&s, &at(0.0), &s, &at(2.0)).state, ChmState::Touching);
        assert_eq!(chm(&s, &at(0.0), &s, &at(0.0)).state, ChmState::Overlapping);
    }
}
