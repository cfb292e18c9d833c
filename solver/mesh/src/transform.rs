//! Transforms applied to an imported mesh: unit, scale, rotation, recentring, translation.
//!
//! The same type backs the flags of `meshgen convert`/`meshgen info` and the keys of a
//! pipeline's `{ import: FILE, … }` mesh (docs/cli.md, pipelines/README.md). The steps are
//! applied in this order, each to the result of the one before:
//!
//! 1. `units` (`mm`, `cm` or `m`, default `m`): the file's coordinates are divided by 1000,
//!    100 or 1, giving metres;
//! 2. `scale` (factor > 0, default 1): coordinates multiplied by it;
//! 3. `rotate_deg: [x, y, z]` \[degrees\] (default none): rotation about the fixed x axis
//!    by `x`, then about the fixed y axis by `y`, then about the fixed z axis by `z`, all
//!    about the origin, right-handed (counter-clockwise looking down the axis): the point
//!    `p` becomes `Rz(z) · Ry(y) · Rx(x) · p` — extrinsic x-y-z Euler angles, the same as
//!    SciPy's `Rotation.from_euler("xyz", [x, y, z], degrees=True)`;
//! 4. `recentre` (default false): the mesh is moved so that its centre of mass (uniform
//!    density) is at the origin — it must then be closed and outward;
//! 5. `translate: [x, y, z]` \[m\] (default none): added to every vertex.
//!
//! Multiples of 90° rotate exactly (their sines and cosines are exact), and steps left at
//! their defaults are skipped, so the identity transform leaves every coordinate's bits
//! unchanged.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::check::{check_mesh, Role};
use crate::io::SourceMap;
use crate::mass::mass_properties;
use crate::{MeshError, TriMesh};

/// The length unit of a mesh file's coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LengthUnit {
    /// Millimetres.
    Mm,
    /// Centimetres.
    Cm,
    /// Metres (the default).
    #[default]
    M,
}

impl LengthUnit {
    /// Every unit, smallest first.
    pub const ALL: [LengthUnit; 3] = [Self::Mm, Self::Cm, Self::M];

    /// The unit's symbol as written in files and on the command line (`mm`, `cm`, `m`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Mm => "mm",
            Self::Cm => "cm",
            Self::M => "m",
        }
    }

    /// How many of this unit make a metre (1000, 100, 1): coordinates are divided by it.
    pub fn per_metre(self) -> f64 {
        match self {
            Self::Mm => 1000.0,
            Self::Cm => 100.0,
            Self::M => 1.0,
        }
    }

    /// The unit called `name`, or a message listing the accepted names.
    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|u| u.name() == name)
            .ok_or_else(|| format!("unknown unit `{name}`, expected mm, cm or m"))
    }
}

impl fmt::Display for LengthUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The transform of an imported mesh (see the [module documentation](self) for the order
/// of the steps). [`Default`] is the identity.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportTransform {
    /// Unit of the file's coordinates.
    pub units: LengthUnit,
    /// Scale factor applied after the unit, `> 0` and finite.
    pub scale: f64,
    /// Rotation angles about the fixed x, y and z axes \[degrees\], applied in that order.
    pub rotate_deg: [f64; 3],
    /// Move the centre of mass to the origin (after rotating, before translating).
    pub recentre: bool,
    /// Translation added last \[m\].
    pub translate: [f64; 3],
}

impl Default for ImportTransform {
    fn default() -> Self {
        Self {
            units: LengthUnit::M,
            scale: 1.0,
            rotate_deg: [0.0; 3],
            recentre: false,
            translate: [0.0; 3],
        }
    }
}

/// What a number must be, as error messages say it.
const POSITIVE: &str = "a finite number > 0";
const FINITE: &str = "a finite number";

/// Formats a number the way YAML spells the special values.
fn show(v: f64) -> String {
    if v.is_nan() {
        ".nan".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else {
        v.to_string()
    }
}

/// Checks a scale factor: finite and `> 0`. The message is the one of the pipeline file.
pub fn check_scale(v: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("invalid value {}, expected {POSITIVE}", show(v)))
    }
}

/// Checks an angle \[degrees\] or a translation component \[m\]: finite.
pub fn check_finite(v: f64) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("invalid value {}, expected {FINITE}", show(v)))
    }
}

/// `sin` and `cos` of an angle in degrees, exact for multiples of 90°.
fn sin_cos_deg(deg: f64) -> (f64, f64) {
    let r = deg.rem_euclid(360.0);
    match r {
        0.0 => (0.0, 1.0),
        90.0 => (1.0, 0.0),
        180.0 => (0.0, -1.0),
        270.0 => (-1.0, 0.0),
        _ => r.to_radians().sin_cos(),
    }
}

