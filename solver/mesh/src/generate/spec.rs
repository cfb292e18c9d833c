//! The parameters of every generator as one typed value: the `meshes:` entries of a pipeline
//! file and the generating subcommands of `meshgen` (docs/cli.md) are both this type.

use serde::{Deserialize, Serialize};

use super::defaults;
use super::{
    cuboid, ellipsoid, hopper, noise_sphere, plane, slope, staircase, Hopper, NoiseSphere, Outlet,
    Staircase,
};
use crate::check::Role;
use crate::{MeshError, TriMesh};

/// One generator and its parameters; lengths \[m\], angles \[degrees\]. Options left out
/// (`None`) take the values of [`defaults`]; they are kept apart from values written out so
/// that [`meshgen_args`](Self::meshgen_args) repeats exactly what was written.
///
/// As YAML: `{ kind: sphere, radius: 0.05, subdivisions: 2, eta: 1.3, seed: 1 }`; unknown
/// keys are refused.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MeshGenerator {
    /// Noisy icosphere (seed 000 §6.1): `20·4^subdivisions` triangles, radius in `[r, η·r]`,
    /// see [`noise_sphere`].
    Sphere {
        /// Base radius `r` \[m\].
        radius: f64,
        /// Icosphere subdivisions `K ≥ 1`.
        subdivisions: u32,
        /// Radius ratio `η ≥ 1` (default [`defaults::ETA`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        eta: Option<f64>,
        /// Noise seed (default [`defaults::SEED`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        seed: Option<u32>,
        /// Perlin octaves (default [`defaults::OCTAVES`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        octaves: Option<u32>,
        /// Scale factor along x (default [`defaults::STRETCH`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        stretch: Option<f64>,
    },
    /// Ellipsoid from an icosphere, see [`ellipsoid`].
    Ellipsoid {
        /// Semi-axes \[m\].
        radii: [f64; 3],
        /// Icosphere subdivisions.
        subdivisions: u32,
    },
    /// Box centred at the origin, see [`cuboid`].
    Box {
        /// Edge lengths \[m\].
        size: [f64; 3],
        /// Quads per face edge (default [`defaults::GRID_SUBDIVISIONS`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        subdivisions: Option<u32>,
    },
    /// Horizontal plane, normal +z, see [`plane`].
    Plane {
        /// Extent in x and y \[m\].
        size: [f64; 2],
        /// Quads per edge (default [`defaults::GRID_SUBDIVISIONS`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        subdivisions: Option<u32>,
        /// Centre \[m\] (default [`defaults::CENTER`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        center: Option<[f64; 3]>,
    },
    /// Plane tilted about x, descending towards +y, see [`slope`].
    Slope {
        /// Extent \[m\].
        size: [f64; 2],
        /// Tilt \[degrees\].
        angle: f64,
        /// Centre \[m\] (default [`defaults::CENTER`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        center: Option<[f64; 3]>,
    },
    /// Funnel with its outlet centred at `center`, see [`hopper`].
    Hopper {
        /// Width at the top \[m\].
        top_width: f64,
        /// Width of the outlet \[m\].
        outlet_width: f64,
        /// Height of the funnel \[m\].
        height: f64,
        /// Outlet shape (default [`defaults::OUTLET`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        outlet: Option<Outlet>,
        /// Wall quads of a round hopper (default [`defaults::SEGMENTS`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        segments: Option<u32>,
        /// Outlet centre \[m\] (default [`defaults::CENTER`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        center: Option<[f64; 3]>,
    },
    /// Staircase descending along +x (seed 004 §8.3), see [`staircase`].
    Staircase {
        /// Number of steps (default [`defaults::STEPS`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        steps: Option<u32>,
        /// Height of one step \[m\].
        rise: f64,
        /// Depth of one step \[m\].
        run: f64,
        /// Width across y \[m\].
        width: f64,
        /// Back edge of the first tread \[m\] (default [`defaults::ORIGIN`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        origin: Option<[f64; 3]>,
    },
}

