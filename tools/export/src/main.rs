//! `export` — thin binary.
fn main() {}
