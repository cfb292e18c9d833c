//! Where the geometry of shapes and obstacles comes from — the one difference between a
//! scenario file and the `scenario:` section of a pipeline file.
//!
//! A scenario file gives each shape and obstacle its files, `mesh: PATH, tree: PATH`
//! ([`MeshFiles`], relative to the scenario file's folder); a pipeline file names a tree of
//! the pipeline, `tree: NAME` ([`TreeName`]), whose mesh is the tree's mesh, and has no
//! `version` or `name` in its scenario section (the runner writes the pipeline's). The
//! scenario types are generic over the [`GeometrySource`]; each form accepts only its own
//! keys, and every refusal is reported at the offending key's value (or, for a missing
//! key, at the shape's or obstacle's mapping).

use std::fmt;
use std::marker::PhantomData;
use std::path::PathBuf;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::values::{default_restitution, identity_quaternion};
use crate::{halo, names, values};

/// The geometry of a shape or obstacle as one form of scenario writes it.
pub trait GeometrySource:
    Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + Sealed
{
    /// The form's `mesh` and `tree` keys, as written, into a source. `mesh` is `None` where
    /// the key is absent (refused by [`GeometrySource::check_mesh`] where it is not used);
    /// `tree` has passed [`GeometrySource::check_tree`]. `Err` is the message.
    fn from_keys(mesh: Option<PathBuf>, tree: String) -> Result<Self, String>;
    /// Checks a written `mesh` value.
    fn check_mesh() -> Result<(), String>;
    /// Checks a written `tree` value.
    fn check_tree(tree: &str) -> Result<(), String>;
    /// Checks a written `version` or `name` (the pipeline form has neither).
    fn check_identity(key: &str) -> Result<(), String>;
}

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// A scenario file's shape or obstacle geometry: a mesh file and the surrogate tree built
/// from it by `treebuild`, both relative to the scenario file's folder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshFiles {
    /// Mesh file (closed for a particle shape, may be open for an obstacle).
    pub mesh: PathBuf,
    /// Surrogate-tree file built from `mesh` by `treebuild` (`--obstacle` for obstacles).
    pub tree: PathBuf,
}

/// A particle shape (`shapes.NAME`) of a scenario file: a closed mesh and its prebuilt
/// surrogate tree, or an ellipsoid.
pub type ShapeSpec = ShapeSource<MeshFiles>;

/// An analytic ellipsoid shape (`shapes.NAME.ellipsoid`, seed 002): no mesh, no tree.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EllipsoidSpec {
    /// Semi-axes along the shape's x, y and z axes \[m\], each finite and > 0.
    #[serde(deserialize_with = "values::positive3")]
    pub radii: [f64; 3],
}

impl EllipsoidSpec {
    /// Largest over smallest semi-axis [-] (a warning above 100).
    pub fn aspect_ratio(&self) -> f64 {
        let max = self.radii.iter().copied().fold(f64::MIN, f64::max);
        let min = self.radii.iter().copied().fold(f64::MAX, f64::min);
        max / min
    }
}

/// A particle shape as a form of scenario writes it: a mesh from the form's
/// [`GeometrySource`] (`mesh`/`tree` keys), or `ellipsoid: { radii: [a, b, c] }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged, bound = "G: GeometrySource")]
pub enum ShapeSource<G> {
    /// A triangle mesh with its surrogate tree.
    Mesh(G),
    /// An ellipsoid.
    Ellipsoid {
        /// Its semi-axes.
        ellipsoid: EllipsoidSpec,
    },
}

impl<G> ShapeSource<G> {
    /// The mesh source, for a mesh shape.
    pub fn mesh(&self) -> Option<&G> {
        match self {
            ShapeSource::Mesh(g) => Some(g),
            ShapeSource::Ellipsoid { .. } => None,
        }
    }

    /// The same shape with its mesh source replaced by `f(source)`.
    pub fn map<H>(&self, f: impl FnOnce(&G) -> H) -> ShapeSource<H> {
        match self {
            ShapeSource::Mesh(g) => ShapeSource::Mesh(f(g)),
            ShapeSource::Ellipsoid { ellipsoid } => ShapeSource::Ellipsoid {
                ellipsoid: *ellipsoid,
            },
        }
    }
}

impl Sealed for MeshFiles {}

impl GeometrySource for MeshFiles {
    fn from_keys(mesh: Option<PathBuf>, tree: String) -> Result<Self, String> {
        match mesh {
            Some(mesh) => Ok(MeshFiles {
                mesh,
                tree: tree.into(),
            }),
            None => Err("missing field `mesh`".to_owned()),
        }
    }

    fn check_mesh() -> Result<(), String> {
        Ok(())
    }

    fn check_tree(_: &str) -> Result<(), String> {
        Ok(())
    }

    fn check_identity(_: &str) -> Result<(), String> {
        Ok(())
    }
}

/// A pipeline's shape or obstacle geometry: a tree declared under the pipeline's `trees:`
/// (the mesh is the one that tree is built from).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TreeName {
    /// Name of the tree under `trees:`.
    pub tree: String,
}

