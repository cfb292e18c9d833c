//! Error type of the broad phase.

use thiserror::Error;

/// Everything that can go wrong in a broad-phase query or configuration.
///
/// Bad input never panics and never produces a partial pair list: the output vector is left
/// empty when an error is returned.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BroadPhaseError {
    /// A centre coordinate or the radius is NaN or infinite.
    #[error("sphere {index}: non-finite centre or radius (centre {}, radius {})", point(center), short_number(*radius))]
    NonFinite {
        /// Index of the offending sphere in the input slice.
        index: usize,
        /// Its centre \[m\].
        center: [f64; 3],
        /// Its radius \[m\].
        radius: f64,
    },
    /// The radius is negative.
    #[error("sphere {index}: negative radius {} m", short_number(*radius))]
    NegativeRadius {
        /// Index of the offending sphere.
        index: usize,
        /// Its radius \[m\].
        radius: f64,
    },
    /// The centre is so far from the origin, relative to the cell size, that cell indices
    /// would lose precision (|x| / cell size ≥ 2⁴⁰).
    #[error(
        "sphere {index}: centre {} is too far from the origin for cell size {} m",
        point(center),
        short_number(*cell_size)
    )]
    OutOfRange {
        /// Index of the offending sphere.
        index: usize,
        /// Its centre \[m\].
        center: [f64; 3],
        /// The cell size it was mapped with \[m\].
        cell_size: f64,
    },
    /// The sphere does not fit the largest cell of a caller-given grid.
    #[error(
        "sphere {index}: diameter {} m does not fit the largest cell size {} m",
        short_number(*diameter),
        short_number(*cell_size)
    )]
    TooLarge {
        /// Index of the offending sphere.
        index: usize,
        /// Its diameter (including the Verlet skin) \[m\].
        diameter: f64,
        /// Largest configured cell size \[m\].
        cell_size: f64,
    },
    /// More spheres than a `u32` index can address.
    #[error("{count} spheres exceed the u32 index range")]
    TooMany {
        /// Number of spheres given.
        count: usize,
    },
    /// [`crate::IncrementalHGrid::insert`] of an id that is already present.
    #[error("sphere {id}: already inserted")]
    DuplicateId {
        /// The id.
        id: u32,
    },
    /// [`crate::IncrementalHGrid::remove`] or `update` of an id that is not present.
    #[error("sphere {id}: not in the grid")]
    UnknownId {
        /// The id.
        id: u32,
    },
    /// An invalid configuration value (cell sizes, skin, level count).
    #[error("invalid broad-phase configuration: {0}")]
    Config(String),
}

/// A point `[x, y, z]` with its coordinates in [`short`] form.
fn point(p: &[f64; 3]) -> String {
    format!(
        "[{}, {}, {}]",
        short_number(p[0]),
        short_number(p[1]),
        short_number(p[2])
    )
}

/// A number in short form for messages: its plain decimal form when that is at most 12
/// characters, else rounded to 9 significant digits, in scientific form when the decimal
/// form is still long (`1e300`, never three hundred digits). The scenario crate's messages
/// use the same form (`msdem_scenario::values::short_number` is this function).
pub fn short_number(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() <= 12 || !v.is_finite() {
        return plain;
    }
    let sci = format!("{v:.8e}");
    let rounded: f64 = sci.parse().unwrap_or(v);
    let plain = rounded.to_string();
    if plain.len() <= 12 {
        return plain;
    }
    format!("{rounded:e}")
}
