//! Local time stepping (seed 004) on worlds built in memory: analytic two-body collisions,
//! local against global time steps, a settled stack of cubes under gravity, exact mesh
//! distances of every synchronised snapshot, the same bytes at 1 and 2 threads, the
//! narrowing's witness-seeded searches against searches from the roots. Every run
//! checks Theorem 2.4 and Lemma 7.4 on every sweep ([`scenes::run`]).

#[path = "../common/mod.rs"]
mod common;

mod gas;
mod ground;
mod pairs;
mod resume;
mod scenes;
mod stack;
mod topple;
mod witness;
