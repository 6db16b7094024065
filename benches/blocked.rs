//! The cache-blocked and concurrent Bloom filters against fastbloom 0.17 and
//! our classic filter, in the same run, at n = 10⁶ and 10⁷, p = 1 %:
//!
//! - contains-hit, contains-miss and insert for blocked, classic, fastbloom;
//! - contains with a precomputed digest (blocked, classic), against the
//!   machine's random-read time over an array of the blocked filter's size
//!   (`random-read`: one independent 8-byte load per iteration, indices
//!   precomputed, no pointer chasing);
//! - inserting all n keys with 1 and 2 threads into our `AtomicBloomFilter`
//!   (one key at a time, and `insert_batch_shared`) and fastbloom's
//!   `AtomicBloomFilter`.
//!
//! Run with `cargo bench -p approxset-benches --bench blocked`.

mod common;

use std::hint::black_box;

use approxset::Digest;
use approxset::prelude::*;
use common::Keys;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// contains through a precomputed digest, and the random-read reference.
fn digests(c: &mut Criterion, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("n={n}"));
    group.sample_size(30);
    let mut blocked: approxset::BlockedBloomFilter = common::bloom(n, FP);
    let mut classic: approxset::BloomFilter = common::bloom(n, FP);
    for k in &keys.members {
        blocked.insert(k).unwrap();
        classic.insert(k).unwrap();
    }
    contains_digest_miss(&mut group, "approxset-blocked", &blocked, keys);
    contains_digest_miss(&mut group, "approxset-classic", &classic, keys);
    // The reference: one random 8-byte read over as many bytes as the
    // blocked filter holds.
    let words = blocked.memory_bytes() / 8;
    let array: Vec<u64> = (0..words as u64).collect();
    let mut i = 0usize;
    let index: Vec<usize> = keys.others.iter().map(|k| (*k as usize) % words).collect();
    group.bench_function(BenchmarkId::new("random-read", "array"), |b| {
        b.iter(|| black_box(array[black_box(index[common::step(&mut i, n)])]))
    });
    group.finish();
}

/// contains of a non-member through its precomputed digest, cycling over
/// the others' digests.
fn contains_digest_miss<F: ApproxSet>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    filter: &F,
    keys: &Keys,
) {
    let misses: Vec<Digest> = keys.others.iter().map(|k| filter.digest(k)).collect();
    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("contains-digest-miss", name), |b| {
        b.iter(|| {
            let d = misses[common::step(&mut i, misses.len())];
            black_box(filter.contains_digest(black_box(d)))
        })
    });
}

/// Inserting every member from `threads` threads, each its share, into a
/// fresh filter made by `make`, with `insert`.
fn insert_all<F: Sync>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    keys: &Keys,
    threads: usize,
    make: impl Fn() -> F,
    insert: impl Fn(&F, &[u64]) + Sync,
) {
    let share = keys.members.len().div_ceil(threads);
    let id = BenchmarkId::new(format!("insert-all-{threads}-threads"), name);
    group.bench_function(id, |b| {
        b.iter_with_setup(&make, |f| {
            std::thread::scope(|s| {
                for part in keys.members.chunks(share) {
                    let (f, insert) = (&f, &insert);
                    s.spawn(move || insert(f, part));
                }
            });
            f
        })
    });
}

/// Our atomic filter and fastbloom's, with 1 and 2 threads.
fn threaded_inserts(c: &mut Criterion, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("n={n}"));
    group.sample_size(10);
    let ours = || {
        approxset::AtomicBloomFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap()
    };
    for threads in [1usize, 2] {
        insert_all(
            &mut group,
            "approxset-atomic",
            keys,
            threads,
            ours,
            |f, part| {
                for k in part {
                    f.insert_shared(k);
                }
            },
        );
        insert_all(
            &mut group,
            "approxset-atomic-batched",
            keys,
            threads,
            ours,
            |f, part| f.insert_batch_shared(part),
        );
        insert_all(
            &mut group,
            "fastbloom-atomic",
            keys,
            threads,
            || {
                fastbloom::AtomicBloomFilter::with_false_pos(FP)
                    .seed(&1)
                    .expected_items(n)
            },
            |f, part| {
                for k in part {
                    f.insert(k);
                }
            },
        );
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    for n in common::sizes() {
        let keys = common::keys(n);
        for (name, run) in [
            ("approxset-blocked", 0),
            ("approxset-classic", 1),
            ("fastbloom", 2),
        ] {
            let mut group = c.benchmark_group(format!("n={n}"));
            group.sample_size(30);
            match run {
                0 => {
                    let f: approxset::BlockedBloomFilter = common::bloom(n, FP);
                    common::lookups(&mut group, name, f, &keys, true);
                }
                1 => {
                    let f: approxset::BloomFilter = common::bloom(n, FP);
                    common::lookups(&mut group, name, f, &keys, true);
                }
                _ => {
                    let f = common::fastbloom(n, FP);
                    common::lookups(&mut group, name, f, &keys, true);
                }
            }
            group.finish();
        }
        digests(c, &keys);
        threaded_inserts(c, &keys);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
