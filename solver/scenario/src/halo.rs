//! `halo:` of materials and obstacles: the width of the contact halo, with its unit in the
//! key — `{ relative: X }` (a fraction of the particle's bounding diameter) or
//! `{ absolute_m: X }` (metres) — and the refusal of the key it replaces, `epsilon`, whose
//! unit depended on where it was written.
//!
//! Every refusal is located: a wrong number at the number, an unknown or second key at
//! that key, `relative` on an obstacle at its value, a missing width at the `halo:`
//! mapping, and an old `epsilon` at its value with the line that replaces it.

use std::convert::Infallible;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::values;

/// The largest `relative` halo accepted: half the bounding diameter, so that a particle's
/// halo is never wider than its bounding radius (the halo is a thin contact layer; the
/// default is 0.01).
pub const MAX_RELATIVE_HALO: f64 = 0.5;

/// The default `relative` halo of a material [-].
pub const DEFAULT_RELATIVE_HALO: f64 = 0.01;

/// A material's halo (`materials.NAME.halo`): exactly one of its two keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HaloSpec {
    /// `{ relative: X }`: X × the particle's bounding diameter, `0 < X ≤`
    /// [`MAX_RELATIVE_HALO`] \[-\].
    Relative(f64),
    /// `{ absolute_m: X }`: X metres, `X > 0`, whatever the particle's size \[m\].
    AbsoluteM(f64),
}

impl Default for HaloSpec {
    /// `{ relative: 0.01 }` ([`DEFAULT_RELATIVE_HALO`]).
    fn default() -> Self {
        HaloSpec::Relative(DEFAULT_RELATIVE_HALO)
    }
}

impl HaloSpec {
    /// The halo width \[m\] of a particle with bounding radius `bounding_radius` \[m\]:
    /// `X × 2 × radius` for `relative` (evaluated in this order), `X` for `absolute_m`.
    pub fn width_m(self, bounding_radius: f64) -> f64 {
        match self {
            HaloSpec::Relative(x) => x * 2.0 * bounding_radius,
            HaloSpec::AbsoluteM(x) => x,
        }
    }
}

const RELATIVE: &str = "relative";
const ABSOLUTE_M: &str = "absolute_m";

impl Serialize for HaloSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match *self {
            HaloSpec::Relative(x) => map.serialize_entry(RELATIVE, &x)?,
            HaloSpec::AbsoluteM(x) => map.serialize_entry(ABSOLUTE_M, &x)?,
        }
        map.end()
    }
}

/// Writes an obstacle's halo width \[m\] as `{ absolute_m: X }`.
pub(crate) fn serialize_absolute<S: Serializer>(width: &f64, s: S) -> Result<S::Ok, S::Error> {
    HaloSpec::AbsoluteM(*width).serialize(s)
}

impl<'de> Deserialize<'de> for HaloSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(HaloVisitor { obstacle: false })
    }
}

/// An obstacle's `halo:`, which takes only `absolute_m` (an obstacle has no bounding
/// diameter): its width \[m\].
pub(crate) fn obstacle<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    match d.deserialize_map(HaloVisitor { obstacle: true })? {
        HaloSpec::AbsoluteM(width) => Ok(width),
        HaloSpec::Relative(_) => Err(de::Error::custom("refused by the halo visitor")),
    }
}

struct HaloVisitor {
    obstacle: bool,
}

impl<'de> Visitor<'de> for HaloVisitor {
    type Value = HaloSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.obstacle {
            f.write_str("a halo mapping `{ absolute_m: METRES }`")
        } else {
            f.write_str("a halo mapping, `{ relative: FRACTION }` or `{ absolute_m: METRES }`")
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HaloSpec, A::Error> {
        let mut halo = None;
        while let Some(key) = map.next_key_seed(HaloKey {
            obstacle: self.obstacle,
            seen: halo.map(|h| match h {
                HaloSpec::Relative(_) => RELATIVE,
                HaloSpec::AbsoluteM(_) => ABSOLUTE_M,
            }),
        })? {
            halo = Some(match key {
                Key::Relative if self.obstacle => match map.next_value::<ObstacleRelative>()? {},
                Key::Relative => HaloSpec::Relative(map.next_value::<Relative>()?.0),
                Key::AbsoluteM => HaloSpec::AbsoluteM(map.next_value::<Metres>()?.0),
            });
        }
        halo.ok_or_else(|| {
            de::Error::custom(if self.obstacle {
                "an obstacle's halo needs its width in metres: `halo: { absolute_m: METRES }`"
            } else {
                "a halo needs its width: `halo: { relative: FRACTION }` (of the bounding \
                 diameter) or `halo: { absolute_m: METRES }`"
            })
        })
    }
}

/// A key of `halo:`.
enum Key {
    Relative,
    AbsoluteM,
}

/// Reads a key of `halo:`, refusing (at the key) an unknown one and a second width.
struct HaloKey {
    obstacle: bool,
    /// The width key already read, if any.
    seen: Option<&'static str>,
}

impl<'de> DeserializeSeed<'de> for HaloKey {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for HaloKey {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`relative` or `absolute_m`")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        let key = match v {
            RELATIVE => Key::Relative,
            ABSOLUTE_M => Key::AbsoluteM,
            _ if self.obstacle => return Err(E::unknown_field(v, &[ABSOLUTE_M])),
            _ => return Err(E::unknown_field(v, &[RELATIVE, ABSOLUTE_M])),
        };
        match self.seen {
            None => Ok(key),
            Some(first) => Err(E::custom(format_args!(
                "`{first}` and `{v}` both given: a halo is either `relative` (a fraction of \
                 the bounding diameter) or `absolute_m` (metres), not both"
            ))),
        }
    }
}

