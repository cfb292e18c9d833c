//! Values of the `broadphase:` mapping ([`super::broadphase`]): the level count, the cell
//! sizes and single lengths, each checked inside its YAML node's visitor so that errors
//! carry that node's `file:line:column`.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::values;
use msdem_broadphase::levels::MAX_LEVELS;

/// `levels`: an integer in `[1, MAX_LEVELS]`, equal to the number of `cell_sizes` when both
/// are written (`cells` = that number when `cell_sizes` came first).
pub(crate) struct LevelsSeed {
    pub cells: Option<usize>,
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
pub(crate) struct CellSizesSeed {
    pub levels: Option<u32>,
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
pub(crate) struct Positive(pub f64);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::positive(d).map(Positive)
    }
}

/// A finite number `≥ 0`, as a map value.
pub(crate) struct NonNegative(pub f64);

impl<'de> Deserialize<'de> for NonNegative {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        values::non_negative(d).map(NonNegative)
    }
}
