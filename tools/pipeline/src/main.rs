//! `pipeline` — thin binary.
fn main() {}
