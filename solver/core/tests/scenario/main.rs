//! From scenario files to runs ([`common::fixture`]): setup, the broad-phase and implicit
//! keys, the run loop and its outputs, the bad-input corpus `bad/*.yaml` beside this file,
//! and the usage example `examples/usage.rs`.

#[path = "../common/mod.rs"]
mod common;

mod bad_corpus;
mod broadphase;
mod ellipsoid;
mod hertz;
mod implicit;
mod lts;
mod patterns;
mod run;
mod setup;
mod surface;
mod usage;
