//! Validating deserializers for scenario values.
//!
//! Every check runs *inside* the YAML scalar's visitor, so `serde_norway` attaches the
//! scalar's own line and column (and its key path) to the error: a `dt: -1` is reported at
//! the `-1`, not at the enclosing mapping.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::halo::MAX_RELATIVE_HALO;
use crate::names;

/// Which numbers a field accepts.
#[derive(Clone, Copy)]
enum Rule {
    /// Any finite number.
    Finite,
    /// Finite and `> 0`.
    Positive,
    /// Finite and `≥ 0`.
    NonNegative,
    /// Finite and in `(0, 1]` (coefficient of restitution).
    Restitution,
    /// Finite and in `(0, MAX_RELATIVE_HALO]` (a halo relative to the bounding diameter).
    RelativeHalo,
    /// Finite and in `(−1, 0.5)` (Poisson's ratio of a stable isotropic solid).
    PoissonRatio,
    /// Finite and `≥ 1` (a ratio of a maximum to a mean).
    AtLeastOne,
    /// Finite and in `(0.5, 1]` (the implicitness of the θ-method).
    Theta,
}

// `Rule::RelativeHalo`'s message writes the bound.
const _: () = assert!(MAX_RELATIVE_HALO == 0.5);

impl Rule {
    fn expected(self) -> &'static str {
        match self {
            Rule::Finite => "a finite number",
            Rule::Positive => "a finite number > 0",
            Rule::NonNegative => "a finite number ≥ 0",
            Rule::Restitution => "a number in (0, 1]",
            Rule::RelativeHalo => "a fraction of the bounding diameter in (0, 0.5]",
            Rule::PoissonRatio => "a Poisson's ratio in (-1, 0.5)",
            Rule::AtLeastOne => "a finite number ≥ 1",
            Rule::Theta => "a θ in (0.5, 1]",
        }
    }

    fn accepts(self, v: f64) -> bool {
        v.is_finite()
            && match self {
                Rule::Finite => true,
                Rule::Positive => v > 0.0,
                Rule::NonNegative => v >= 0.0,
                Rule::Restitution => v > 0.0 && v <= 1.0,
                Rule::RelativeHalo => v > 0.0 && v <= MAX_RELATIVE_HALO,
                Rule::PoissonRatio => v > -1.0 && v < 0.5,
                Rule::AtLeastOne => v >= 1.0,
                Rule::Theta => v > 0.5 && v <= 1.0,
            }
    }
}

struct NumberVisitor(Rule);

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0.expected())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        if self.0.accepts(v) {
            Ok(v)
        } else {
            Err(E::custom(format_args!(
                "invalid value {}, expected {}",
                show(v),
                self.0.expected()
            )))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

/// Formats a number the way YAML spells the special values.
pub(crate) fn show(v: f64) -> String {
    if v.is_nan() {
        ".nan".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else {
        short_number(v)
    }
}

/// A number in short form for messages (one definition for every crate's messages:
/// [`msdem_broadphase::short_number`]).
pub use msdem_broadphase::short_number;

fn number<'de, D: Deserializer<'de>>(d: D, rule: Rule) -> Result<f64, D::Error> {
    d.deserialize_f64(NumberVisitor(rule))
}

/// A finite number.
pub(crate) fn finite<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::Finite)
}

/// A finite number `> 0`.
pub(crate) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::Positive)
}

/// Checks a number already read: finite and `> 0` (the message of [`positive`]).
pub(crate) fn positive_value<E: de::Error>(v: f64) -> Result<f64, E> {
    NumberVisitor(Rule::Positive).visit_f64(v)
}

/// A halo relative to the bounding diameter: finite and in `(0, MAX_RELATIVE_HALO]`.
pub(crate) fn relative_halo<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::RelativeHalo)
}

/// A finite number `≥ 0`.
pub(crate) fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::NonNegative)
}

/// A finite number `≥ 1`.
pub(crate) fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::AtLeastOne)
}

/// The implicitness of the θ-method in `(0.5, 1]`.
pub(crate) fn theta<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::Theta)
}