fn matmul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// Shortest text that reads back to the same number (as the generators' arguments).
fn arg(v: f64) -> String {
    v.to_string()
}

impl ImportTransform {
    /// The keys of a pipeline's import entry that set this transform, in the order of
    /// application.
    pub const KEYS: [&'static str; 5] = ["units", "scale", "rotate_deg", "recentre", "translate"];

    /// True when every step is left at its default.
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }

    /// Refuses a scale that is not finite and `> 0`, and non-finite angles or translations,
    /// naming the `meshgen` flag.
    pub fn check(&self) -> Result<(), MeshError> {
        check_scale(self.scale).map_err(|e| MeshError::parameter("--scale", self.scale, e))?;
        for v in self.rotate_deg {
            check_finite(v).map_err(|e| MeshError::parameter("--rotate-deg", v, e))?;
        }
        for v in self.translate {
            check_finite(v).map_err(|e| MeshError::parameter("--translate", v, e))?;
        }
        Ok(())
    }

    /// The rotation matrix `Rz(z) · Ry(y) · Rx(x)` of [`rotate_deg`](Self::rotate_deg).
    pub fn rotation(&self) -> [[f64; 3]; 3] {
        let [(sx, cx), (sy, cy), (sz, cz)] = self.rotate_deg.map(sin_cos_deg);
        let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
        let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
        let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
        matmul(&rz, &matmul(&ry, &rx))
    }

    /// The transformed mesh (same triangles, vertices moved). Fails on invalid values (see
    /// [`check`](Self::check)) and, with [`recentre`](Self::recentre), on a mesh that is not a
    /// valid particle (closed, outward), whose centre of mass is undefined: that error names
    /// `source` and its elements as `map` numbers them (use `SourceMap::default()` for a
    /// mesh that was not read from a file).
    pub fn apply(
        &self,
        mesh: &TriMesh,
        source: &Path,
        map: &SourceMap,
    ) -> Result<TriMesh, MeshError> {
        self.check()?;
        let mut out = mesh.clone();
        let per_metre = self.units.per_metre();
        if per_metre != 1.0 || self.scale != 1.0 {
            for v in &mut out.vertices {
                *v = v.map(|c| c / per_metre * self.scale);
            }
        }
        if self.rotate_deg != [0.0; 3] {
            let r = self.rotation();
            for v in &mut out.vertices {
                let p = *v;
                *v = std::array::from_fn(|i| r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2]);
            }
        }
        if self.recentre {
            let report = check_mesh(&out, Role::Particle);
            if let Some(problem) = report.problems_in(map).into_iter().next() {
                return Err(MeshError::Invalid {
                    path: source.to_path_buf(),
                    problem: format!("{problem} (--recentre needs a closed, outward mesh)"),
                });
            }
            let com = mass_properties(&out, 1.0)?.com;
            for v in &mut out.vertices {
                *v = std::array::from_fn(|i| v[i] - com[i]);
            }
        }
        if self.translate != [0.0; 3] {
            for v in &mut out.vertices {
                *v = std::array::from_fn(|i| v[i] + self.translate[i]);
            }
        }
        Ok(out)
    }

    /// The `meshgen convert` flags of this transform (steps left at their default are left
    /// out, so the identity gives none). Numbers are the shortest text that reads back to
    /// the same value.
    pub fn meshgen_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if self.units != LengthUnit::M {
            a.extend(["--units".to_owned(), self.units.name().to_owned()]);
        }
        if self.scale != 1.0 {
            a.extend(["--scale".to_owned(), arg(self.scale)]);
        }
        if self.rotate_deg != [0.0; 3] {
            a.push("--rotate-deg".to_owned());
            a.extend(self.rotate_deg.map(arg));
        }
        if self.recentre {
            a.push("--recentre".to_owned());
        }
        if self.translate != [0.0; 3] {
            a.push("--translate".to_owned());
            a.extend(self.translate.map(arg));
        }
        a
    }

    /// Reads the value of `key` from `map` into this transform when `key` is one of
    /// [`KEYS`](Self::KEYS) and returns whether it was. Values are checked inside the YAML
    /// scalar's visitor, so an error points at the value itself.
    pub fn deserialize_key<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "units" => self.units = map.next_value::<UnitValue>()?.0,
            "scale" => self.scale = map.next_value::<Number<true>>()?.0,
            "rotate_deg" => self.rotate_deg = map.next_value::<Vector3>()?.0,
            "recentre" => self.recentre = map.next_value()?,
            "translate" => self.translate = map.next_value::<Vector3>()?.0,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A number, finite and (with `POS`) `> 0`, checked in its scalar's visitor.
