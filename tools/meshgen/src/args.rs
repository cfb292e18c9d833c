//! Command-line arguments of `meshgen` (docs/cli.md).

use clap::{Args, Parser, Subcommand, ValueEnum};
use msdem_mesh::generate::{defaults, MeshGenerator, Outlet};
use msdem_mesh::transform::{check_finite, check_scale, ImportTransform, LengthUnit};
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
    /// Convert between OBJ, STL and PLY (format by extension), optionally transformed
    /// (applied in the order --units, --scale, --rotate-deg, --recentre, --translate).
    #[command(allow_negative_numbers = true)]
    Convert {
        /// Input mesh (.ply, .obj or .stl).
        input: PathBuf,
        /// Output file (.ply, .obj or .stl).
        #[arg(short, long)]
        output: PathBuf,
        /// The transform.
        #[command(flatten)]
        transform: TransformArgs,
        /// Close the mesh's holes before anything else: every boundary loop gets a fan of
        /// triangles around a new vertex at its mean (a triangle hole: one triangle), so
        /// the result is closed and consistently oriented; a boundary that is not a set of
        /// simple loops is refused.
        #[arg(long)]
        fill_holes: bool,
        /// Require a closed, manifold, outward particle mesh (as `check --particle`).
        #[arg(long, conflicts_with = "obstacle")]
        particle: bool,
        /// Require a mesh fit for an obstacle (as `check`: finite, no degenerate triangle, no
        /// edge shared by more than two triangles).
        #[arg(long)]
        obstacle: bool,
    },
    /// Print the topology report; exit ≠ 0 if the mesh is unusable.
    #[command(allow_negative_numbers = true)]
    Check {
        /// Mesh to check (.ply, .obj or .stl).
        input: PathBuf,
        /// Require a closed, manifold (no pinch vertex), outward particle mesh.
        #[arg(long)]
        particle: bool,
    },
    /// Print counts, bounding box, surface area, topology and mass properties (volume,
    /// centre of mass, inertia, principal moments, bounding radius) of a mesh, after the
    /// transform if one is given.
    #[command(allow_negative_numbers = true)]
    Info {
        /// Mesh to describe (.ply, .obj or .stl).
        input: PathBuf,
        /// The transform, as for `convert`.
        #[command(flatten)]
        transform: TransformArgs,
        /// Also print mass (kg) and inertia (kg·m²) for this uniform density (kg/m³).
        #[arg(long, value_name = "RHO", value_parser = positive)]
        density_kg_m3: Option<f64>,
    },
}

/// The transform flags of `convert` and `info` ([`ImportTransform`]).
#[derive(Args, Clone, Debug)]
pub struct TransformArgs {
    /// Unit of the file's coordinates (divided by 1000, 100 or 1 to give metres).
    #[arg(long, value_name = "mm|cm|m", value_parser = LengthUnit::parse, default_value = "m")]
    pub units: LengthUnit,
    /// Scale factor > 0, applied after --units.
    #[arg(long, value_name = "FACTOR", value_parser = positive, default_value_t = 1.0)]
    pub scale: f64,
    /// Rotation (degrees) about the fixed x axis, then y, then z (p → Rz·Ry·Rx·p, right-handed, about the origin), after scaling.
    #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], value_parser = finite)]
    pub rotate_deg: Option<Vec<f64>>,
    /// Move the centre of mass (uniform density) to the origin, after rotating; the mesh must be closed and outward.
    #[arg(long, visible_alias = "recenter")]
    pub recentre: bool,
    /// Translation (m), added last.
    #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], value_parser = finite)]
    pub translate: Option<Vec<f64>>,
}

/// A finite number > 0 (the rule of [`check_scale`]).
fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if check_scale(v).is_ok() => Ok(v),
        _ => Err("expected a finite number > 0".to_owned()),
    }
}

/// A finite number (the rule of [`check_finite`]).
fn finite(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if check_finite(v).is_ok() => Ok(v),
        _ => Err("expected a finite number".to_owned()),
    }
}

impl TransformArgs {
    /// The transform the flags describe.
    pub fn transform(&self) -> ImportTransform {
        ImportTransform {
            units: self.units,
            scale: self.scale,
            rotate_deg: self.rotate_deg.as_deref().map_or([0.0; 3], v3),
            recentre: self.recentre,
            translate: self.translate.as_deref().map_or([0.0; 3], v3),
        }
    }
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
    fn transform_flags_parse_back_from_the_pipeline_arguments() {
        let t = ImportTransform {
            units: LengthUnit::Cm,
            scale: 0.25,
            rotate_deg: [-90.0, 0.0, 12.5],
            recentre: true,
            translate: [0.0, -1.0, 2.0],
        };
        let argv = ["meshgen", "convert", "a.obj", "-o", "b.ply"]
            .into_iter()
            .map(str::to_owned)
            .chain(t.meshgen_args());
        let Command::Convert { transform, .. } = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not convert");
        };
        assert_eq!(transform.transform(), t);
        let Command::Info { transform, .. } = Cli::try_parse_from(["meshgen", "info", "a.obj"])
            .unwrap()
            .command
        else {
            panic!("not info");
        };
        assert!(transform.transform().is_identity());
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