impl Sealed for TreeName {}

impl GeometrySource for TreeName {
    fn from_keys(mesh: Option<PathBuf>, tree: String) -> Result<Self, String> {
        debug_assert!(mesh.is_none(), "refused by check_mesh");
        Ok(TreeName { tree })
    }

    fn check_mesh() -> Result<(), String> {
        Err(
            "a pipeline names a tree (`tree: NAME`) and its mesh comes with the tree; \
             leave `mesh` out"
                .to_owned(),
        )
    }

    fn check_tree(tree: &str) -> Result<(), String> {
        names::check_tree(tree)
    }

    fn check_identity(key: &str) -> Result<(), String> {
        Err(format!(
            "the scenario of a pipeline takes its `{key}` from the pipeline file; leave \
             `{key}` out here"
        ))
    }
}

/// The keys `mesh` and `tree` of a shape or obstacle, each checked where it is written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct Keys<G: GeometrySource> {
    #[serde(default, deserialize_with = "mesh::<G, _>")]
    mesh: Option<PathBuf>,
    #[serde(deserialize_with = "tree::<G, _>")]
    tree: String,
    #[serde(skip)]
    form: PhantomData<G>,
}

fn mesh<'de, G: GeometrySource, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    struct MeshVisitor<G>(PhantomData<G>);

    impl<G: GeometrySource> Visitor<'_> for MeshVisitor<G> {
        type Value = PathBuf;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("path string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<PathBuf, E> {
            G::check_mesh().map_err(E::custom)?;
            Ok(v.into())
        }
    }

    d.deserialize_str(MeshVisitor::<G>(PhantomData)).map(Some)
}

fn tree<'de, G: GeometrySource, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct TreeVisitor<G>(PhantomData<G>);

    impl<G: GeometrySource> Visitor<'_> for TreeVisitor<G> {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("path string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            G::check_tree(v).map_err(E::custom)?;
            Ok(v.to_owned())
        }
    }

    d.deserialize_str(TreeVisitor::<G>(PhantomData))
}

/// `version` of a scenario: the form decides whether it may be written (a scenario file's
/// version is checked before, see `load`).
pub(crate) fn version<'de, G: GeometrySource, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    struct VersionVisitor<G>(PhantomData<G>);

    impl<G: GeometrySource> Visitor<'_> for VersionVisitor<G> {
        type Value = u32;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("u32")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
            G::check_identity("version").map_err(E::custom)?;
            u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
            G::check_identity("version").map_err(E::custom)?;
            u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }
    }

    d.deserialize_u32(VersionVisitor::<G>(PhantomData))
}

/// `name` of a scenario: the form decides whether it may be written.
pub(crate) fn name<'de, G: GeometrySource, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct NameVisitor<G>(PhantomData<G>);

    impl<G: GeometrySource> Visitor<'_> for NameVisitor<G> {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            G::check_identity("name").map_err(E::custom)?;
            Ok(v.to_owned())
        }
    }

    d.deserialize_string(NameVisitor::<G>(PhantomData))
}

/// The keys of a particle shape: a mesh source's, or `ellipsoid`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct ShapeKeys<G: GeometrySource> {
    #[serde(default, deserialize_with = "mesh::<G, _>")]
    mesh: Option<PathBuf>,
    #[serde(default, deserialize_with = "some_tree::<G, _>")]
    tree: Option<String>,
    #[serde(default)]
    ellipsoid: Option<EllipsoidSpec>,
    #[serde(skip)]
    form: PhantomData<G>,
}

fn some_tree<'de, G: GeometrySource, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<String>, D::Error> {
    tree::<G, D>(d).map(Some)
}

impl<'de, G: GeometrySource> Deserialize<'de> for ShapeSource<G> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ShapeVisitor<G>(PhantomData<G>);

        impl<'de, G: GeometrySource> Visitor<'de> for ShapeVisitor<G> {
            type Value = ShapeSource<G>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a shape mapping (a mesh, or `ellipsoid: { radii: [a, b, c] }`)")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let keys = ShapeKeys::<G>::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match (keys.ellipsoid, keys.tree) {
                    (Some(_), Some(_)) => Err(de::Error::custom(
                        "a shape is either a mesh (`tree`) or an `ellipsoid`, not both",
                    )),
                    (Some(_), None) if keys.mesh.is_some() => Err(de::Error::custom(
                        "a shape is either a mesh (`mesh`) or an `ellipsoid`, not both",
                    )),
                    (Some(ellipsoid), None) => Ok(ShapeSource::Ellipsoid { ellipsoid }),
                    (None, None) => Err(de::Error::missing_field("tree")),
                    (None, Some(tree)) => G::from_keys(keys.mesh, tree)
                        .map(ShapeSource::Mesh)
                        .map_err(de::Error::custom),
                }
            }
        }

        d.deserialize_map(ShapeVisitor::<G>(PhantomData))
    }
}

