//! `solver SCENARIO.yaml -o OUT` — pipeline stage 3.
fn main() {}
