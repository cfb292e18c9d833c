//! The `broadphase:` value of a scenario (DESIGN.md §7, seed 001): a short name or a mapping
//! with the algorithm's parameters.
//!
//! ```yaml
//! broadphase: hgrid            # short forms: hgrid (default) | grid (alias) | linked_cells | all_pairs
//! broadphase:                  # map form; `kind` is required, every other key optional
//!   kind: hgrid                # hgrid | grid | linked_cells | all_pairs
//!   levels: 3                  # hgrid: level count in [1, 16]; default: chosen from the
//!                              #   size distribution by the cost model (seed 001 §5.2.3)
//!   cell_sizes: [0.1, 0.8]     # hgrid: cell sizes [m], > 0, strictly increasing; with
//!                              #   `levels`, their count must equal it
//!   cell_size: 0.3             # linked_cells: cell size [m] > 0; default: the largest
//!                              #   bounding diameter (incl. ε and skin) of each rebuild
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

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::values;
use msdem_broadphase::levels::MAX_LEVELS;

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
    AllPairs,
}

const KINDS: &[&str] = &["hgrid", "grid", "linked_cells", "all_pairs"];

impl Kind {
    fn parse<E: de::Error>(v: &str) -> Result<Kind, E> {
        match v {
            "hgrid" | "grid" => Ok(Kind::HGrid),
            "linked_cells" => Ok(Kind::LinkedCells),
            "all_pairs" => Ok(Kind::AllPairs),
            _ => Err(E::unknown_variant(v, KINDS)),
        }
    }

    fn of(spec: &BroadPhaseSpec) -> Kind {
        match spec {
            BroadPhaseSpec::HGrid { .. } => Kind::HGrid,
            BroadPhaseSpec::LinkedCells { .. } => Kind::LinkedCells,
            BroadPhaseSpec::AllPairs => Kind::AllPairs,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::HGrid => "hgrid",
            Kind::LinkedCells => "linked_cells",
            Kind::AllPairs => "all_pairs",
        }
    }

    /// The keys besides `kind` that apply to this algorithm.
    fn keys(self) -> &'static [Field] {
        match self {
            Kind::HGrid => &[Field::Levels, Field::CellSizes, Field::Skin],
            Kind::LinkedCells => &[Field::CellSize, Field::Skin],
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
    Skin,
}

const FIELDS: &[&str] = &["kind", "levels", "cell_sizes", "cell_size", "skin"];

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Kind => "kind",
            Field::Levels => "levels",
            Field::CellSizes => "cell_sizes",
            Field::CellSize => "cell_size",
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
        f.write_str("a broad-phase key (kind, levels, cell_sizes, cell_size, skin)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        let field = match v {
            "kind" => Field::Kind,
            "levels" => Field::Levels,
            "cell_sizes" => Field::CellSizes,
            "cell_size" => Field::CellSize,
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
        f.write_str("`hgrid`, `grid`, `linked_cells` or `all_pairs`")
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

/// `levels`: an integer in `[1, MAX_LEVELS]`, equal to the number of `cell_sizes` when both
/// are written (`cells` = that number when `cell_sizes` came first).
struct LevelsSeed {
    cells: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for LevelsSeed {
    type Value = u32;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_u32(self)
    }
}

impl Visitor<'_> for LevelsSeed {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a level count in [1, {MAX_LEVELS}]")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        if v == 0 || v > MAX_LEVELS as u64 {
            return Err(E::custom(format_args!(
                "invalid value {v}, expected a level count in [1, {MAX_LEVELS}]"
            )));
        }
        match self.cells {
            Some(n) if n as u64 != v => Err(E::custom(format_args!(
                "{v} levels contradict the {n} `cell_sizes` written above (leave `levels` out: \
                 the cell sizes fix it)"
            ))),
            _ => Ok(v as u32),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        if v < 0 {
            Err(E::custom(format_args!(
                "invalid value {v}, expected a level count in [1, {MAX_LEVELS}]"
            )))
        } else {
            self.visit_u64(v as u64)
        }
    }
}

/// One cell size: finite, `> 0` and larger than the previous one.
struct CellSeed {
    index: usize,
    prev: Option<f64>,
}

impl<'de> DeserializeSeed<'de> for CellSeed {
    type Value = f64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<f64, D::Error> {
        d.deserialize_f64(self)
    }
}

impl Visitor<'_> for CellSeed {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a cell size [m], a finite number > 0")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        let v = values::positive_value::<E>(v)?;
        match self.prev {
            Some(p) if v <= p => Err(E::custom(format_args!(
                "cell size {v} is not larger than cell_sizes[{}] = {p}; cell sizes must \
                 increase strictly",
                self.index - 1
            ))),
            _ => Ok(v),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

/// `cell_sizes`: a non-empty, strictly increasing list of cell sizes, as many as `levels`
/// when that came first.
struct CellSizesSeed {
    levels: Option<u32>,
}

impl<'de> DeserializeSeed<'de> for CellSizesSeed {
    type Value = Vec<f64>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<f64>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CellSizesSeed {
    type Value = Vec<f64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a non-empty list of strictly increasing cell sizes [m]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
        let mut out: Vec<f64> = Vec::new();
        while let Some(v) = seq.next_element_seed(CellSeed {
            index: out.len(),
            prev: out.last().copied(),
        })? {
            out.push(v);
        }
        if out.is_empty() {
            return Err(de::Error::invalid_length(0, &self));
        }
        match self.levels {
            Some(l) if l as usize != out.len() => Err(de::Error::custom(format_args!(
                "{} cell sizes contradict `levels: {l}` written above (leave `levels` out: \
                 the cell sizes fix it)",
                out.len()
            ))),
            _ => Ok(out),
        }
    }
}

/// A finite number `> 0`, as a map value.
struct Positive(f64);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::positive(d).map(Positive)
    }
}

/// A finite number `≥ 0`, as a map value.
struct NonNegative(f64);

impl<'de> Deserialize<'de> for NonNegative {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::non_negative(d).map(NonNegative)
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = BroadPhaseSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "`hgrid`, `grid`, `linked_cells`, `all_pairs` or a mapping with `kind` and the \
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
        Kind::AllPairs => BroadPhaseSpec::AllPairs,
    }
}

impl<'de> Deserialize<'de> for BroadPhaseSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpecVisitor)
    }
}
