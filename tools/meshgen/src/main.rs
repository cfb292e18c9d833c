//! meshgen — thin binary.
fn main() {}
