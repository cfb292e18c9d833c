//! Command-line arguments of `meshgen` (docs/cli.md).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Mesh generator and converter (lengths in metres, angles in degrees, z up).
#[derive(Parser)]
#[command(name = "meshgen", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Icosphere with Perlin-noise radii in [R, E·R], optionally stretched along x.
    #[command(allow_negative_numbers = true)]
    Sphere {
        /// Base (smallest vertex) radius R (m).
        #[arg(long)]
        radius: f64,
        /// Subdivisions K ≥ 1 (20·4^K triangles).
        #[arg(long)]
        subdivisions: u32,
        /// Radius ratio E ≥ 1 (1 = exact triangulated sphere).
        #[arg(long, default_value_t = 1.0)]
        eta: f64,
        /// Noise seed.
        #[arg(long, default_value_t = 0)]
        seed: u32,
        /// Perlin octaves (1–16).
        #[arg(long, default_value_t = 4)]
        octaves: u32,
        /// Scale factor along x applied afterwards (elongated sphere).
        #[arg(long, default_value_t = 1.0)]
        stretch: f64,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Icosphere scaled by the semi-axes A B C.
    #[command(allow_negative_numbers = true)]
    Ellipsoid {
        /// Semi-axes along x, y, z (m).
        #[arg(long, num_args = 3, value_names = ["A", "B", "C"], required = true)]
        radii: Vec<f64>,
        /// Subdivisions K ≥ 1 (20·4^K triangles).
        #[arg(long)]
        subdivisions: u32,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Box centred at the origin, each face split into N×N quads.
    #[command(allow_negative_numbers = true)]
    Box {
        /// Edge lengths along x, y, z (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], required = true)]
        size: Vec<f64>,
        /// Quads per face side N ≥ 1.
        #[arg(long, default_value_t = 1)]
        subdivisions: u32,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Horizontal rectangle (normal +z), an open obstacle.
    #[command(allow_negative_numbers = true)]
    Plane {
        /// Extent along x and y (m).
        #[arg(long, num_args = 2, value_names = ["X", "Y"], required = true)]
        size: Vec<f64>,
        /// Quads per side N ≥ 1.
        #[arg(long, default_value_t = 1)]
        subdivisions: u32,
        /// Centre (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = [0.0, 0.0, 0.0])]
        center: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Rectangle rotated about x by DEG, descending towards +y.
    #[command(allow_negative_numbers = true)]
    Slope {
        /// Extent along x and y before rotation (m).
        #[arg(long, num_args = 2, value_names = ["X", "Y"], required = true)]
        size: Vec<f64>,
        /// Inclination in [0, 90) degrees.
        #[arg(long, value_name = "DEG")]
        angle: f64,
        /// Centre (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = [0.0, 0.0, 0.0])]
        center: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Funnel with its outlet at --center and its top H above.
    #[command(allow_negative_numbers = true)]
    Hopper {
        /// Top opening width A (m).
        #[arg(long)]
        top_width: f64,
        /// Outlet width B < A (m).
        #[arg(long)]
        outlet_width: f64,
        /// Height H of the top above the outlet (m).
        #[arg(long)]
        height: f64,
        /// Outlet shape.
        #[arg(long, value_enum, default_value_t = OutletArg::Square)]
        outlet: OutletArg,
        /// Wall quads of a round hopper (≥ 3).
        #[arg(long, default_value_t = 32)]
        segments: u32,
        /// Outlet centre (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = [0.0, 0.0, 0.0])]
        center: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Staircase of N steps descending along +x (two triangles per tread and riser).
    #[command(allow_negative_numbers = true)]
    Staircase {
        /// Number of steps N ≥ 1.
        #[arg(long, default_value_t = 20)]
        steps: u32,
        /// Riser height H (m).
        #[arg(long)]
        rise: f64,
        /// Tread depth D along x (m).
        #[arg(long)]
        run: f64,
        /// Width W along y (m).
        #[arg(long)]
        width: f64,
        /// Back edge of the first tread (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = [0.0, 0.0, 0.0])]
        origin: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Convert between OBJ, STL and PLY (format by extension).
    #[command(allow_negative_numbers = true)]
    Convert {
        /// Input mesh (.ply, .obj or .stl).
        input: PathBuf,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print the topology report; exit ≠ 0 if the mesh is unusable.
    #[command(allow_negative_numbers = true)]
    Check {
        /// Mesh to check (.ply, .obj or .stl).
        input: PathBuf,
        /// Require a closed, outward particle mesh (positive signed volume).
        #[arg(long)]
        particle: bool,
    },
}

/// Hopper outlet shape.
#[derive(Clone, Copy, ValueEnum)]
pub enum OutletArg {
    /// Four trapezoid walls.
    Square,
    /// --segments wall quads.
    Round,
}
