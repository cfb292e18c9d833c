//! Distributed runs: spatial domain decomposition over MPI ranks (issue 18,
//! docs/design.md §8 *Distributed runs*).
//!
//! * [`rcb`] — recursive coordinate bisection of the particles by cost (pure, no MPI);
//! * [`cost`] — the cost weight of a particle;
//! * [`launch_env`] — whether the process was started by an MPI launcher (so that a
//!   build without the `mpi` feature refuses such a launch instead of running N
//!   identical copies into one folder);
//! * with the cargo feature `mpi`: `exchange` (byte messages between ranks), `explicit`
//!   (the explicit Euler step over owned and ghost particles, with results byte-identical
//!   to one process), `implicit` (the Picard steps of the implicit integrators over the
//!   same decomposition, with convergence and statistics through reductions in particle
//!   order) and `launch` (`mpirun -np N solver …`).

pub mod cost;
pub mod launch_env;
pub mod rcb;

#[cfg(feature = "mpi")]
pub mod exchange;
#[cfg(feature = "mpi")]
pub mod explicit;
#[cfg(feature = "mpi")]
pub mod implicit;
#[cfg(feature = "mpi")]
pub mod integrators;
#[cfg(feature = "mpi")]
pub mod launch;
