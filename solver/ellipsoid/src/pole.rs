//! OpM's sensitivities at the re-centred pole, with each body's products computed once
//! (seed 002 §2, eqs. (3), (4) with Appendix eqs., (A-21)).
//!
//! OpM re-centres the angle parametrisation on the current iterate, so every Newton step
//! evaluates eq. (3)–(4) at `α = 0` of a frame `(c, e₁, e₂)`, where `∂c/∂αᵢ = eᵢ`,
//! `∂²c/∂α₁² = ∂²c/∂α₂² = −c`, `∂²c/∂α₁∂α₂ = 0` (see [`direction_in_frame`]). The
//! derivative of `G(c) = M c / √(cᵀ M c)` along `c` vanishes (`G` is homogeneous of degree
//! 0), so the `∂²c` terms of eq. drop out exactly, and the rest needs only
//! `M c`, `M e₁`, `M e₂` per body: three matrix–vector products and one square root, where
//! [`PairGeometry::sensitivities`] redoes `M v` for every term.
//!
//! [`direction_in_frame`]: crate::sensitivity::direction_in_frame

use crate::math::{Mat2, Mat3, Vec2, Vec3};
use crate::sensitivity::{PairGeometry, Sensitivity};

/// One body's `G`, `∂G/∂αᵢ` and `∂²G/∂αᵢ∂αⱼ` (without the vanishing `∂²c` part) at `c`.
struct BodyTerms {
    value: Vec3,
    first: [Vec3; 2],
    second: [[Vec3; 2]; 2],
}

fn body_terms(m: &Mat3, frame: &[Vec3; 3]) -> BodyTerms {
    let mc = m * frame[0];
    let me = [m * frame[1], m * frame[2]];
    let s2 = frame[0].dot(&mc);
    let s = s2.sqrt();
    let inv_s = 1.0 / s;
    let inv_s3 = inv_s / s2;
    let inv_s5 = inv_s3 / s2;
    // `cᵀ M eᵢ` (M symmetric: `= (M c)·eᵢ`) and `eᵢᵀ M eⱼ`.
    let p = [mc.dot(&frame[1]), mc.dot(&frame[2])];
    let first = [0, 1].map(|i| (me[i] - mc * (p[i] / s2)) * inv_s);
    let second = [0, 1].map(|i| {
        [0, 1].map(|j| {
            (-(me[i] * p[j]) - me[j] * p[i] - mc * frame[1 + i].dot(&me[j])) * inv_s3
                + mc * (3.0 * p[i] * p[j] * inv_s5)
        })
    });
    BodyTerms {
        value: mc * inv_s,
        first,
        second,
    }
}

impl PairGeometry {
    /// [`PairGeometry::sensitivities`] at `α = 0` of the orthonormal frame
    /// `(c, e₁, e₂)` (module doc): the same `d`, `f`, gradient and Hessian up to rounding.
    pub fn sensitivities_at_pole(&self, frame: &[Vec3; 3]) -> Sensitivity {
        let ga = body_terms(&self.m_a, frame);
        let gb = body_terms(&self.m_b, frame);
        let d = self.b_a - self.b_b + ga.value + gb.value;
        let dd = [0, 1].map(|i| ga.first[i] + gb.first[i]);
        let mut hess = Mat2::zeros();
        for i in 0..2 {
            for j in i..2 {
                let ddij = ga.second[i][j] + gb.second[i][j];
                let h = 2.0 * (dd[i].dot(&dd[j]) + d.dot(&ddij));
                hess[(i, j)] = h;
                hess[(j, i)] = h;
            }
        }
        Sensitivity {
            d,
            f: d.norm_squared(),
            dd,
            grad: Vec2::new(2.0 * d.dot(&dd[0]), 2.0 * d.dot(&dd[1])),
            hess,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Iso3, Quat, Real};
    use crate::sensitivity::{direction_in_frame, frame_from};
    use crate::shape::Ellipsoid;
    use rand::{Rng, SeedableRng};

    fn rel(a: Real, b: Real, scale: Real) -> Real {
        (a - b).abs() / scale
    }

    /// Brute-force truth: the general eqs. (3)–(4) with the full `c`, `∂c`, `∂²c` of the
    /// parametrisation, on random pairs and directions.
    #[test]
    fn pole_sensitivities_equal_the_general_ones() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(13);
        let mut worst: Real = 0.0;
        for _ in 0..2000 {
            let mut body = || {
                let e = Ellipsoid::new([0, 1, 2].map(|_| r.gen_range(0.1..2.0))).unwrap();
                let t = Vec3::new(r.gen_range(-2.0..2.0), r.gen_range(-2.0..2.0), 0.5);
                let q = Quat::from_euler_angles(r.gen(), r.gen(), r.gen());
                (e, Iso3::from_parts(t.into(), q))
            };
            let (a, pa) = body();
            let (b, pb) = body();
            let g = PairGeometry::new(&a, &pa, &b, &pb);
            let c = Vec3::new(r.gen_range(-1.0..1.0), r.gen_range(-1.0..1.0), 0.3).normalize();
            let frame = frame_from(&c);
            let (c0, c_a, c_aa) = direction_in_frame(&frame, &Vec2::zeros());
            let general = g.sensitivities(&c0, &c_a, &c_aa);
            let fast = g.sensitivities_at_pole(&frame);
            let scale = 10.0;
            worst = worst.max(rel(general.f, fast.f, scale * scale));
            for i in 0..2 {
                worst = worst.max(rel(general.grad[i], fast.grad[i], scale * scale));
                for j in 0..2 {
                    worst = worst.max(rel(general.hess[(i, j)], fast.hess[(i, j)], scale * scale));
                }
            }
        }
        assert!(
            worst <= 1e-13,
            "pole sensitivities differ by {worst:e} × scale²"
        );
    }
}
