//! Parsing of `generators:` items: a mapping with exactly one key naming the generator.
//! Serde's own enum support in `serde_norway` expects YAML tags (`!lattice`), so the
//! single-key form of the schema is read by hand here.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::{names, values, BoxSpec, GeneratorSpec, LatticeSpec};

mod pairs;
mod ring;
mod stack;

pub use pairs::PairsSpec;
pub use ring::RingSpec;
pub use stack::StackSpec;

const GENERATOR_KINDS: &[&str] = &["lattice", "random_box", "drop", "pairs", "stack", "ring"];

/// Reads a generator key, refusing unknown ones at the key's own position.
struct GeneratorKey;

impl<'de> de::DeserializeSeed<'de> for GeneratorKey {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for GeneratorKey {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a generator name (lattice, random_box, drop, pairs, stack or ring)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<&'static str, E> {
        GENERATOR_KINDS
            .iter()
            .copied()
            .find(|k| *k == v)
            .ok_or_else(|| E::unknown_variant(v, GENERATOR_KINDS))
    }
}

impl<'de> Deserialize<'de> for GeneratorSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(GeneratorVisitor)
    }
}

struct GeneratorVisitor;

impl<'de> Visitor<'de> for GeneratorVisitor {
    type Value = GeneratorSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping with one key: lattice, random_box, drop, pairs, stack or ring")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GeneratorSpec, A::Error> {
        let Some(kind) = map.next_key_seed(GeneratorKey)? else {
            return Err(de::Error::custom(
                "empty generator: expected one key, lattice, random_box, drop, pairs, stack or ring",
            ));
        };
        let spec = match kind {
            "lattice" => {
                let l: LatticeSpec = map.next_value()?;
                if l.spacing.iter().any(|s| *s <= 0.0) {
                    return Err(de::Error::custom(format_args!(
                        "lattice spacing must be > 0 on every axis, got {:?}",
                        l.spacing
                    )));
                }
                GeneratorSpec::Lattice(l)
            }
            "random_box" => GeneratorSpec::RandomBox(next_box(&mut map, false)?),
            "pairs" => GeneratorSpec::Pairs(pairs::next_pairs(&mut map)?),
            "stack" => GeneratorSpec::Stack(stack::next_stack(&mut map)?),
            "ring" => GeneratorSpec::Ring(ring::next_ring(&mut map)?),
            _ => GeneratorSpec::Drop(next_box(&mut map, true)?),
        };
        if let Some(other) = map.next_key::<String>()? {
            return Err(de::Error::custom(format_args!(
                "a generator has exactly one key, found `{kind}` and `{other}`"
            )));
        }
        Ok(spec)
    }
}

/// Reads a box generator's body; `drop` needs a velocity.
fn next_box<'de, A: MapAccess<'de>>(
    map: &mut A,
    needs_velocity: bool,
) -> Result<BoxSpec, A::Error> {
    /// Same fields with the velocity optional, to tell "missing" from "zero".
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Raw {
        #[serde(deserialize_with = "names::shape_ref")]
        shape: String,
        #[serde(deserialize_with = "names::material_ref")]
        material: String,
        #[serde(deserialize_with = "values::particle_count")]
        count: u32,
        #[serde(deserialize_with = "values::vec3")]
        min: [f64; 3],
        #[serde(deserialize_with = "values::vec3")]
        max: [f64; 3],
        #[serde(default, deserialize_with = "optional_vec3")]
        velocity: Option<[f64; 3]>,
        #[serde(default)]
        random_orientation: bool,
    }
    fn optional_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 3]>, D::Error> {
        values::vec3(d).map(Some)
    }
    let raw: Raw = map.next_value()?;
    if needs_velocity && raw.velocity.is_none() {
        return Err(de::Error::missing_field("velocity"));
    }
    if (0..3).any(|k| raw.min[k] >= raw.max[k]) {
        return Err(de::Error::custom(format_args!(
            "empty box: min {:?} must be below max {:?} on every axis",
            raw.min, raw.max
        )));
    }
    Ok(BoxSpec {
        shape: raw.shape,
        material: raw.material,
        count: raw.count,
        min: raw.min,
        max: raw.max,
        velocity: raw.velocity.unwrap_or_default(),
        random_orientation: raw.random_orientation,
    })
}

impl Serialize for GeneratorSpec {
    /// The single-key form it was read from (`random_box` writes its velocity, 0 by
    /// default).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match self {
            GeneratorSpec::Lattice(l) => map.serialize_entry(self.kind(), l)?,
            GeneratorSpec::RandomBox(b) | GeneratorSpec::Drop(b) => {
                map.serialize_entry(self.kind(), b)?
            }
            GeneratorSpec::Pairs(p) => map.serialize_entry(self.kind(), p)?,
            GeneratorSpec::Stack(p) => map.serialize_entry(self.kind(), p)?,
            GeneratorSpec::Ring(p) => map.serialize_entry(self.kind(), p)?,
        }
        map.end()
    }
}
