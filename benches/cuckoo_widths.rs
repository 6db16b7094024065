//! The cuckoo filter at each fingerprint width: contains-hit, contains-miss
//! and remove+reinsert on a full filter, and a whole fill from empty (per
//! element), at n = 10⁶ random `u64` keys, for 4, 7, 10, 12, 13, 16, 23
//! and 32-bit fingerprints (narrow buckets in one `u64`, buckets straddling
//! words, and wide buckets in a `u128`), with `cuckoofilter` 0.5 (8-bit) as
//! the peer in the same run.
//!
//! Run with `cargo bench --bench cuckoo_widths`. Each setup prints its bits
//! per key and measured false-positive rate on stderr.

#[allow(dead_code)] // the Bloom helper is for the other benches
mod common;

use std::collections::hash_map::DefaultHasher;

use common::{Keys, Subject};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const N: usize = 1_000_000;
const WIDTHS: [u32; 8] = [4, 7, 10, 12, 13, 16, 23, 32];

/// Lookups on a full filter from `make`, then a whole fill from empty.
fn run<S: Subject>(c: &mut Criterion, name: &str, make: impl Fn() -> S, keys: &Keys) {
    let mut group = c.benchmark_group("widths");
    group.sample_size(30);
    common::lookups(&mut group, name, make(), keys, false);
    group.finish();

    let mut group = c.benchmark_group("widths fill");
    group.sample_size(10);
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function(BenchmarkId::new("insert", name), |b| {
        b.iter_batched_ref(
            &make,
            |f| {
                for k in &keys.members {
                    f.put(k);
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(N);
    for bits in WIDTHS {
        // A target every width meets at its planned load, so the width is
        // the one asked for.
        let make = || {
            approxset::CuckooFilter::with_fp_rate(0.5)
                .fingerprint_bits(bits)
                .seed(1)
                .expected_items(N)
                .unwrap()
        };
        run(c, &format!("approxset-{bits}bit"), make, &keys);
    }
    let peer = || cuckoofilter::CuckooFilter::<DefaultHasher>::with_capacity(N);
    run(c, "cuckoofilter-8bit", peer, &keys);
}

criterion_group!(benches, bench);
criterion_main!(benches);
