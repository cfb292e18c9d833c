//! The multiresolution DEM solver (pipeline stage 3): model, state and parameters of a
//! simulation, the detection layer, the contact model, the integrators, setup from a
//! scenario and the run loop.
//!
//! A step follows seed 000 Alg. 1 / Alg. 5: broad phase → candidate pairs → narrow phase
//! dispatched by the pair of particle kinds (surrogate-tree traversal + triangle kernels
//! for meshes) → merged contacts → forces → integration. Layers, each using only the ones
//! above it:
//!
//! * [`model`], [`state`], [`params`] — what is fixed during a run, what the integrators
//!   advance, and how to run ([`world::World`] bundles the three);
//! * [`contact`] — the contact model (normals, merge, pair parameters, forces, stable
//!   time step) and [`motion`] — rigid-body kinematics (Euler–Cromer update, energies);
//! * [`detect`] — the one detection layer: broad phase, descent from the roots, kept
//!   active sets with separation certificates, dispatch by particle kinds;
//! * [`integrator`] — explicit and implicit integrators behind one trait;
//! * [`setup`] (scenario → world) and [`run`] (the run loop writing [`frames`]).
//!
//! Units are SI (m, kg, s, N).
#![warn(missing_docs)]

pub mod contact;
pub mod detect;
pub mod distributed;
pub mod error;
/// On-disk run output (manifest, frames, statistics, timings): the crate `msdem-frames`.
pub use msdem_frames as frames;
pub mod integrator;
pub mod model;
pub mod motion;
pub mod params;
pub mod run;
pub use msdem_scenario as scenario;
pub mod setup;
pub mod state;
pub mod world;
