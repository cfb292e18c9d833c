//! The `broadphase:` value of a scenario (docs/design.md §7, seed 001): a short name or a mapping
//! with the algorithm's parameters.
//!
//! ```yaml
//! broadphase: hgrid            # short forms: hgrid (default) | grid (alias) | linked_cells | bins | all_pairs
//! broadphase:                  # map form; `kind` is required, every other key optional
//!   kind: hgrid                # hgrid | grid | linked_cells | bins | all_pairs
//!   levels: 3                  # hgrid: level count in [1, 16]; default: chosen from the
//!                              #   size distribution by the cost model (seed 001 §5.2.3)
//!   cell_sizes: [0.1, 0.8]     # hgrid: cell sizes [m], > 0, strictly increasing; with
//!                              #   `levels`, their count must equal it
//!   cell_size: 0.3             # linked_cells: cell size [m] > 0; default: the largest
//!                              #   bounding diameter (incl. ε and skin) of each rebuild
//!   bin_size: 0.3              # bins: bin size [m] > 0; default: chosen per rebuild from
//!                              #   the bounding radii (seed 002 §4)
//!   skin: 0.0                  # hgrid, linked_cells: Verlet skin [m] ≥ 0 (default: 0.1 ×
//!                              #   the smallest bounding diameter incl. ε with automatic
//!                              #   cells, 0 with given cells; `crate::broad::default_skin`)
//! ```
//!
//! Every check runs inside the visitor of the YAML node it concerns, so errors carry that
//! node's `file:line:column`: a bad value at the value, an unknown key, a repeated key or a
//! key that does not apply to the chosen `kind` at the key (or, when `kind` is written after
//! that key, at the `kind` value), a non-increasing cell size at that element.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::cells::{CellSizesSeed, LevelsSeed, NonNegative, Positive};

/// `broadphase:` value: the broad-phase algorithm and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum BroadPhaseSpec {
    /// Hierarchical grid of seed 001 (`hgrid`, alias `grid`).
    HGrid {
        /// Level count in `[1, 16]`; `None` chooses it by the cost model (seed 001 eq. 27).
        levels: Option<u32>,
        /// Cell sizes \[m\], > 0 and strictly increasing; `None` chooses them by the
        /// constant-particles-per-cell rule (seed 001 §5.2.3).
        cell_sizes: Option<Vec<f64>>,
        /// Verlet skin \[m\], ≥ 0; `None` takes the solver's default (see
        /// `crate::broad::default_skin`; 0 with given cell sizes).
        skin: Option<f64>,
    },
    /// Single-level linked cells (seed 001 §5.1).
    LinkedCells {
        /// Cell size \[m\], > 0; `None` = the largest bounding diameter of each rebuild.
        cell_size: Option<f64>,
        /// Verlet skin \[m\], ≥ 0; `None` takes the solver's default.
        skin: Option<f64>,
    },
    /// Uniform bins with radix-sorted (bin, body) keys (seed 002 §4); no Verlet skin.
    Bins {
        /// Bin size \[m\], > 0; `None` = chosen per rebuild from the bounding radii.
        bin_size: Option<f64>,
    },
    /// Every pair (tests and tiny scenes).
    AllPairs,
}

impl Default for BroadPhaseSpec {
    /// The HGrid with automatic levels and the default skin.
    fn default() -> Self {
        BroadPhaseSpec::HGrid {
            levels: None,
            cell_sizes: None,
            skin: None,
        }
    }
}

impl BroadPhaseSpec {
    /// The `kind` as written in a scenario (`grid` reads back as `hgrid`).
    pub fn key(&self) -> &'static str {
        Kind::of(self).name()
    }
}

/// The algorithm names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    HGrid,
    LinkedCells,
    Bins,
    AllPairs,
}

const KINDS: &[&str] = &["hgrid", "grid", "linked_cells", "bins", "all_pairs"];

