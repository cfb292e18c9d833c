//! The multiresolution DEM solver (pipeline stage 3): scenario schema, rigid bodies,
//! contact model, broad + narrow phase, integrators, frames and statistics.
//!
//! The step loop follows seed 000 Alg. 1 / Alg. 5: broad phase → candidate pairs →
//! narrow phase (surrogate-tree traversal + triangle kernels) → merged contacts → forces →
//! integration. Units are SI (m, kg, s, N).
#![warn(missing_docs)]

pub mod broad;
pub mod contact;
pub mod error;
pub mod frames;
pub mod implicit;
pub mod integrate;
pub mod narrow;
pub mod run;
pub use msdem_scenario as scenario;
pub mod setup;
pub mod step;
pub mod world;
