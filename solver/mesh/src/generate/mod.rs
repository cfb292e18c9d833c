//! Deterministic mesh generators (pipeline stage 1, docs/design.md §2).
//!
//! Particles (spheres, ellipsoids, boxes) are closed, outward and free of degenerate
//! triangles. Obstacles (plane, slope, hopper, staircase) are open meshes whose normals face
//! the side the particles are on (up for planes and treads, +x for risers, towards the axis
//! for hopper walls). Parameters are validated; errors name the command-line flag.
//!
//! [`MeshGenerator`] is the one description of a generator and its parameters, shared by
//! `meshgen`'s command line and the `meshes:` section of pipeline files; the defaults of
//! its optional parameters are in [`defaults`].

pub mod defaults;
mod icosphere;
mod noise_sphere;
mod obstacles;
mod solids;
mod spec;

pub use icosphere::{icosphere, MAX_SUBDIVISIONS};
pub use noise_sphere::{noise_sphere, NoiseSphere};
pub use obstacles::{hopper, plane, slope, staircase, Hopper, Outlet, Staircase};
pub use solids::{cuboid, ellipsoid};
pub use spec::MeshGenerator;

use crate::MeshError;

/// Checks that a length-like parameter is finite and strictly positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64, MeshError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(MeshError::parameter(
            name,
            value,
            "must be positive and finite",
        ))
    }
}

/// Checks that every coordinate of a point parameter is finite.
pub(crate) fn finite3(name: &'static str, p: [f64; 3]) -> Result<[f64; 3], MeshError> {
    if p.iter().all(|c| c.is_finite()) {
        Ok(p)
    } else {
        Err(MeshError::parameter(
            name,
            format!("{} {} {}", p[0], p[1], p[2]),
            "must be finite",
        ))
    }
}

/// Checks a quad-grid subdivision count (at least 1, at most 4096 per side).
pub(crate) fn grid_count(name: &'static str, n: u32) -> Result<u32, MeshError> {
    if (1..=4096).contains(&n) {
        Ok(n)
    } else {
        Err(MeshError::parameter(name, n, "must be between 1 and 4096"))
    }
}
