//! The ellipsoid shape in its body frame, its mass properties and its world-frame matrices.
//!
//! Body frame: principal, centroidal, semi-axes `a, b, c` along `x, y, z` (seed 002,
//! Appendix eq.: `(x/r₁)² + (y/r₂)² + (z/r₃)² = 1`). A pose `Iso3` maps body to world
//! (`X = A x + b`, eq., `A` the rotation, `b` the translation).

use crate::error::EllipsoidError;
use crate::math::{Iso3, Mat3, Point3, Real, Vec3};

/// Largest ratio of semi-axes accepted without a warning.
pub const MAX_QUIET_ASPECT_RATIO: Real = 100.0;

/// A tri-axial ellipsoid given by its semi-axes \[m\] (seed 002 eq. ).
///
/// Construct with [`Ellipsoid::new`], which validates the radii; the field is private so
/// an invalid ellipsoid cannot exist.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid {
    radii: [Real; 3],
}

/// Something accepted but worth telling the user about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EllipsoidWarning {
    /// Largest over smallest semi-axis exceeds [`MAX_QUIET_ASPECT_RATIO`]: the contact
    /// iterations still run but converge more slowly and lose digits.
    HighAspectRatio {
        /// The ratio max(a, b, c) / min(a, b, c) \[-\].
        ratio: Real,
    },
}

impl std::fmt::Display for EllipsoidWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EllipsoidWarning::HighAspectRatio { ratio } => write!(
                f,
                "ellipsoid aspect ratio {ratio} exceeds {MAX_QUIET_ASPECT_RATIO}: contact detection loses accuracy"
            ),
        }
    }
}

/// Mass properties of a homogeneous body in its principal centroidal frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass \[kg\].
    pub mass: Real,
    /// Volume \[m³\].
    pub volume: Real,
    /// Centre of mass in the body frame \[m\] (the centre of the ellipsoid).
    pub center_of_mass: Point3,
    /// Principal moments of inertia about the body axes \[kg·m²\].
    pub principal_inertia: Vec3,
}

impl MassProperties {
    /// The inertia tensor in the body frame (diagonal) \[kg·m²\].
    pub fn inertia_tensor(&self) -> Mat3 {
        Mat3::from_diagonal(&self.principal_inertia)
    }
}

impl Ellipsoid {
    /// An ellipsoid with semi-axes `[a, b, c]` \[m\] along body `x, y, z`.
    ///
    /// Errors with [`EllipsoidError::BadRadius`] naming the first radius that is not finite
    /// or not > 0. Large aspect ratios are accepted; see [`Ellipsoid::warning`].
    pub fn new(radii: [Real; 3]) -> Result<Self, EllipsoidError> {
        for (axis, &value) in radii.iter().enumerate() {
            if !(value.is_finite() && value > 0.0) {
                return Err(EllipsoidError::BadRadius {
                    axis,
                    name: ['a', 'b', 'c'][axis],
                    value,
                });
            }
        }
        Ok(Ellipsoid { radii })
    }

    /// A sphere of radius `r` \[m\] as an ellipsoid with three equal semi-axes.
    pub fn sphere(r: Real) -> Result<Self, EllipsoidError> {
        Ellipsoid::new([r, r, r])
    }

    /// The semi-axes `[a, b, c]` \[m\].
    pub fn radii(&self) -> [Real; 3] {
        self.radii
    }

    /// Largest over smallest semi-axis \[-\].
    pub fn aspect_ratio(&self) -> Real {
        self.max_radius() / self.min_radius()
    }

    /// Smallest semi-axis \[m\].
    pub fn min_radius(&self) -> Real {
        self.radii[0].min(self.radii[1]).min(self.radii[2])
    }

    /// Largest semi-axis \[m\]; also the radius of the smallest centred bounding sphere.
    pub fn max_radius(&self) -> Real {
        self.radii[0].max(self.radii[1]).max(self.radii[2])
    }

    /// Radius of the bounding sphere centred on the ellipsoid's centre \[m\].
    pub fn bounding_radius(&self) -> Real {
        self.max_radius()
    }

    /// A warning if the shape is accepted but numerically hard (aspect ratio above
    /// [`MAX_QUIET_ASPECT_RATIO`]).
    pub fn warning(&self) -> Option<EllipsoidWarning> {
        let ratio = self.aspect_ratio();
        (ratio > MAX_QUIET_ASPECT_RATIO).then_some(EllipsoidWarning::HighAspectRatio { ratio })
    }

    /// Volume `4/3 π a b c` \[m³\].
    pub fn volume(&self) -> Real {
        let [a, b, c] = self.radii;
        4.0 / 3.0 * std::f64::consts::PI * a * b * c
    }

