//! Cuckoo filter benchmarks (being written).
fn main() {}
