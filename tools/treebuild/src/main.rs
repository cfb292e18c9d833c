//! treebuild — thin binary.
fn main() {}