impl MeshGenerator {
    /// The generator's name: its `kind` in YAML and its `meshgen` subcommand.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Sphere { .. } => "sphere",
            Self::Ellipsoid { .. } => "ellipsoid",
            Self::Box { .. } => "box",
            Self::Plane { .. } => "plane",
            Self::Slope { .. } => "slope",
            Self::Hopper { .. } => "hopper",
            Self::Staircase { .. } => "staircase",
        }
    }

    /// What the mesh is checked as before it is written: spheres, ellipsoids and boxes are
    /// closed particles, the others open obstacles.
    pub fn role(&self) -> Role {
        match self {
            Self::Sphere { .. } | Self::Ellipsoid { .. } | Self::Box { .. } => Role::Particle,
            Self::Plane { .. }
            | Self::Slope { .. }
            | Self::Hopper { .. }
            | Self::Staircase { .. } => Role::Obstacle,
        }
    }

    /// Builds the mesh, options left out taking [`defaults`]; parameter errors name the
    /// `meshgen` flag.
    pub fn generate(&self) -> Result<TriMesh, MeshError> {
        match *self {
            Self::Sphere {
                radius,
                subdivisions,
                eta,
                seed,
                octaves,
                stretch,
            } => noise_sphere(&NoiseSphere {
                radius,
                subdivisions,
                eta: eta.unwrap_or(defaults::ETA),
                seed: seed.unwrap_or(defaults::SEED),
                octaves: octaves.unwrap_or(defaults::OCTAVES),
                stretch: stretch.unwrap_or(defaults::STRETCH),
            }),
            Self::Ellipsoid {
                radii,
                subdivisions,
            } => ellipsoid(radii, subdivisions),
            Self::Box { size, subdivisions } => {
                cuboid(size, subdivisions.unwrap_or(defaults::GRID_SUBDIVISIONS))
            }
            Self::Plane {
                size,
                subdivisions,
                center,
            } => plane(
                size,
                subdivisions.unwrap_or(defaults::GRID_SUBDIVISIONS),
                center.unwrap_or(defaults::CENTER),
            ),
            Self::Slope {
                size,
                angle,
                center,
            } => slope(size, angle, center.unwrap_or(defaults::CENTER)),
            Self::Hopper {
                top_width,
                outlet_width,
                height,
                outlet,
                segments,
                center,
            } => hopper(&Hopper {
                top_width,
                outlet_width,
                height,
                outlet: outlet.unwrap_or(defaults::OUTLET),
                segments: segments.unwrap_or(defaults::SEGMENTS),
                center: center.unwrap_or(defaults::CENTER),
            }),
            Self::Staircase {
                steps,
                rise,
                run,
                width,
                origin,
            } => staircase(&Staircase {
                steps: steps.unwrap_or(defaults::STEPS),
                rise,
                run,
                width,
                origin: origin.unwrap_or(defaults::ORIGIN),
            }),
        }
    }

    /// The `meshgen` command line that builds this mesh, without `-o OUT`: the subcommand,
    /// then every parameter as written (options left out are left out, so `meshgen` applies
    /// the same [`defaults`]). Numbers are printed as the shortest text that reads back to
    /// the same value, so the arguments are a stable function of the parameters.
    pub fn meshgen_args(&self) -> Vec<String> {
        let mut a = Args(vec![self.kind().to_owned()]);
        match self {
            Self::Sphere {
                radius,
                subdivisions,
                eta,
                seed,
                octaves,
                stretch,
            } => {
                a.flag("--radius", Some(radius));
                a.flag("--subdivisions", Some(subdivisions));
                a.flag("--eta", eta.as_ref());
                a.flag("--seed", seed.as_ref());
                a.flag("--octaves", octaves.as_ref());
                a.flag("--stretch", stretch.as_ref());
            }
            Self::Ellipsoid {
                radii,
                subdivisions,
            } => {
                a.list("--radii", Some(radii));
                a.flag("--subdivisions", Some(subdivisions));
            }
            Self::Box { size, subdivisions } => {
                a.list("--size", Some(size));
                a.flag("--subdivisions", subdivisions.as_ref());
            }
            Self::Plane {
                size,
                subdivisions,
                center,
            } => {
                a.list("--size", Some(size));
                a.flag("--subdivisions", subdivisions.as_ref());
                a.list("--center", center.as_ref());
            }
            Self::Slope {
                size,
                angle,
                center,
            } => {
                a.list("--size", Some(size));
                a.flag("--angle", Some(angle));
                a.list("--center", center.as_ref());
            }
            Self::Hopper {
                top_width,
                outlet_width,
                height,
                outlet,
                segments,
                center,
            } => {
                a.flag("--top-width", Some(top_width));
                a.flag("--outlet-width", Some(outlet_width));
                a.flag("--height", Some(height));
                a.flag("--outlet", outlet.map(Outlet::name).as_ref());
                a.flag("--segments", segments.as_ref());
                a.list("--center", center.as_ref());
            }
            Self::Staircase {
                steps,
                rise,
                run,
                width,
                origin,
            } => {
                a.flag("--steps", steps.as_ref());
                a.flag("--rise", Some(rise));
                a.flag("--run", Some(run));
                a.flag("--width", Some(width));
                a.list("--origin", origin.as_ref());
            }
        }
        a.0
    }
}

