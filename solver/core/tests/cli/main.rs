//! The `solver` binary end to end: arguments, summary, warnings, exit codes, and the
//! implicit integrators through the scenario file.

#[path = "../common/mod.rs"]
mod common;

mod implicit;
mod restart;
mod solver;