    /// Exact mass properties for a homogeneous `density` \[kg/m³\]: mass `ρ V`, centre of
    /// mass at the centre, principal inertia `m/5 (b² + c², a² + c², a² + b²)`.
    pub fn mass_properties(&self, density: Real) -> Result<MassProperties, EllipsoidError> {
        if !(density.is_finite() && density > 0.0) {
            return Err(EllipsoidError::BadDensity(density));
        }
        let [a, b, c] = self.radii;
        let volume = self.volume();
        let mass = density * volume;
        Ok(MassProperties {
            mass,
            volume,
            center_of_mass: Point3::origin(),
            principal_inertia: Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b)
                * (mass / 5.0),
        })
    }

    /// `R²` = diag(a², b², c²) of seed eq. \[m²\].
    pub fn radii_squared(&self) -> Vec3 {
        let [a, b, c] = self.radii;
        Vec3::new(a * a, b * b, c * c)
    }

    /// The implicit function `(x/a)² + (y/b)² + (z/c)² − 1` of eq. at a body-frame
    /// point \[-\]: negative inside, zero on the surface, positive outside.
    pub fn level(&self, p: &Point3) -> Real {
        let [a, b, c] = self.radii;
        (p.x / a).powi(2) + (p.y / b).powi(2) + (p.z / c).powi(2) - 1.0
    }

    /// Whether a body-frame point is inside or on the ellipsoid.
    pub fn contains(&self, p: &Point3) -> bool {
        self.level(p) <= 0.0
    }

    /// Support value `h(u) = max_{x ∈ E} u·x = |R u|` in the body frame \[m\] (for a unit
    /// `u`; `2λ` of seed eq. ).
    pub fn support_value(&self, dir: &Vec3) -> Real {
        let [a, b, c] = self.radii;
        ((a * dir.x).powi(2) + (b * dir.y).powi(2) + (c * dir.z).powi(2)).sqrt()
    }

    /// Support point: the surface point whose outward normal is along `dir` (any length),
    /// `x = R² u / |R u|`, seed eq., in the body frame \[m\]. A zero direction gives
    /// the point `(a, 0, 0)`.
    pub fn support(&self, dir: &Vec3) -> Point3 {
        let h = self.support_value(dir);
        if !(h > 0.0) || !h.is_finite() {
            return Point3::new(self.radii[0], 0.0, 0.0);
        }
        Point3::from(self.radii_squared().component_mul(dir) / h)
    }

    /// Surface point at longitude `theta` and latitude `phi` \[rad\]:
    /// `(a cos φ cos θ, b cos φ sin θ, c sin φ)` in the body frame \[m\].
    pub fn surface_point(&self, theta: Real, phi: Real) -> Point3 {
        let [a, b, c] = self.radii;
        Point3::new(
            a * phi.cos() * theta.cos(),
            b * phi.cos() * theta.sin(),
            c * phi.sin(),
        )
    }

    /// Outward unit normal at a body-frame point, the normalised gradient of eq.,
    /// `(x/a², y/b², z/c²)` (eq. ); exact on the surface, the normal of the confocal
    /// level set elsewhere. The centre gives `+x`.
    pub fn normal_at(&self, p: &Point3) -> Vec3 {
        let g = p.coords.component_div(&self.radii_squared());
        let n = g.norm();
        if n > 0.0 && n.is_finite() {
            g / n
        } else {
            Vec3::x()
        }
    }

    /// `M = A R² Aᵀ` of seed eq. for a pose \[m²\]: `h(u) = √(uᵀ M u)` is the world
    /// support value about the centre.
    pub fn shape_matrix(&self, pose: &Iso3) -> Mat3 {
        let a = pose.rotation.to_rotation_matrix().into_inner();
        a * Mat3::from_diagonal(&self.radii_squared()) * a.transpose()
    }

    /// `A R⁻² Aᵀ`, the upper-left block of seed eq. (7) \[m⁻²\]: the ellipsoid is
    /// `(X − b)ᵀ N (X − b) ≤ 1`.
    pub fn quadric_matrix(&self, pose: &Iso3) -> Mat3 {
        let a = pose.rotation.to_rotation_matrix().into_inner();
        let inv = self.radii_squared().map(|r| 1.0 / r);
        a * Mat3::from_diagonal(&inv) * a.transpose()
    }

    /// World support point for a pose: the point of the posed ellipsoid whose outward
    /// normal is along `dir` (eq.) \[m\].
    pub fn support_world(&self, pose: &Iso3, dir: &Vec3) -> Point3 {
        pose * self.support(&(pose.rotation.inverse() * dir))
    }

    /// World support value `max_{X ∈ E} dir·X` for a pose \[m\] (unit `dir`).
    pub fn support_value_world(&self, pose: &Iso3, dir: &Vec3) -> Real {
        dir.dot(&pose.translation.vector) + self.support_value(&(pose.rotation.inverse() * dir))
    }
}