/// A command line under construction.
struct Args(Vec<String>);

impl Args {
    /// `FLAG VALUE` if there is a value (`Display` of `f64` is the shortest round-trip text).
    fn flag(&mut self, flag: &str, value: Option<&impl std::fmt::Display>) {
        if let Some(v) = value {
            self.0.extend([flag.to_owned(), v.to_string()]);
        }
    }

    /// `FLAG X Y …` if there are values.
    fn list<const N: usize>(&mut self, flag: &str, values: Option<&[f64; N]>) {
        if let Some(v) = values {
            self.0.push(flag.to_owned());
            self.0.extend(v.iter().map(f64::to_string));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sphere() -> MeshGenerator {
        MeshGenerator::Sphere {
            radius: 0.1,
            subdivisions: 2,
            eta: Some(1.3),
            seed: None,
            octaves: None,
            stretch: Some(2.0),
        }
    }

    #[test]
    fn arguments_repeat_what_was_written_and_nothing_else() {
        assert_eq!(
            sphere().meshgen_args().join(" "),
            "sphere --radius 0.1 --subdivisions 2 --eta 1.3 --stretch 2"
        );
        let hopper = MeshGenerator::Hopper {
            top_width: 1.4,
            outlet_width: 0.55,
            height: 0.7,
            outlet: Some(Outlet::Round),
            segments: None,
            center: Some([0.0, -0.0, 0.1 + 0.2]),
        };
        assert_eq!(
            hopper.meshgen_args().join(" "),
            "hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 --outlet round \
             --center 0 -0 0.30000000000000004"
        );
    }

    #[test]
    fn options_left_out_take_the_defaults() {
        let written = MeshGenerator::Staircase {
            steps: Some(defaults::STEPS),
            rise: 0.1,
            run: 0.2,
            width: 1.0,
            origin: Some(defaults::ORIGIN),
        };
        let left_out = MeshGenerator::Staircase {
            steps: None,
            rise: 0.1,
            run: 0.2,
            width: 1.0,
            origin: None,
        };
        assert_eq!(written.generate().unwrap(), left_out.generate().unwrap());
        let full = MeshGenerator::Sphere {
            radius: 0.1,
            subdivisions: 2,
            eta: Some(1.3),
            seed: Some(defaults::SEED),
            octaves: Some(defaults::OCTAVES),
            stretch: Some(2.0),
        };
        assert_eq!(full.generate().unwrap(), sphere().generate().unwrap());
    }

    #[test]
    fn yaml_round_trip_keeps_options_left_out() {
        let text = serde_norway::to_string(&sphere()).unwrap();
        assert!(!text.contains("seed"), "{text}");
        let back: MeshGenerator = serde_norway::from_str(&text).unwrap();
        assert_eq!(back, sphere());
    }

    #[test]
    fn unknown_keys_and_out_of_range_seeds_are_refused() {
        let typo = "{ kind: sphere, radius: 1, subdivisions: 1, octave: 3 }";
        let e = serde_norway::from_str::<MeshGenerator>(typo).unwrap_err();
        assert!(e.to_string().contains("unknown field `octave`"), "{e}");
        let big = "{ kind: sphere, radius: 1, subdivisions: 1, seed: 4294967296 }";
        let e = serde_norway::from_str::<MeshGenerator>(big).unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid value: integer `4294967296`, expected u32"),
            "{e}"
        );
    }

    #[test]
    fn outlet_names_are_the_yaml_names() {
        for outlet in [Outlet::Square, Outlet::Round] {
            let yaml = serde_norway::to_string(&outlet).unwrap();
            assert_eq!(yaml.trim(), outlet.name());
        }
    }
}