impl Kind {
    fn parse<E: de::Error>(v: &str) -> Result<Kind, E> {
        match v {
            "hgrid" | "grid" => Ok(Kind::HGrid),
            "linked_cells" => Ok(Kind::LinkedCells),
            "bins" => Ok(Kind::Bins),
            "all_pairs" => Ok(Kind::AllPairs),
            _ => Err(E::unknown_variant(v, KINDS)),
        }
    }

    fn of(spec: &BroadPhaseSpec) -> Kind {
        match spec {
            BroadPhaseSpec::HGrid { .. } => Kind::HGrid,
            BroadPhaseSpec::LinkedCells { .. } => Kind::LinkedCells,
            BroadPhaseSpec::Bins { .. } => Kind::Bins,
            BroadPhaseSpec::AllPairs => Kind::AllPairs,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::HGrid => "hgrid",
            Kind::LinkedCells => "linked_cells",
            Kind::Bins => "bins",
            Kind::AllPairs => "all_pairs",
        }
    }

    /// The keys besides `kind` that apply to this algorithm.
    fn keys(self) -> &'static [Field] {
        match self {
            Kind::HGrid => &[Field::Levels, Field::CellSizes, Field::Skin],
            Kind::LinkedCells => &[Field::CellSize, Field::Skin],
            Kind::Bins => &[Field::BinSize],
            Kind::AllPairs => &[],
        }
    }

    /// `its keys: `a`, `b`` or `it takes no other key`.
    fn describe_keys(self) -> String {
        let keys = self.keys();
        if keys.is_empty() {
            "it takes no other key".to_owned()
        } else {
            let list: Vec<String> = keys.iter().map(|k| format!("`{}`", k.name())).collect();
            format!("its keys: {}", list.join(", "))
        }
    }
}

/// The keys of the map form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Kind,
    Levels,
    CellSizes,
    CellSize,
    BinSize,
    Skin,
}

const FIELDS: &[&str] = &[
    "kind",
    "levels",
    "cell_sizes",
    "cell_size",
    "bin_size",
    "skin",
];

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Kind => "kind",
            Field::Levels => "levels",
            Field::CellSizes => "cell_sizes",
            Field::CellSize => "cell_size",
            Field::BinSize => "bin_size",
            Field::Skin => "skin",
        }
    }
}

/// A key of the map form, checked against the keys already seen and the `kind` if known.
struct FieldSeed<'a> {
    kind: Option<Kind>,
    seen: &'a [Field],
}

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Field;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldSeed<'_> {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a broad-phase key (kind, levels, cell_sizes, cell_size, bin_size, skin)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        let field = match v {
            "kind" => Field::Kind,
            "levels" => Field::Levels,
            "cell_sizes" => Field::CellSizes,
            "cell_size" => Field::CellSize,
            "bin_size" => Field::BinSize,
            "skin" => Field::Skin,
            _ => return Err(E::unknown_field(v, FIELDS)),
        };
        if self.seen.contains(&field) {
            return Err(E::duplicate_field(field.name()));
        }
        match self.kind {
            Some(kind) if field != Field::Kind && !kind.keys().contains(&field) => {
                Err(E::custom(format_args!(
                    "`{v}` does not apply to `kind: {}` ({})",
                    kind.name(),
                    kind.describe_keys()
                )))
            }
            _ => Ok(field),
        }
    }
}

/// The `kind` value, checked against the keys written before it.
struct KindSeed<'a> {
    seen: &'a [Field],
}