/// A `relative` width, `0 < X ≤ MAX_RELATIVE_HALO`.
struct Relative(f64);

impl<'de> Deserialize<'de> for Relative {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::relative_halo(d).map(Relative)
    }
}

/// An `absolute_m` width, `> 0`.
struct Metres(f64);

impl<'de> Deserialize<'de> for Metres {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::positive(d).map(Metres)
    }
}

/// `relative` under an obstacle's `halo:`, refused at its value.
enum ObstacleRelative {}

impl<'de> Deserialize<'de> for ObstacleRelative {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Refuse(|_| {
            "an obstacle has no bounding diameter for a `relative` halo: give its width in \
             metres, `halo: { absolute_m: METRES }`"
                .to_owned()
        }))
        .map(|never| match never {})
    }
}

/// Refuses whatever value it is given with `.0(the value, where it is a number)`.
struct Refuse(fn(Option<String>) -> String);

impl Refuse {
    fn fail<E: de::Error>(&self, number: Option<String>) -> Result<Infallible, E> {
        Err(E::custom((self.0)(number)))
    }
}

impl<'de> Visitor<'de> for Refuse {
    type Value = Infallible;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&(self.0)(None))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Infallible, E> {
        self.fail(None)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Infallible, E> {
        self.fail(Some(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Infallible, E> {
        self.fail(Some(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Infallible, E> {
        self.fail(Some(values::show(v)))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Infallible, E> {
        self.fail(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Infallible, E> {
        self.fail(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Infallible, E> {
        self.fail(None)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Infallible, A::Error> {
        self.fail(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Infallible, A::Error> {
        self.fail(None)
    }
}

impl<'de> DeserializeSeed<'de> for Refuse {
    type Value = Infallible;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Infallible, D::Error> {
        d.deserialize_any(self)
    }
}

/// The line that replaces a material's `epsilon: X`.
pub(crate) fn material_epsilon_hint(value: Option<String>) -> String {
    format!(
        "`epsilon` was renamed: write `halo: {{ relative: {} }}` (a fraction of the \
         bounding diameter)",
        value.as_deref().unwrap_or("FRACTION")
    )
}

/// The line that replaces an obstacle's `epsilon: X`.
pub(crate) fn obstacle_epsilon_hint(value: Option<String>) -> String {
    format!(
        "`epsilon` was renamed: write `halo: {{ absolute_m: {} }}` (metres)",
        value.as_deref().unwrap_or("METRES")
    )
}

/// The keys of a mapping as [`MapAccess`], with the old key `epsilon` refused at its value
/// by `hint` (given the value where it is a number): what `deny_unknown_fields` would call
/// an unknown field gets the line that replaces it, and the list of expected keys stays
/// the current one.
pub(crate) struct WithoutEpsilon<A> {
    map: A,
    hint: fn(Option<String>) -> String,
}

impl<A> WithoutEpsilon<A> {
    /// Wraps the mapping `map`.
    pub(crate) fn new(map: A, hint: fn(Option<String>) -> String) -> Self {
        WithoutEpsilon { map, hint }
    }
}

/// The old key.
const EPSILON: &str = "epsilon";

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutEpsilon<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.map.next_key_seed(Peek(seed))? {
            None => Ok(None),
            Some(Peeked::Key(key)) => Ok(Some(key)),
            Some(Peeked::Epsilon) => match self.map.next_value_seed(Refuse(self.hint))? {},
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key read by [`WithoutEpsilon`]: the old key, or what the wrapped seed made of another.
enum Peeked<K> {
    Epsilon,
    Key(K),
}

/// Reads a key as a string and hands it, unless it is the old key, to the wrapped seed.
struct Peek<K>(K);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Peek<K> {
    type Value = Peeked<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for Peek<K> {
    type Value = Peeked<K::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v == EPSILON {
            return Ok(Peeked::Epsilon);
        }
        self.0
            .deserialize(de::value::StrDeserializer::<E>::new(v))
            .map(Peeked::Key)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        if v == EPSILON {
            return Ok(Peeked::Epsilon);
        }
        self.0
            .deserialize(de::value::BorrowedStrDeserializer::<E>::new(v))
            .map(Peeked::Key)
    }
}
