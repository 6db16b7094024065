//! Cuckoo filters against cuckoofilter 0.5 and probabilistic-collections
//! 0.7, with approxset's classic Bloom filter for reference, in the same run:
//! contains-hit, contains-miss, remove (then re-insert the same key, so the
//! filter stays as it was) and insert (a whole fill from empty to n, reported
//! per element) at n = 10⁶ and 10⁷, random `u64` keys through `Hash`.
//!
//! The subjects: approxset's cuckoo filter with 8-bit fingerprints (target
//! 3 %, what 8 bits reach at its 94 % load), and sized automatically for 1 %
//! (12-bit); `cuckoofilter::CuckooFilter::with_capacity(n)` (8-bit, std's
//! `DefaultHasher`, 2^⌈log₂ n⌉ slots); probabilistic-collections'
//! `CuckooFilter::from_entries_per_index(n, 0.01, 4)` (11-bit, 2^⌈log₂ n⌉
//! slots, an unbounded overflow list); approxset's classic Bloom filter at
//! 1 % (no removal) and its counting Bloom filter at 1 % (4-bit counters).
//!
//! Run with `cargo bench --bench cuckoo`. Each setup prints, on stderr, each
//! filter's bits per key, measured false-positive rate over 10⁶ fresh keys,
//! failed inserts and false negatives.

mod common;

use std::collections::hash_map::DefaultHasher;
use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// The operations every filter under test offers, so one generic loop
/// (monomorphised per filter, no dynamic dispatch) measures them all.
trait Subject {
    /// Whether the filter can remove items.
    const DELETES: bool = true;
    fn bits(&self) -> u64;
    /// Inserts; `false` when the filter reported a failure.
    fn put(&mut self, key: &u64) -> bool;
    fn has(&self, key: &u64) -> bool;
    fn del(&mut self, key: &u64);
}

impl Subject for approxset_cuckoo::CuckooFilter {
    fn bits(&self) -> u64 {
        self.memory_bytes() as u64 * 8
    }
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.insert(key).is_ok()
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        self.remove(key);
    }
}

impl Subject for cuckoofilter::CuckooFilter<DefaultHasher> {
    fn bits(&self) -> u64 {
        self.memory_usage() as u64 * 8
    }
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.add(key).is_ok()
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        self.delete(key);
    }
}

impl Subject for probabilistic_collections::cuckoo::CuckooFilter<u64> {
    fn bits(&self) -> u64 {
        (self.capacity() * self.fingerprint_bit_count()) as u64
    }
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.insert(key);
        true
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        self.remove(key);
    }
}

impl Subject for approxset::BloomFilter {
    const DELETES: bool = false;
    fn bits(&self) -> u64 {
        approxset::BloomFilter::bits(self)
    }
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.insert(key);
        true
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    fn del(&mut self, _: &u64) {
        unreachable!("a Bloom filter cannot remove")
    }
}

impl Subject for approxset::CountingBloomFilter {
    fn bits(&self) -> u64 {
        self.memory_bytes() as u64 * 8
    }
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.insert(key);
        true
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        self.remove(key);
    }
}

fn run<S: Subject>(
    c: &mut Criterion,
    name: &str,
    make: impl Fn() -> S,
    members: &[u64],
    others: &[u64],
) {
    let n = members.len();
    let mut filter = make();
    let failed = members.iter().filter(|k| !filter.put(k)).count();
    let missing = members.iter().filter(|k| !filter.has(k)).count();
    let probes = others.len().min(1_000_000);
    let fp = others[..probes].iter().filter(|k| filter.has(k)).count();
    eprintln!(
        "n={n} {name}: {:.3} bits/key, measured fp {:.5} over {probes} fresh keys, \
         {failed} failed inserts, {missing} false negatives",
        filter.bits() as f64 / n as f64,
        fp as f64 / probes as f64
    );

    let mut group = c.benchmark_group(format!("n={n}"));
    group.sample_size(30);
    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("contains-hit", name), |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(filter.has(black_box(&members[i])))
        })
    });
    group.bench_function(BenchmarkId::new("contains-miss", name), |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(filter.has(black_box(&others[i])))
        })
    });
    if S::DELETES {
        group.bench_function(BenchmarkId::new("remove+reinsert", name), |b| {
            b.iter(|| {
                i = (i + 1) % n;
                let key = black_box(&members[i]);
                filter.del(key);
                filter.put(key)
            })
        });
    }
    group.finish();

    // A whole fill from empty, per element: the kicks near full included.
    let mut group = c.benchmark_group(format!("fill n={n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("insert", name), |b| {
        b.iter_batched_ref(
            &make,
            |f| {
                for k in members {
                    f.put(k);
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    for n in [1_000_000usize, 10_000_000] {
        let (members, others) = common::keys(n);
        run(
            c,
            "approxset-cuckoo-8bit",
            || {
                approxset_cuckoo::CuckooFilter::with_fp_rate(0.03)
                    .fingerprint_bits(8)
                    .seed(1)
                    .expected_items(n)
                    .unwrap()
            },
            &members,
            &others,
        );
        run(
            c,
            "approxset-cuckoo-1%",
            || {
                approxset_cuckoo::CuckooFilter::with_fp_rate(FP)
                    .seed(1)
                    .expected_items(n)
                    .unwrap()
            },
            &members,
            &others,
        );
        run(
            c,
            "cuckoofilter",
            || cuckoofilter::CuckooFilter::<DefaultHasher>::with_capacity(n),
            &members,
            &others,
        );
        run(
            c,
            "probabilistic-collections",
            || {
                probabilistic_collections::cuckoo::CuckooFilter::<u64>::from_entries_per_index(
                    n, FP, 4,
                )
            },
            &members,
            &others,
        );
        run(
            c,
            "approxset-bloom-classic",
            || {
                approxset::BloomFilter::with_fp_rate(FP)
                    .seed(1)
                    .expected_items(n)
                    .unwrap()
            },
            &members,
            &others,
        );
        run(
            c,
            "approxset-counting",
            || {
                approxset::CountingBloomFilter::with_fp_rate(FP)
                    .seed(1)
                    .expected_items(n)
                    .unwrap()
            },
            &members,
            &others,
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
