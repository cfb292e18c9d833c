//! (physics) — see module docs once implemented.