/// Deserializes a source from a shape's mapping.
fn shape<'de, G: GeometrySource, D: Deserializer<'de>>(d: D) -> Result<G, D::Error> {
    struct ShapeVisitor<G>(PhantomData<G>);

    impl<'de, G: GeometrySource> Visitor<'de> for ShapeVisitor<G> {
        type Value = G;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a shape mapping")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<G, A::Error> {
            let keys = Keys::<G>::deserialize(de::value::MapAccessDeserializer::new(map))?;
            G::from_keys(keys.mesh, keys.tree).map_err(de::Error::custom)
        }
    }

    d.deserialize_map(ShapeVisitor::<G>(PhantomData))
}

impl<'de> Deserialize<'de> for MeshFiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        shape(d)
    }
}

impl<'de> Deserialize<'de> for TreeName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        shape(d)
    }
}

/// A static obstacle (`obstacles[i]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "G: GeometrySource")]
pub struct ObstacleSpec<G = MeshFiles> {
    /// Name.
    pub name: String,
    /// Mesh and tree (a scenario file: `mesh: PATH, tree: PATH`, built by `treebuild
    /// --obstacle`; a pipeline: `tree: NAME`).
    #[serde(flatten)]
    pub geometry: G,
    /// Halo width \[m\], > 0, written `halo: { absolute_m: X }` (an obstacle has no
    /// bounding diameter for a `relative` halo).
    #[serde(rename = "halo", serialize_with = "halo::serialize_absolute")]
    pub halo_m: f64,
    /// Coulomb friction coefficient against particles, ≥ 0 (default 0).
    pub friction: f64,
    /// Coefficient of restitution against particles in (0, 1] (default 1).
    pub restitution: f64,
    /// Young's modulus against Hertz–Mindlin particles \[Pa\], > 0 (default: rigid,
    /// `E = ∞`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub youngs_modulus_pa: Option<f64>,
    /// Poisson's ratio in (−1, 0.5) (default 0; needs `youngs_modulus_pa`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poisson_ratio: Option<f64>,
    /// Rolling friction coefficient μ_r against Hertz–Mindlin particles, ≥ 0 (default 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub rolling_friction: f64,
    /// Translation applied to the mesh \[m\] (default 0).
    pub translation: [f64; 3],
    /// Rotation applied to the mesh before the translation, `[w, x, y, z]` (default
    /// identity; normalised).
    pub rotation: [f64; 4],
}

/// An obstacle's keys as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct ObstacleKeys<G: GeometrySource> {
    name: String,
    #[serde(default, deserialize_with = "mesh::<G, _>")]
    mesh: Option<PathBuf>,
    #[serde(deserialize_with = "tree::<G, _>")]
    tree: String,
    #[serde(deserialize_with = "halo::obstacle")]
    halo: f64,
    #[serde(default, deserialize_with = "values::non_negative")]
    friction: f64,
    #[serde(
        default = "default_restitution",
        deserialize_with = "values::restitution"
    )]
    restitution: f64,
    #[serde(default, deserialize_with = "values::some_positive")]
    youngs_modulus_pa: Option<f64>,
    #[serde(default, deserialize_with = "values::some_poisson_ratio")]
    poisson_ratio: Option<f64>,
    #[serde(default, deserialize_with = "values::non_negative")]
    rolling_friction: f64,
    #[serde(default, deserialize_with = "values::vec3")]
    translation: [f64; 3],
    #[serde(
        default = "identity_quaternion",
        deserialize_with = "values::quaternion"
    )]
    rotation: [f64; 4],
    #[serde(skip)]
    form: PhantomData<G>,
}

impl<'de, G: GeometrySource> Deserialize<'de> for ObstacleSpec<G> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObstacleVisitor<G>(PhantomData<G>);

        impl<'de, G: GeometrySource> Visitor<'de> for ObstacleVisitor<G> {
            type Value = ObstacleSpec<G>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an obstacle mapping")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ObstacleSpec<G>, A::Error> {
                let map = halo::WithoutEpsilon::new(map, halo::obstacle_epsilon_hint);
                let k = ObstacleKeys::<G>::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let _ = k.form;
                if k.poisson_ratio.is_some() && k.youngs_modulus_pa.is_none() {
                    return Err(de::Error::custom(
                        "`poisson_ratio` needs `youngs_modulus_pa` (without both the obstacle is rigid)",
                    ));
                }
                Ok(ObstacleSpec {
                    name: k.name,
                    geometry: G::from_keys(k.mesh, k.tree).map_err(de::Error::custom)?,
                    halo_m: k.halo,
                    friction: k.friction,
                    restitution: k.restitution,
                    youngs_modulus_pa: k.youngs_modulus_pa,
                    poisson_ratio: k.poisson_ratio,
                    rolling_friction: k.rolling_friction,
                    translation: k.translation,
                    rotation: k.rotation,
                })
            }
        }

        d.deserialize_map(ObstacleVisitor::<G>(PhantomData))
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}
