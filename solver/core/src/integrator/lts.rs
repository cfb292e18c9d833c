//! Local time stepping with clusters (seed 004). Provisional module file of the impulse
//! branch: it declares only the collision solver; the integrator itself (space-time broad
//! phase, clustering, consolidation, time step size, masking, roll-over) replaces this
//! file at merge.

pub mod impulse;
