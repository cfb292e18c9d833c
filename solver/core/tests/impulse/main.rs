//! The sequential-impulse collision solver of local time stepping (seed 004 §6) against
//! analytic rigid-body truth: head-on and oblique impacts with restitution and Coulomb
//! friction, Newton's cradle, a resting stack under gravity, the separation term, thread
//! independence and bad input. Contacts are built directly from the analytic geometry of
//! spheres, planes and axis-aligned cubes.

mod bodies;
mod cases;
mod coulomb;
mod jammed;
mod newton;
mod relaxed;
mod sparse;
mod stack;
mod threads;
mod warm;