struct Number<const POS: bool>(f64);

impl<'de, const POS: bool> Deserialize<'de> for Number<POS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const POS: bool>;
        impl<const POS: bool> Visitor<'_> for V<POS> {
            type Value = f64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(if POS { POSITIVE } else { FINITE })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
                if POS { check_scale(v) } else { check_finite(v) }.map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_f64(V::<POS>).map(Number)
    }
}

/// Exactly three finite numbers.
struct Vector3([f64; 3]);

impl<'de> Deserialize<'de> for Vector3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = [f64; 3];
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of 3 finite numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; 3], A::Error> {
                let mut out = [0.0; 3];
                for (i, slot) in out.iter_mut().enumerate() {
                    match seq.next_element::<Number<false>>()? {
                        Some(v) => *slot = v.0,
                        None => return Err(de::Error::invalid_length(i, &self)),
                    }
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(4, &self));
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V).map(Vector3)
    }
}

/// A [`LengthUnit`] by name.
struct UnitValue(LengthUnit);

impl<'de> Deserialize<'de> for UnitValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = LengthUnit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a length unit: mm, cm or m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LengthUnit, E> {
                LengthUnit::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V).map(UnitValue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_are_exact_and_the_order_is_x_then_y_then_z() {
        let t = ImportTransform {
            rotate_deg: [90.0, 0.0, 0.0],
            ..Default::default()
        };
        assert_eq!(
            t.rotation(),
            [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]
        );
        // x by 90° takes y to z; then z by 90° leaves z: ey → ez. The other order
        // (z first) would take ey to -ex and then x would leave it.
        let t = ImportTransform {
            rotate_deg: [90.0, 0.0, 90.0],
            ..Default::default()
        };
        let r = t.rotation();
        assert_eq!([r[0][1], r[1][1], r[2][1]], [0.0, 0.0, 1.0]);
        // -270° is +90°.
        let a = ImportTransform {
            rotate_deg: [0.0, -270.0, 0.0],
            ..Default::default()
        };
        let b = ImportTransform {
            rotate_deg: [0.0, 90.0, 0.0],
            ..Default::default()
        };
        assert_eq!(a.rotation(), b.rotation());
    }

    #[test]
    fn identity_keeps_every_bit_and_has_no_flags() {
        let m = TriMesh {
            vertices: vec![[0.1, -0.0, 3.3], [1.0, 2.0, 3.0], [7.0, 0.3, 0.2]],
            triangles: vec![[0, 1, 2]],
        };
        let t = ImportTransform::default();
        assert!(t.is_identity());
        assert!(t.meshgen_args().is_empty());
        let out = t.apply(&m, Path::new("m"), &SourceMap::default()).unwrap();
        let bits = |m: &TriMesh| -> Vec<u64> {
            m.vertices.iter().flatten().map(|c| c.to_bits()).collect()
        };
        assert_eq!(bits(&out), bits(&m));
    }

    #[test]
    fn flags_list_only_what_differs_from_the_default() {
        let t = ImportTransform {
            units: LengthUnit::Mm,
            scale: 2.5,
            rotate_deg: [0.0, 90.0, -45.5],
            recentre: true,
            translate: [1.0, 0.0, 1e-3],
        };
        assert_eq!(
            t.meshgen_args().join(" "),
            "--units mm --scale 2.5 --rotate-deg 0 90 -45.5 --recentre --translate 1 0 0.001"
        );
    }

    #[test]
    fn bad_values_name_the_flag() {
        for (t, flag) in [
            (
                ImportTransform {
                    scale: 0.0,
                    ..Default::default()
                },
                "--scale",
            ),
            (
                ImportTransform {
                    rotate_deg: [0.0, f64::NAN, 0.0],
                    ..Default::default()
                },
                "--rotate-deg",
            ),
            (
                ImportTransform {
                    translate: [f64::INFINITY, 0.0, 0.0],
                    ..Default::default()
                },
                "--translate",
            ),
        ] {
            let e = t.check().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid parameter {flag} = ")),
                "{e}"
            );
        }
        assert_eq!(
            check_scale(-1.0).unwrap_err(),
            "invalid value -1, expected a finite number > 0"
        );
        assert_eq!(
            LengthUnit::parse("inch").unwrap_err(),
            "unknown unit `inch`, expected mm, cm or m"
        );
    }
}
