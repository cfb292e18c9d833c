//! The shared math aliases of `msdem-geom` (nalgebra, `f64`), re-exported.

pub use msdem_geom::math::{Iso3, Mat3, Point3, Quat, Real, Vec3};

/// 2-vector used by the two-variable problems (OpM angles, projected ellipses).
pub type Vec2 = nalgebra::Vector2<Real>;
/// 2×2 matrix (OpM Hessian, projected ellipse matrices).
pub type Mat2 = nalgebra::Matrix2<Real>;
