//! Ellipsoid contact mathematics of the multiresolution DEM (issue 13, part one), after
//! Pazouki, Mazhar & Negrut, *Parallel collision detection of ellipsoids* (seed 002).
//!
//! * [`shape`]: [`Ellipsoid`] (validated semi-axes \[m\]), exact mass properties, support
//!   function, surface points and normals (Appendix eqs. –(A-13)).
//! * [`mod@chm`]: the characteristic-equation contact filter, ChM (§3, eqs. (7)–(10)).
//! * [`mod@opm`]: the optimisation-based contact, OpM (§2, eqs. (1)–(6)), Newton on the
//!   analytic gradient and Hessian of [`sensitivity`] (Appendix eqs. –(A-21));
//!   [`gradient_descent`] keeps the seed's own solver as a test reference.
//! * [`plane`]: ellipsoid–half-space (closed form); [`triangle`]: ellipsoid–triangle by
//!   feature decomposition on exact point–ellipsoid distances ([`point_distance`]).
//! * [`detection`]: broad + narrow detection of a whole set (seed 002 §4–§5), bounding
//!   spheres through any `msdem_broadphase` broad phase, then ChM/OpM in parallel with a
//!   deterministic output order; [`workload`]: seeded random sets (Table 2's among them);
//!   [`mod@table2`]: Table 2's contact counts, ellipsoid path against sphere path.
//! * [`contact`]: the [`Contact`] result shared by every pair query: normal from B to A,
//!   `signed_distance` > 0 gap, < 0 minus the penetration depth.
//!
//! Poses are [`math::Iso3`] (body → world); everything is `f64`, lengths in metres.
#![warn(missing_docs)]

pub mod chm;
pub mod contact;
pub mod cubic;
pub mod depth_bound;
pub mod detection;
pub mod error;
pub mod gradient_descent;
pub mod math;
pub mod opm;
pub mod plane;
pub mod point_distance;
pub mod sensitivity;
pub mod separating_axis;
pub mod shape;
pub mod table2;
pub mod triangle;
pub mod workload;

pub use chm::{chm, chm_in_contact, ChmReport, ChmState};
pub use contact::{Contact, Status};
pub use detection::{
    bounding_spheres, detect, narrow_phase, DetectionScratch, DetectionStats, Method, PairContact,
};
pub use error::EllipsoidError;
pub use gradient_descent::opm_gradient_descent;
pub use opm::{opm, opm_with, OpmParams};
pub use plane::{ellipsoid_plane, HalfSpace};
pub use point_distance::{signed_distance_point, PointProjection};
pub use shape::{Ellipsoid, EllipsoidWarning, MassProperties};
pub use triangle::{ellipsoid_triangle, Triangle};
pub use workload::{random_ellipsoids, table2, PosedEllipsoid, RandomSetSpec};
