//! Building one Bloom filter per shard on separate threads, shipping each as
//! bytes, and merging them by union: the merged filter is bit for bit the
//! filter built over all keys at once (same seed and parameters), which the
//! example asserts.
//!
//! The receiver does not need to know the variant: it loads each shard with
//! `approxset::load` and merges through the trait object with
//! [`ApproxSet::union_dyn`], which refuses (with `Error::Incompatible`) a
//! shard of another variant or other parameters. On files, the CLI does
//! the same: `approxset merge -o all.bin shard-0.bin shard-1.bin …`.
//!
//! `cargo run --release --example sharded_union`

use std::time::Instant;

use approxset::hash::splitmix64;
use approxset::{ApproxSet, BloomFilter};

/// Every shard builds with these, so their filters can be combined.
const SEED: u64 = 42;
const FP_RATE: f64 = 0.01;
const SHARDS: usize = 4;
const KEYS: usize = 1_000_000;

/// A filter sized for all keys; the shards and the single build share it.
fn empty_filter() -> approxset::Result<BloomFilter> {
    BloomFilter::with_fp_rate(FP_RATE)
        .seed(SEED)
        .expected_items(KEYS)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Deterministic keys, "user-<n>", split among shards by their number.
    let mut state = 7;
    let keys: Vec<String> = (0..KEYS)
        .map(|_| format!("user-{:016x}", splitmix64(&mut state)))
        .collect();
    let shards: Vec<Vec<&str>> = (0..SHARDS)
        .map(|s| {
            keys.iter()
                .skip(s)
                .step_by(SHARDS)
                .map(String::as_str)
                .collect()
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "{KEYS} keys in {SHARDS} shards, target fp rate {FP_RATE}, seed {SEED}, \
         one thread per shard ({cores} cores)"
    );

    // Each shard builds its filter on its own thread and ships it as bytes,
    // as a worker would send it over the network or write it to a file.
    let start = Instant::now();
    let shipped: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = shards
            .iter()
            .map(|shard| {
                scope.spawn(move || -> approxset::Result<Vec<u8>> {
                    let mut filter = empty_filter()?;
                    for key in shard {
                        filter.insert(*key)?;
                    }
                    filter.to_bytes()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
                Ok(h.join().map_err(|_| "a shard thread panicked")??)
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let build_time = start.elapsed();
    for (i, bytes) in shipped.iter().enumerate() {
        println!(
            "shard {i}: {} keys, {} bytes shipped",
            shards[i].len(),
            bytes.len()
        );
    }

    // The receiver loads every shard's bytes (checked, never trusted),
    // whatever variant they hold, and merges them by union (bitwise OR)
    // through the trait object.
    let start = Instant::now();
    let mut loaded = shipped
        .iter()
        .map(|bytes| approxset::load(bytes))
        .collect::<approxset::Result<Vec<_>>>()?
        .into_iter();
    let mut merged = loaded.next().ok_or("no shards")?;
    for filter in loaded {
        merged.union_dyn(&*filter)?;
    }
    let merge_time = start.elapsed();
    // Back to the concrete type, to compare it with the single build.
    let merged = merged
        .as_any()
        .and_then(|any| any.downcast_ref::<BloomFilter>())
        .ok_or("the shards hold classic filters")?;

    // The same filter built over all keys at once, on one thread.
    let start = Instant::now();
    let mut whole = empty_filter()?;
    for key in &keys {
        whole.insert(key.as_str())?;
    }
    let single_time = start.elapsed();

    let equal = *merged == whole && merged.to_bytes()? == whole.to_bytes()?;
    assert!(
        equal,
        "the merged filter differs from the filter over all keys"
    );
    let missed = keys.iter().filter(|k| !merged.contains(k.as_str())).count();
    assert_eq!(missed, 0, "a merged filter never misses a shard's key");
    let queries = 1_000_000u32;
    let false_positives = (0..queries)
        .filter(|i| merged.contains(&format!("absent-{i}")))
        .count();

    for (what, time) in [
        ("shard builds (parallel) + to_bytes", build_time),
        ("load shards + union", merge_time),
        ("single build over all keys", single_time),
    ] {
        println!("{what:<35} {:>8.1} ms", time.as_secs_f64() * 1e3);
    }
    println!(
        "merged filter: {} bits, {} hashes, {} bits set ({:.1} % full), {} bytes, {} items",
        merged.bits(),
        merged.hashes(),
        merged.count_ones(),
        100.0 * merged.fill_ratio(),
        merged.memory_bytes(),
        merged.len()
    );
    println!("merged == single build (bits, hashes, key, counts, saved bytes): {equal}");
    println!("keys missed by the merged filter: {missed} of {KEYS}");
    println!(
        "false positives on {queries} absent keys: {false_positives} ({:.4} %, target {:.1} %)",
        100.0 * false_positives as f64 / f64::from(queries),
        100.0 * FP_RATE
    );
    Ok(())
}
