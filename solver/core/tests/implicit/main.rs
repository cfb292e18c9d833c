//! Implicit Euler by Picard iterations on worlds built in memory ([`common::implicit`]):
//! the three variants against each other, exactness of the separation certificates and
//! of the reuse of evaluations, stability at large time steps.

#[path = "../common/mod.rs"]
mod common;

mod analytic;
mod certificates;
mod linearised;
mod piecewise;
mod rolling;
mod split;
mod stability;
mod substep;
mod theta;
mod variants;
