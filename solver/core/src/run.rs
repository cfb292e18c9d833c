//! (scenario/run) — see module docs once implemented.
