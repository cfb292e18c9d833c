//! Fixtures shared by the test binaries of `msdem-solver` (and the benches, which include
//! this folder via `#[path]`), one module per concern:
//!
//! * [`world`] — worlds built programmatically (generated meshes, in-memory surrogate
//!   trees, no files), the explicit integrator and detector for them, contact detection
//!   from the roots;
//! * [`implicit`] — the seed's two implicit test scenarios (a colliding pair, a sphere on
//!   a slope) and energy / state comparisons;
//! * [`fixture`] — a folder of meshes and trees on disk plus scenario text for the
//!   scenario, run and CLI tests.
#![allow(dead_code)]

pub mod fixture;
pub mod implicit;
pub mod world;
