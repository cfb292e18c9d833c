//! Command-line arguments of `meshgen` (docs/cli.md).

use clap::{Parser, Subcommand, ValueEnum};
use msdem_mesh::generate::{defaults, MeshGenerator, Outlet};
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
    /// Generate a mesh (one subcommand per generator).
    #[command(flatten)]
    Generate(Generate),
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

/// The generating subcommands: the parameters of [`MeshGenerator`] as flags, with the
/// defaults of [`defaults`].
#[derive(Subcommand)]
pub enum Generate {
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
        #[arg(long, default_value_t = defaults::ETA)]
        eta: f64,
        /// Noise seed.
        #[arg(long, default_value_t = defaults::SEED)]
        seed: u32,
        /// Perlin octaves (1–16).
        #[arg(long, default_value_t = defaults::OCTAVES)]
        octaves: u32,
        /// Scale factor along x applied afterwards (elongated sphere).
        #[arg(long, default_value_t = defaults::STRETCH)]
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
        #[arg(long, default_value_t = defaults::GRID_SUBDIVISIONS)]
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
        #[arg(long, default_value_t = defaults::GRID_SUBDIVISIONS)]
        subdivisions: u32,
        /// Centre (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = defaults::CENTER)]
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
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = defaults::CENTER)]
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
        #[arg(long, value_enum, default_value_t = defaults::OUTLET.into())]
        outlet: OutletArg,
        /// Wall quads of a round hopper (≥ 3).
        #[arg(long, default_value_t = defaults::SEGMENTS)]
        segments: u32,
        /// Outlet centre (m).
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = defaults::CENTER)]
        center: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Staircase of N steps descending along +x (two triangles per tread and riser).
    #[command(allow_negative_numbers = true)]
    Staircase {
        /// Number of steps N ≥ 1.
        #[arg(long, default_value_t = defaults::STEPS)]
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
        #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], default_values_t = defaults::ORIGIN)]
        origin: Vec<f64>,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
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

impl From<OutletArg> for Outlet {
    fn from(o: OutletArg) -> Outlet {
        match o {
            OutletArg::Square => Outlet::Square,
            OutletArg::Round => Outlet::Round,
        }
    }
}

impl From<Outlet> for OutletArg {
    fn from(o: Outlet) -> OutletArg {
        match o {
            Outlet::Square => OutletArg::Square,
            Outlet::Round => OutletArg::Round,
        }
    }
}

fn v3(v: &[f64]) -> [f64; 3] {
    [v[0], v[1], v[2]]
}

fn v2(v: &[f64]) -> [f64; 2] {
    [v[0], v[1]]
}

impl Generate {
    /// The generator with every parameter as given or defaulted, and the output file.
    pub fn into_parts(self) -> (MeshGenerator, PathBuf) {
        match self {
            Generate::Sphere {
                radius,
                subdivisions,
                eta,
                seed,
                octaves,
                stretch,
                output,
            } => (
                MeshGenerator::Sphere {
                    radius,
                    subdivisions,
                    eta: Some(eta),
                    seed: Some(seed),
                    octaves: Some(octaves),
                    stretch: Some(stretch),
                },
                output,
            ),
            Generate::Ellipsoid {
                radii,
                subdivisions,
                output,
            } => (
                MeshGenerator::Ellipsoid {
                    radii: v3(&radii),
                    subdivisions,
                },
                output,
            ),
            Generate::Box {
                size,
                subdivisions,
                output,
            } => (
                MeshGenerator::Box {
                    size: v3(&size),
                    subdivisions: Some(subdivisions),
                },
                output,
            ),
            Generate::Plane {
                size,
                subdivisions,
                center,
                output,
            } => (
                MeshGenerator::Plane {
                    size: v2(&size),
                    subdivisions: Some(subdivisions),
                    center: Some(v3(&center)),
                },
                output,
            ),
            Generate::Slope {
                size,
                angle,
                center,
                output,
            } => (
                MeshGenerator::Slope {
                    size: v2(&size),
                    angle,
                    center: Some(v3(&center)),
                },
                output,
            ),
            Generate::Hopper {
                top_width,
                outlet_width,
                height,
                outlet,
                segments,
                center,
                output,
            } => (
                MeshGenerator::Hopper {
                    top_width,
                    outlet_width,
                    height,
                    outlet: Some(outlet.into()),
                    segments: Some(segments),
                    center: Some(v3(&center)),
                },
                output,
            ),
            Generate::Staircase {
                steps,
                rise,
                run,
                width,
                origin,
                output,
            } => (
                MeshGenerator::Staircase {
                    steps: Some(steps),
                    rise,
                    run,
                    width,
                    origin: Some(v3(&origin)),
                },
                output,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn outlet_names_on_the_command_line_are_the_library_names() {
        for arg in OutletArg::value_variants() {
            let name = arg.to_possible_value().unwrap();
            assert_eq!(name.get_name(), Outlet::from(*arg).name());
        }
    }

    #[test]
    fn every_generator_is_a_subcommand_and_its_arguments_parse_back() {
        let generators = [
            "sphere --radius 0.1 --subdivisions 2 --eta 1.3 --seed 7 --octaves 5 --stretch 2",
            "ellipsoid --radii 1 2 3 --subdivisions 2",
            "box --size 1 2 3 --subdivisions 2",
            "plane --size 1 2 --subdivisions 3 --center 0 0 -1",
            "slope --size 1 2 --angle 20 --center 1 2 3",
            "hopper --top-width 2 --outlet-width 1 --height 1 --outlet round --segments 8 --center 0 0 1",
            "staircase --steps 3 --rise 0.1 --run 0.2 --width 1 --origin 1 2 3",
        ];
        Cli::command().debug_assert();
        for line in generators {
            let argv = ["meshgen"]
                .into_iter()
                .chain(line.split(' '))
                .chain(["-o", "x.ply"]);
            let Command::Generate(g) = Cli::try_parse_from(argv).unwrap().command else {
                panic!("{line}: not a generator");
            };
            let (generator, output) = g.into_parts();
            assert_eq!(output, PathBuf::from("x.ply"));
            assert_eq!(generator.meshgen_args().join(" "), line);
        }
    }
}
