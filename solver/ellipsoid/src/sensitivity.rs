//! The OpM objective and its analytic first and second derivatives (seed 002 §2,
//! eqs. (1)–(4), Appendix eqs. –(A-21)).
//!
//! For a unit direction `c`, `P_A(c) = b_A + M_A c / (2λ_A)` is the point of A whose
//! outward normal is `c` and `P_B(−c) = b_B − M_B c / (2λ_B)` the point of B whose normal
//! is `−c` (eq., `2λ = √(cᵀ M c)` by eq., `M = A R² Aᵀ` eq. ).
//! `d = P_A − P_B` (eq. (1), (A-14)), `f = dᵀ d` (eq. (2)).

use crate::math::{Iso3, Mat2, Mat3, Point3, Real, Vec2, Vec3};
use crate::shape::Ellipsoid;

/// The two posed ellipsoids as OpM sees them: their `M` matrices and centres (world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairGeometry {
    /// `M_A = A_A R_A² A_Aᵀ` \[m²\].
    pub m_a: Mat3,
    /// `M_B` \[m²\].
    pub m_b: Mat3,
    /// Centre of A `b_A` \[m\].
    pub b_a: Vec3,
    /// Centre of B `b_B` \[m\].
    pub b_b: Vec3,
}

/// `f`, its gradient (eq. (3)) and Hessian (eq. (4)) in the two angles, with `d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sensitivity {
    /// `d = P_A − P_B` \[m\].
    pub d: Vec3,
    /// `f = dᵀd` \[m²\].
    pub f: Real,
    /// `∂f/∂αᵢ = 2 dᵀ ∂d/∂αᵢ` (eq. (3)) \[m²/rad\].
    pub grad: Vec2,
    /// `∂²f/∂αᵢ∂αⱼ = 2 [(∂d/∂αᵢ)ᵀ ∂d/∂αⱼ + dᵀ ∂²d/∂αᵢ∂αⱼ]` (eq. (4)) \[m²/rad²\].
    pub hess: Mat2,
}

/// One direction `c` as OpM's line search evaluates it: `f(c)` and the products
/// `M c`, `√(cᵀ M c)` of both bodies that the derivatives at `c` reuse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The unit direction \[-\].
    pub c: Vec3,
    mc_a: Vec3,
    s_a: Real,
    mc_b: Vec3,
    s_b: Real,
    /// `f(c)` (eq. (2)) \[m²\].
    pub f: Real,
}

/// `G(c) = M c / √(cᵀ M c)`, its first derivative along `v` (eq.) and its second
/// derivative along `u, v` (the first two terms of eq. ).
struct SupportMap<'m> {
    m: &'m Mat3,
    mc: Vec3,
    s: Real,
}

impl<'m> SupportMap<'m> {
    fn new(m: &'m Mat3, c: &Vec3) -> Self {
        let mc = m * c;
        let s = c.dot(&mc).sqrt();
        SupportMap { m, mc, s }
    }

    fn value(&self) -> Vec3 {
        self.mc / self.s
    }

    /// Eq.: `(M/(2λ) − M c cᵀ M/(8λ³)) v`.
    fn first(&self, v: &Vec3) -> Vec3 {
        self.first_with(v, &(self.m * v))
    }

    /// [`SupportMap::first`] with `M v` already at hand (`m_v`).
    fn first_with(&self, v: &Vec3, m_v: &Vec3) -> Vec3 {
        (m_v - self.mc * (self.mc.dot(v) / (self.s * self.s))) / self.s
    }

    /// Eq. without its last term: `(−M/(8λ³) + 3 M c cᵀ M/(32λ⁵))(cᵀ M v) u
    /// − [(cᵀ M u) M + M c uᵀ M] v / (8λ³)`, with `M u`, `M v` at hand (`m_u`, `m_v`).
    fn second_with(&self, u: &Vec3, v: &Vec3, m_u: &Vec3, m_v: &Vec3) -> Vec3 {
        let s3 = self.s * self.s * self.s;
        let mu = self.mc.dot(u);
        let mv = self.mc.dot(v);
        (-(m_u * mv) - m_v * mu - self.mc * u.dot(m_v)) / s3
            + self.mc * (3.0 * mu * mv / (s3 * self.s * self.s))
    }
}

impl PairGeometry {
    /// The pair's matrices for two posed ellipsoids.
    pub fn new(a: &Ellipsoid, pose_a: &Iso3, b: &Ellipsoid, pose_b: &Iso3) -> Self {
        PairGeometry {
            m_a: a.shape_matrix(pose_a),
            m_b: b.shape_matrix(pose_b),
            b_a: pose_a.translation.vector,
            b_b: pose_b.translation.vector,
        }
    }

    /// `(P_A(c), P_B(−c))` of eq. for a unit `c` \[m\].
    pub fn points(&self, c: &Vec3) -> (Point3, Point3) {
        let ga = SupportMap::new(&self.m_a, c).value();
        let gb = SupportMap::new(&self.m_b, c).value();
        (Point3::from(self.b_a + ga), Point3::from(self.b_b - gb))
    }

    /// `d(c) = P_A − P_B` (eq.) \[m\].
    pub fn d(&self, c: &Vec3) -> Vec3 {
        let ga = SupportMap::new(&self.m_a, c).value();
        let gb = SupportMap::new(&self.m_b, c).value();
        self.b_a - self.b_b + ga + gb
    }

    /// `f(c) = |d|²` (eq. (2)) \[m²\].
    pub fn f(&self, c: &Vec3) -> Real {
        self.d(c).norm_squared()
    }

