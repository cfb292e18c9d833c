//! Placement by the pattern generators of local time stepping's scenarios (seed 004 §8):
//! `pairs`, `stack` and `ring` give every particle a position, an orientation and a
//! velocity by a closed rule (only `pairs` draws random speeds, from the scenario's one
//! seeded stream, in generator order).

use rand_xoshiro::Xoshiro256PlusPlus;

pub use super::placed::Placed;
use super::{pairs, ring, stack};
use crate::scenario::GeneratorSpec;

/// The particles of a pattern generator, or `None` for the other generators.
pub fn placements(gen: &GeneratorSpec, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<Placed>> {
    match gen {
        GeneratorSpec::Pairs(p) => Some(pairs::place(p, rng)),
        GeneratorSpec::Stack(s) => Some(stack::place(s)),
        GeneratorSpec::Ring(r) => Some(ring::place(r)),
        _ => None,
    }
}
