//! Shared math aliases.
//!
//! Dynamics (positions, velocities, forces) run in double precision ([`Real`] = `f64`);
//! geometry streamed through the triangle kernels is single precision ([`GReal`] = `f32`),
//! as in seed 000 (Implementation remark 2: flat `f32` triangle soup, 9 floats per
//! triangle). Lengths are in metres.

/// Scalar type of the dynamics (positions \[m\], velocities \[m/s\], forces \[N\]).
pub type Real = f64;
/// Scalar type of triangle soups fed to the distance kernels \[m\].
pub type GReal = f32;
/// 3-vector of the dynamics.
pub type Vec3 = nalgebra::Vector3<Real>;
/// Point of the dynamics.
pub type Point3 = nalgebra::Point3<Real>;
/// 3×3 matrix (inertia tensors \[kg·m²\], rotations).
pub type Mat3 = nalgebra::Matrix3<Real>;
/// Unit quaternion for orientations.
pub type Quat = nalgebra::UnitQuaternion<Real>;
/// Rigid transformation (rotation + translation).
pub type Iso3 = nalgebra::Isometry3<Real>;

/// A point of the single-precision triangle soup \[m\].
pub type P32 = [GReal; 3];

/// One triangle of a flat soup: three vertices, counter-clockwise seen from outside
/// (outward normal `(b − a) × (c − a)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tri {
    /// The three vertices \[m\].
    pub v: [P32; 3],
}

impl Tri {
    /// Builds a triangle from three vertices.
    pub fn new(a: P32, b: P32, c: P32) -> Self {
        Tri { v: [a, b, c] }
    }

    /// Applies a rigid transformation (computed in `f64`, stored back in `f32`).
    pub fn transformed(&self, iso: &Iso3) -> Tri {
        let t = |p: &P32| {
            let q = iso * Point3::new(p[0] as Real, p[1] as Real, p[2] as Real);
            [q.x as GReal, q.y as GReal, q.z as GReal]
        };
        Tri {
            v: [t(&self.v[0]), t(&self.v[1]), t(&self.v[2])],
        }
    }
}
