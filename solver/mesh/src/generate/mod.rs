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

/// The most triangles a generator makes: 10⁷ triangles take about 0.5 GB as a mesh and
/// several times that in the tree builder; a larger mesh is refused before it is built.
pub const MAX_TRIANGLES: u64 = 10_000_000;

/// Checks a quad-grid subdivision count `n` (at least 1, at most 4096 per side) of a mesh
/// of `triangles_per_cell · n²` triangles, at most [`MAX_TRIANGLES`].
pub(crate) fn grid_count(
    name: &'static str,
    n: u32,
    triangles_per_cell: u64,
) -> Result<u32, MeshError> {
    if !(1..=4096).contains(&n) {
        return Err(MeshError::parameter(name, n, "must be between 1 and 4096"));
    }
    let triangles = triangles_per_cell * u64::from(n) * u64::from(n);
    if triangles > MAX_TRIANGLES {
        return Err(MeshError::parameter(
            name,
            n,
            format!("would make {triangles} triangles, more than the cap of {MAX_TRIANGLES}"),
        ));
    }
    Ok(n)
}
