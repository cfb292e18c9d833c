//! The `scenario.broadphase` value of a pipeline, copied as is into the solver's scenario:
//! a short name (`hgrid`, `grid`, `linked_cells`, `all_pairs`) or a mapping with `kind` and
//! the algorithm's parameters (`levels`, `cell_sizes`, `cell_size`, `skin`; see
//! `solver/core/src/scenario/broadphase.rs`). Names and types are checked here, with the
//! pipeline file's line and column; ranges and which key applies to which kind are checked
//! by the solver.

use std::fmt;

use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// The broad-phase algorithm (seed 001).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BroadphaseKind {
    /// Hierarchical grid, automatic levels (the solver's default).
    Hgrid,
    /// Alias of `hgrid`.
    Grid,
    /// Single-level linked cells.
    LinkedCells,
    /// Every pair of bodies.
    AllPairs,
}

/// The map form: the algorithm and its parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BroadphaseParams {
    /// The algorithm.
    pub kind: BroadphaseKind,
    /// HGrid: number of levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<u32>,
    /// HGrid: cell sizes \[m\], strictly increasing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_sizes: Option<Vec<f64>>,
    /// Linked cells: cell size \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_size: Option<f64>,
    /// HGrid and linked cells: Verlet skin \[m\].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<f64>,
}

/// `scenario.broadphase`: a short name or the map form; written back in the same form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Broadphase {
    /// `broadphase: hgrid`.
    Name(BroadphaseKind),
    /// `broadphase: { kind: hgrid, skin: 0.01, … }`.
    Params(BroadphaseParams),
}

impl<'de> Deserialize<'de> for Broadphase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NameOrMap;

        impl<'de> Visitor<'de> for NameOrMap {
            type Value = Broadphase;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`hgrid`, `grid`, `linked_cells`, `all_pairs` or a mapping with `kind`")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Broadphase, E> {
                let name: de::value::StrDeserializer<'_, E> = v.into_deserializer();
                BroadphaseKind::deserialize(name).map(Broadphase::Name)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Broadphase, A::Error> {
                BroadphaseParams::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(Broadphase::Params)
            }
        }

        d.deserialize_any(NameOrMap)
    }
}
