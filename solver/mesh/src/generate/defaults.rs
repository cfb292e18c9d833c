//! Default values of the optional generator parameters, shared by `meshgen`'s command line
//! (`default_value_t`) and [`MeshGenerator`](super::MeshGenerator) entries that leave them
//! out (docs/cli.md).

use super::Outlet;

/// Radius ratio `η_r` of a sphere: 1 = exact triangulated sphere.
pub const ETA: f64 = 1.0;
/// Perlin noise seed of a sphere.
pub const SEED: u32 = 0;
/// Perlin octaves of a sphere.
pub const OCTAVES: u32 = 4;
/// Scale factor along x of a sphere.
pub const STRETCH: f64 = 1.0;
/// Quads per side of a box face or a plane.
pub const GRID_SUBDIVISIONS: u32 = 1;
/// Centre of a plane or slope, and outlet centre of a hopper \[m\].
pub const CENTER: [f64; 3] = [0.0; 3];
/// Outlet shape of a hopper.
pub const OUTLET: Outlet = Outlet::Square;
/// Wall quads of a round hopper.
pub const SEGMENTS: u32 = 32;
/// Number of steps of a staircase.
pub const STEPS: u32 = 20;
/// Back edge of a staircase's first tread \[m\].
pub const ORIGIN: [f64; 3] = [0.0; 3];
