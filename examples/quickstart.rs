//! A first look at approxset: build every variant from the same n keys at
//! the same p (the static fuse filter in one call, the others sized for n
//! and filled), and measure what it costs and how often it is wrong.
//!
//! `cargo run --release --example quickstart`

use approxset::{Membership, Variant};

fn main() -> Result<(), approxset::Error> {
    let n = 1_000_000;
    let fp_rate = 0.01;
    let queries = 1_000_000u64;
    println!("{n} keys inserted, {queries} fresh keys queried, target fp rate {fp_rate}\n");
    println!(
        "{:<12} {:>12} {:>12} {:>12} {:>14} {:>10}",
        "variant", "bytes", "bits/key", "measured fp", "estimated fp", "missed"
    );
    let keys: Vec<u64> = (0..n as u64).collect();
    for &variant in Variant::ALL {
        let filter: Box<dyn Membership + Send + Sync> =
            variant.builder().seed(1).build_from(&keys, fp_rate)?;
        // No false negatives: every inserted key is found.
        let missed = (0..n as u64).filter(|i| !filter.contains(i)).count();
        let fp = (0..queries)
            .filter(|i| filter.contains(&(u64::MAX - i)))
            .count();
        println!(
            "{:<12} {:>12} {:>12.2} {:>12.5} {:>14.5} {:>10}",
            variant.to_string(),
            filter.memory_bytes(),
            filter.memory_bytes() as f64 * 8.0 / n as f64,
            fp as f64 / queries as f64,
            filter.estimated_fp_rate(),
            missed
        );
    }
    Ok(())
}
