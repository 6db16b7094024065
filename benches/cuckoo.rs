//! Cuckoo filters against cuckoofilter 0.5 and probabilistic-collections
//! 0.7, with approxset's classic Bloom filter for reference, in the same run:
//! contains-hit, contains-miss, remove (then re-insert the same key, so the
//! filter stays as it was) and insert (a whole fill from empty to n, reported
//! per element) at n = 10⁶ and 10⁷, random `u64` keys through `Hash`.
//!
//! The subjects: approxset's cuckoo filter with 8-bit fingerprints (target
//! 3 %, what 8 bits reach at its 94 % load), and sized automatically for 1 %
//! (10-bit); `cuckoofilter::CuckooFilter::with_capacity(n)` (8-bit, std's
//! `DefaultHasher`, 2^⌈log₂ n⌉ slots); probabilistic-collections'
//! `CuckooFilter::from_entries_per_index(n, 0.01, 4)` (11-bit, 2^⌈log₂ n⌉
//! slots, an unbounded overflow list); approxset's classic Bloom filter at
//! 1 % (no removal) and its counting Bloom filter at 1 % (4-bit counters).
//!
//! At n = 10⁶ it also measures the cuckoo filter at each fingerprint width
//! (4, 7, 10, 12, 13, 16, 23 and 32 bits;
//! `cargo bench -p approxset-benches --bench cuckoo -- bit` for those alone).
//!
//! Run with `cargo bench -p approxset-benches --bench cuckoo`. Each setup
//! prints, on stderr, each filter's bits per key, measured false-positive
//! rate over 10⁶ fresh keys, failed inserts and false negatives.

mod common;

use std::collections::hash_map::DefaultHasher;

use common::{Keys, Subject};
use criterion::{Criterion, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// Measures contains-hit, contains-miss and, where the filter deletes,
/// remove+reinsert on a filter from `make` filled with the members (group
/// `n=N`), then a whole fill from empty (group `fill n=N`).
fn run<S: Subject>(c: &mut Criterion, name: &str, make: impl Fn() -> S, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("n={n}"));
    group.sample_size(30);
    common::lookups(&mut group, name, make(), keys, false);
    group.finish();

    // A whole fill from empty, per element: the kicks near full included.
    common::fill(c, name, make, keys);
}

/// The fingerprint widths measured at 10⁶ keys: narrow buckets in one
/// `u64`, buckets straddling words, and wide buckets in a `u128`.
const WIDTHS: [u32; 8] = [4, 7, 10, 12, 13, 16, 23, 32];

fn bench(c: &mut Criterion) {
    for n in common::sizes() {
        let keys = common::keys(n);
        if n == 1_000_000 {
            for bits in WIDTHS {
                // A target every width meets at its planned load, so the
                // width is the one asked for.
                let make = || {
                    approxset::CuckooFilter::with_fp_rate(0.5)
                        .fingerprint_bits(bits)
                        .seed(1)
                        .expected_items(n)
                        .unwrap()
                };
                run(c, &format!("approxset-cuckoo-{bits}bit"), make, &keys);
            }
        }
        let cuckoo_8bit = || {
            approxset::CuckooFilter::with_fp_rate(0.03)
                .fingerprint_bits(8)
                .seed(1)
                .expected_items(n)
                .unwrap()
        };
        run(c, "approxset-cuckoo-8bit", cuckoo_8bit, &keys);
        let cuckoo = || {
            approxset::CuckooFilter::with_fp_rate(FP)
                .seed(1)
                .expected_items(n)
                .unwrap()
        };
        run(c, "approxset-cuckoo-1%", cuckoo, &keys);
        let peer = || cuckoofilter::CuckooFilter::<DefaultHasher>::with_capacity(n);
        run(c, "cuckoofilter", peer, &keys);
        let pc = || {
            probabilistic_collections::cuckoo::CuckooFilter::<u64>::from_entries_per_index(n, FP, 4)
        };
        run(c, "probabilistic-collections", pc, &keys);
        let classic = || -> approxset::BloomFilter { common::bloom(n, FP) };
        run(c, "approxset-bloom-classic", classic, &keys);
        let counting = || -> approxset::CountingBloomFilter { common::bloom(n, FP) };
        run(c, "approxset-counting", counting, &keys);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
