//! Geometry foundation of the multiresolution DEM.
//!
//! * [`math`]: the shared precision and vector aliases (one place to switch library or
//!   precision, as in parry's `math` module).
//! * [`kernel`]: triangle–triangle distance kernels of Noble & Weinzierl, seed 000 §3
//!   (comparison-based exact, iterative eq. (3)/(4), hybrid Alg. 4).
//!
//! Units are SI throughout: lengths in metres.
#![warn(missing_docs)]

pub mod kernel;
pub mod math;