/// A coefficient of restitution in `(0, 1]`.
pub(crate) fn restitution<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    number(d, Rule::Restitution)
}

/// An optional finite number `> 0` (a key that may be absent).
pub(crate) fn some_positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    number(d, Rule::Positive).map(Some)
}

/// An optional Poisson's ratio in `(−1, 0.5)`.
pub(crate) fn some_poisson_ratio<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    number(d, Rule::PoissonRatio).map(Some)
}

/// One finite number, as a sequence element.
struct Finite(f64);

impl<'de> Deserialize<'de> for Finite {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        finite(d).map(Finite)
    }
}

/// A sequence of exactly `N` numbers, each read as `E` (which checks its rule).
fn checked_array<'de, D: Deserializer<'de>, E: Deserialize<'de> + Into<f64>, const N: usize>(
    d: D,
    what: &'static str,
) -> Result<[f64; N], D::Error> {
    struct ArrayVisitor<E, const N: usize>(&'static str, std::marker::PhantomData<E>);

    impl<'de, E: Deserialize<'de> + Into<f64>, const N: usize> Visitor<'de> for ArrayVisitor<E, N> {
        type Value = [f64; N];

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a list of {N} {}", self.0)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; N], A::Error> {
            let mut out = [0.0; N];
            for (i, slot) in out.iter_mut().enumerate() {
                match seq.next_element::<E>()? {
                    Some(v) => *slot = v.into(),
                    None => return Err(de::Error::invalid_length(i, &self)),
                }
            }
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::invalid_length(N + 1, &self));
            }
            Ok(out)
        }
    }

    d.deserialize_seq(ArrayVisitor::<E, N>(what, std::marker::PhantomData))
}

/// A sequence of exactly `N` finite numbers.
fn finite_array<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<[f64; N], D::Error> {
    checked_array::<D, Finite, N>(d, "finite numbers")
}

impl From<Finite> for f64 {
    fn from(v: Finite) -> f64 {
        v.0
    }
}

/// A finite number `> 0`, as a list element.
struct PositiveElement(f64);

impl<'de> Deserialize<'de> for PositiveElement {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        positive(d).map(PositiveElement)
    }
}

impl From<PositiveElement> for f64 {
    fn from(v: PositiveElement) -> f64 {
        v.0
    }
}

/// Three finite numbers, each `> 0` (e.g. an ellipsoid's semi-axes).
pub(crate) fn positive3<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 3], D::Error> {
    checked_array::<D, PositiveElement, 3>(d, "finite numbers > 0")
}

/// A 3-vector of finite numbers.
pub(crate) fn vec3<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 3], D::Error> {
    finite_array::<D, 3>(d)
}

/// A quaternion `[w, x, y, z]` of finite numbers, not all zero (normalised later).
pub(crate) fn quaternion<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 4], D::Error> {
    struct QuatVisitor;

    impl<'de> Visitor<'de> for QuatVisitor {
        type Value = [f64; 4];

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a quaternion [w, x, y, z] of finite numbers, not all zero")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; 4], A::Error> {
            let mut q = [0.0; 4];
            for (i, slot) in q.iter_mut().enumerate() {
                match seq.next_element::<Finite>()? {
                    Some(v) => *slot = v.0,
                    None => return Err(de::Error::invalid_length(i, &self)),
                }
            }
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::invalid_length(5, &self));
            }
            let norm2: f64 = q.iter().map(|c| c * c).sum();
            if norm2 <= 1e-24 || !norm2.is_finite() {
                return Err(de::Error::custom(
                    "invalid quaternion: its norm is zero or not finite",
                ));
            }
            Ok(q)
        }
    }

    d.deserialize_seq(QuatVisitor)
}

/// Accepts integers `≥ 1` that fit a `u32`; the check runs inside the scalar's visitor.
struct CountVisitor;

impl Visitor<'_> for CountVisitor {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count ≥ 1")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        match u32::try_from(v) {
            Ok(0) => Err(E::custom("invalid value 0, expected a count ≥ 1")),
            Ok(n) => Ok(n),
            Err(_) => Err(E::custom(format_args!("count {v} is too large"))),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        if v < 1 {
            Err(E::custom(format_args!(
                "invalid value {v}, expected a count ≥ 1"
            )))
        } else {
            self.visit_u64(v as u64)
        }
    }
}

