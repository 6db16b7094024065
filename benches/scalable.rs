//! Scalable filter benchmarks (being written).
fn main() {}