impl<'de> DeserializeSeed<'de> for KindSeed<'_> {
    type Value = Kind;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KindSeed<'_> {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`hgrid`, `grid`, `linked_cells`, `bins` or `all_pairs`")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind, E> {
        let kind = Kind::parse(v)?;
        // `kind` itself is never in `seen` here: a second `kind` key is a duplicate.
        match self.seen.iter().find(|f| !kind.keys().contains(f)) {
            Some(f) => Err(E::custom(format_args!(
                "`kind: {v}` does not take `{}`, written above ({})",
                f.name(),
                kind.describe_keys()
            ))),
            None => Ok(kind),
        }
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = BroadPhaseSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "`hgrid`, `grid`, `linked_cells`, `bins`, `all_pairs` or a mapping with `kind` and the \
             algorithm's parameters",
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<BroadPhaseSpec, E> {
        Ok(build(Kind::parse(v)?, Written::default()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BroadPhaseSpec, A::Error> {
        let mut kind = None;
        let mut seen: Vec<Field> = Vec::new();
        let mut w = Written::default();
        while let Some(field) = map.next_key_seed(FieldSeed { kind, seen: &seen })? {
            match field {
                Field::Kind => kind = Some(map.next_value_seed(KindSeed { seen: &seen })?),
                Field::Levels => {
                    let cells = w.cell_sizes.as_ref().map(Vec::len);
                    w.levels = Some(map.next_value_seed(LevelsSeed { cells })?);
                }
                Field::CellSizes => {
                    let levels = w.levels;
                    w.cell_sizes = Some(map.next_value_seed(CellSizesSeed { levels })?);
                }
                Field::CellSize => w.cell_size = Some(map.next_value::<Positive>()?.0),
                Field::BinSize => w.bin_size = Some(map.next_value::<Positive>()?.0),
                Field::Skin => w.skin = Some(map.next_value::<NonNegative>()?.0),
            }
            seen.push(field);
        }
        match kind {
            Some(kind) => Ok(build(kind, w)),
            None => Err(de::Error::missing_field("kind")),
        }
    }
}

/// The parameters as written (each checked on its own already).
#[derive(Default)]
struct Written {
    levels: Option<u32>,
    cell_sizes: Option<Vec<f64>>,
    cell_size: Option<f64>,
    bin_size: Option<f64>,
    skin: Option<f64>,
}

fn build(kind: Kind, w: Written) -> BroadPhaseSpec {
    match kind {
        Kind::HGrid => BroadPhaseSpec::HGrid {
            levels: w.levels,
            cell_sizes: w.cell_sizes,
            skin: w.skin,
        },
        Kind::LinkedCells => BroadPhaseSpec::LinkedCells {
            cell_size: w.cell_size,
            skin: w.skin,
        },
        Kind::Bins => BroadPhaseSpec::Bins {
            bin_size: w.bin_size,
        },
        Kind::AllPairs => BroadPhaseSpec::AllPairs,
    }
}

impl<'de> Deserialize<'de> for BroadPhaseSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpecVisitor)
    }
}

impl Serialize for BroadPhaseSpec {
    /// The short name where no parameter is given, else the map form with the given ones.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kind = Kind::of(self).name();
        let entries: Vec<(&str, Param<'_>)> = match self {
            BroadPhaseSpec::HGrid {
                levels,
                cell_sizes,
                skin,
            } => [
                levels.map(|l| ("levels", Param::Count(l))),
                cell_sizes
                    .as_ref()
                    .map(|c| ("cell_sizes", Param::Lengths(c))),
                skin.map(|k| ("skin", Param::Length(k))),
            ]
            .into_iter()
            .flatten()
            .collect(),
            BroadPhaseSpec::LinkedCells { cell_size, skin } => [
                cell_size.map(|c| ("cell_size", Param::Length(c))),
                skin.map(|k| ("skin", Param::Length(k))),
            ]
            .into_iter()
            .flatten()
            .collect(),
            BroadPhaseSpec::Bins { bin_size } => bin_size
                .map(|b| ("bin_size", Param::Length(b)))
                .into_iter()
                .collect(),
            BroadPhaseSpec::AllPairs => Vec::new(),
        };
        if entries.is_empty() {
            return s.serialize_str(kind);
        }
        let mut map = s.serialize_map(Some(entries.len() + 1))?;
        map.serialize_entry("kind", kind)?;
        for (key, value) in &entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A parameter value of the map form, for [`BroadPhaseSpec`]'s `Serialize`.
#[derive(Serialize)]
#[serde(untagged)]
enum Param<'a> {
    Count(u32),
    Lengths(&'a [f64]),
    Length(f64),
}