/// One count, as a sequence element.
struct Count(u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_u32(CountVisitor).map(Count)
    }
}

/// A count `≥ 1`.
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    d.deserialize_u32(CountVisitor)
}

/// A generator's particle count `≥ 1`, added to the scenario's running total (refused at
/// the value where the total passes `limits.max_particles`).
pub(crate) fn particle_count<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = u32;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            CountVisitor.expecting(f)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
            let n = CountVisitor.visit_u64(v)?;
            names::add_particles(u64::from(n)).map_err(E::custom)?;
            Ok(n)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
            let n = CountVisitor.visit_i64(v)?;
            names::add_particles(u64::from(n)).map_err(E::custom)?;
            Ok(n)
        }
    }
    d.deserialize_u32(V)
}

/// A lattice's counts along x, y, z, each `≥ 1`; their product (in `u64`) is added to the
/// scenario's running total like [`particle_count`], refused at the sequence.
pub(crate) fn lattice_count<'de, D: Deserializer<'de>>(d: D) -> Result<[u32; 3], D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = [u32; 3];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of length 3")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u32; 3], A::Error> {
            let mut c = [0u32; 3];
            for (i, slot) in c.iter_mut().enumerate() {
                *slot = seq
                    .next_element::<Count>()?
                    .ok_or_else(|| de::Error::invalid_length(i, &self))?
                    .0;
            }
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::invalid_length(4, &self));
            }
            let total = crate::limits::lattice_total(c).unwrap_or(u64::MAX);
            names::add_particles(total).map_err(de::Error::custom)?;
            Ok(c)
        }
    }
    d.deserialize_seq(V)
}

/// A count `≥ 1` that fits a `u64`.
pub(crate) fn count_u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a count ≥ 1")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            if v == 0 {
                Err(E::custom("invalid value 0, expected a count ≥ 1"))
            } else {
                Ok(v)
            }
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            match u64::try_from(v) {
                Ok(v) => self.visit_u64(v),
                Err(_) => Err(E::custom(format_args!(
                    "invalid value {v}, expected a count ≥ 1"
                ))),
            }
        }
        /// A whole number written in floating-point form (`1e8`), below 2⁶⁴.
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
            if v.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&v) {
                self.visit_u64(v as u64)
            } else {
                Err(E::custom(format_args!(
                    "invalid value {}, expected a whole count ≥ 1 below 1.8e19",
                    crate::limits::short(v)
                )))
            }
        }
    }
    d.deserialize_any(V)
}

/// Default coefficient of restitution (1: no damping) [-].
pub(crate) fn default_restitution() -> f64 {
    1.0
}
/// Default orientation: the identity quaternion `[w, x, y, z]`.
pub(crate) fn identity_quaternion() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}

#[cfg(test)]
mod tests {
    use super::short_number;

    #[test]
    fn short_numbers_keep_short_values_and_shorten_long_ones() {
        // Short decimal forms are kept as they are.
        for (v, s) in [(0.1, "0.1"), (-2.5, "-2.5"), (20000.0, "20000"), (0.0, "0")] {
            assert_eq!(short_number(v), s);
        }
        // Rounding noise goes (9 significant digits), huge and tiny values in scientific form.
        assert_eq!(short_number(0.13477463999999997), "0.13477464");
        assert_eq!(short_number(-1e300), "-1e300");
        assert_eq!(short_number(2.2440000000000001e200), "2.244e200");
        assert_eq!(short_number(1.0000000000000001e295), "1e295");
        assert_eq!(short_number(5e-324), "5e-324");
        assert_eq!(short_number(123456789012345.0), "1.23456789e14");
        assert_eq!(short_number(f64::NAN), "NaN");
        // Never long: at most 16 characters for any finite value.
        for v in [
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            1.0 / 3.0,
            -2.0 / 3.0 * 1e-200,
        ] {
            assert!(short_number(v).len() <= 16, "{v}: {}", short_number(v));
        }
    }
}
