//! `material_pairs:`: contact values of a pair of materials that override the default
//! combination rule, as LIGGGHTS' per-type-pair `coefficientRestitution`,
//! `coefficientFriction` and `coefficientRollingFriction` matrices do (`docs/design.md` §3,
//! "Material pairs").
//!
//! Without an entry, a pair of materials meets with the arithmetic means of their
//! restitution, friction and rolling friction, and Hertz–Mindlin's `E*` from both
//! materials' moduli (`solver/core/src/contact/pair.rs`). An entry names two materials
//! (one material twice: the pair of that material with itself) and gives at least one of
//! `restitution`, `friction`, `rolling_friction`; each pair may be listed once, in
//! either order.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::{names, values};

/// One entry of `material_pairs:`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaterialPairSpec {
    /// The two material names, as written.
    pub materials: [String; 2],
    /// Coefficient of restitution of the pair in (0, 1] (default: the mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f64>,
    /// Coulomb friction coefficient of the pair, ≥ 0 (default: the mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Rolling friction coefficient μ_r of the pair, ≥ 0 (Hertz–Mindlin pairs only;
    /// default: the mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolling_friction: Option<f64>,
}

/// A material name checked against `materials:` where it is written.
struct MaterialRef(String);

impl<'de> Deserialize<'de> for MaterialRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        names::material_ref(d).map(MaterialRef)
    }
}

fn some_restitution<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    values::restitution(d).map(Some)
}

fn some_non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    values::non_negative(d).map(Some)
}

/// The keys of one entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairKeys {
    materials: (MaterialRef, MaterialRef),
    #[serde(default, deserialize_with = "some_restitution")]
    restitution: Option<f64>,
    #[serde(default, deserialize_with = "some_non_negative")]
    friction: Option<f64>,
    #[serde(default, deserialize_with = "some_non_negative")]
    rolling_friction: Option<f64>,
}

impl<'de> Deserialize<'de> for MaterialPairSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let k = PairKeys::deserialize(d)?;
        let (a, b) = (k.materials.0 .0, k.materials.1 .0);
        if k.restitution.is_none() && k.friction.is_none() && k.rolling_friction.is_none() {
            return Err(de::Error::custom(format_args!(
                "the pair `{a}`–`{b}` sets none of `restitution`, `friction`, `rolling_friction`"
            )));
        }
        Ok(MaterialPairSpec {
            materials: [a, b],
            restitution: k.restitution,
            friction: k.friction,
            rolling_friction: k.rolling_friction,
        })
    }
}

impl MaterialPairSpec {
    /// The two names in sorted order (the pair's identity: order does not matter).
    pub fn key(&self) -> (&str, &str) {
        let [a, b] = &self.materials;
        if a <= b {
            (a, b)
        } else {
            (b, a)
        }
    }
}

/// The `material_pairs:` list: its entries, each pair at most once.
pub(crate) fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<MaterialPairSpec>, D::Error> {
    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<MaterialPairSpec>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of material pairs")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out: Vec<MaterialPairSpec> = Vec::new();
            while let Some(p) = seq.next_element::<MaterialPairSpec>()? {
                if let Some(i) = out.iter().position(|q| q.key() == p.key()) {
                    let (a, b) = p.key();
                    return Err(de::Error::custom(format_args!(
                        "the pair `{a}`–`{b}` is listed twice (entries {i} and {})",
                        out.len()
                    )));
                }
                out.push(p);
            }
            Ok(out)
        }
    }

    d.deserialize_seq(ListVisitor)
}