    /// `f(c)` with the products behind it kept for [`PairGeometry::sensitivities_at`]
    /// (the same numbers as [`PairGeometry::f`] and [`PairGeometry::sensitivities`]).
    pub fn probe(&self, c: &Vec3) -> Probe {
        let ga = SupportMap::new(&self.m_a, c);
        let gb = SupportMap::new(&self.m_b, c);
        let d = self.b_a - self.b_b + ga.value() + gb.value();
        Probe {
            c: *c,
            mc_a: ga.mc,
            s_a: ga.s,
            mc_b: gb.mc,
            s_b: gb.s,
            f: d.norm_squared(),
        }
    }

    /// Eqs. (3), (4) with, (A-21), for any parametrisation: `c`, its first
    /// derivatives `c_α = [∂c/∂α₁, ∂c/∂α₂]` and second derivatives `c_αα[i][j]`.
    /// `P_B` enters with the sign flip the seed notes after eq., so both
    /// ellipsoids add to `∂d`.
    pub fn sensitivities(&self, c: &Vec3, c_a: &[Vec3; 2], c_aa: &[[Vec3; 2]; 2]) -> Sensitivity {
        self.sensitivities_at(&self.probe(c), c_a, c_aa)
    }

    /// [`PairGeometry::sensitivities`] at a direction already [probed](PairGeometry::probe).
    pub fn sensitivities_at(
        &self,
        probe: &Probe,
        c_a: &[Vec3; 2],
        c_aa: &[[Vec3; 2]; 2],
    ) -> Sensitivity {
        let ga = SupportMap {
            m: &self.m_a,
            mc: probe.mc_a,
            s: probe.s_a,
        };
        let gb = SupportMap {
            m: &self.m_b,
            mc: probe.mc_b,
            s: probe.s_b,
        };
        let d = self.b_a - self.b_b + ga.value() + gb.value();
        // `M c_α` of both bodies, shared by the first and second derivatives.
        let ma = [self.m_a * c_a[0], self.m_a * c_a[1]];
        let mb = [self.m_b * c_a[0], self.m_b * c_a[1]];
        let dd = [
            ga.first_with(&c_a[0], &ma[0]) + gb.first_with(&c_a[0], &mb[0]),
            ga.first_with(&c_a[1], &ma[1]) + gb.first_with(&c_a[1], &mb[1]),
        ];
        let mut hess = Mat2::zeros();
        for i in 0..2 {
            for j in i..2 {
                let ddij = ga.second_with(&c_a[i], &c_a[j], &ma[i], &ma[j])
                    + gb.second_with(&c_a[i], &c_a[j], &mb[i], &mb[j])
                    + ga.first(&c_aa[i][j])
                    + gb.first(&c_aa[i][j]);
                let h = 2.0 * (dd[i].dot(&dd[j]) + d.dot(&ddij));
                hess[(i, j)] = h;
                hess[(j, i)] = h;
            }
        }
        Sensitivity {
            d,
            f: d.norm_squared(),
            grad: Vec2::new(2.0 * d.dot(&dd[0]), 2.0 * d.dot(&dd[1])),
            hess,
        }
    }
}

/// The seed's parametrisation `c(α₁, α₂) = (cos α₁ cos α₂, sin α₁ cos α₂, sin α₂)` in an
/// orthonormal frame `(e₀, e₁, e₂)`, with its first and second derivatives.
pub fn direction_in_frame(frame: &[Vec3; 3], alpha: &Vec2) -> (Vec3, [Vec3; 2], [[Vec3; 2]; 2]) {
    let (s1, c1) = alpha.x.sin_cos();
    let (s2, c2) = alpha.y.sin_cos();
    direction_from_sin_cos(frame, s1, c1, s2, c2)
}

/// [`direction_in_frame`] at `α = 0`, the re-centred iterate of OpM (`sin 0 = 0`,
/// `cos 0 = 1` exactly, so the same numbers without evaluating them).
pub fn direction_at_origin(frame: &[Vec3; 3]) -> (Vec3, [Vec3; 2], [[Vec3; 2]; 2]) {
    direction_from_sin_cos(frame, 0.0, 1.0, 0.0, 1.0)
}

#[inline(always)]
fn direction_from_sin_cos(
    frame: &[Vec3; 3],
    s1: Real,
    c1: Real,
    s2: Real,
    c2: Real,
) -> (Vec3, [Vec3; 2], [[Vec3; 2]; 2]) {
    let comb = |x: Real, y: Real, z: Real| frame[0] * x + frame[1] * y + frame[2] * z;
    let c = comb(c1 * c2, s1 * c2, s2);
    let c_a = [comb(-s1 * c2, c1 * c2, 0.0), comb(-c1 * s2, -s1 * s2, c2)];
    let c11 = comb(-c1 * c2, -s1 * c2, 0.0);
    let c12 = comb(s1 * s2, -c1 * s2, 0.0);
    let c22 = comb(-c1 * c2, -s1 * c2, -s2);
    (c, c_a, [[c11, c12], [c12, c22]])
}

/// A right-handed orthonormal frame whose first vector is the unit `c` (deterministic).
pub fn frame_from(c: &Vec3) -> [Vec3; 3] {
    let axis = if c.x.abs() <= c.y.abs() && c.x.abs() <= c.z.abs() {
        Vec3::x()
    } else if c.y.abs() <= c.z.abs() {
        Vec3::y()
    } else {
        Vec3::z()
    };
    let e1 = c.cross(&axis).normalize();
    let e2 = c.cross(&e1);
    [*c, e1, e2]
}
