//! Classic and partitioned Bloom filters against fastbloom 0.17 and
//! bloomfilter 3, in the same run: insert, contains-hit and contains-miss at
//! n = 10⁶ and 10⁷, p = 1 %, random `u64` keys through `Hash`.
//!
//! Run with `cargo bench --bench bloom`. Each setup also prints, on stderr,
//! each filter's bits per key and measured false-positive rate.

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// The operations every filter under test offers, so one generic loop
/// (monomorphised per filter, no dynamic dispatch) measures them all.
trait Subject {
    fn bits(&self) -> u64;
    fn put(&mut self, key: &u64);
    fn has(&self, key: &u64) -> bool;
}

impl<L: approxset::Layout> Subject for approxset::Bloom<L> {
    fn bits(&self) -> u64 {
        approxset::Bloom::bits(self)
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.insert(key);
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
}

impl Subject for fastbloom::BloomFilter {
    fn bits(&self) -> u64 {
        self.num_bits() as u64
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.insert(key);
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
}

impl Subject for bloomfilter::Bloom<u64> {
    fn bits(&self) -> u64 {
        self.len()
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.set(key);
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.check(key)
    }
}

fn run<S: Subject>(c: &mut Criterion, name: &str, mut filter: S, members: &[u64], others: &[u64]) {
    let n = members.len();
    for k in members {
        filter.put(k);
    }
    let probes = others.len().min(1_000_000);
    let fp = others[..probes].iter().filter(|k| filter.has(k)).count();
    eprintln!(
        "n={n} {name}: {:.3} bits/key, measured fp {:.5} over {probes} fresh keys",
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
    group.bench_function(BenchmarkId::new("insert", name), |b| {
        b.iter(|| {
            i = (i + 1) % n;
            filter.put(black_box(&members[i]))
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    for n in [1_000_000usize, 10_000_000] {
        let (members, others) = common::keys(n);
        let classic = approxset::BloomFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap();
        run(c, "approxset-classic", classic, &members, &others);
        let parted = approxset::PartitionedBloomFilter::with_fp_rate(FP)
            .seed(1)
            .expected_items(n)
            .unwrap();
        run(c, "approxset-partitioned", parted, &members, &others);
        let fast = fastbloom::BloomFilter::with_false_pos(FP)
            .seed(&1)
            .expected_items(n);
        run(c, "fastbloom", fast, &members, &others);
        let bf = bloomfilter::Bloom::<u64>::new_for_fp_rate_with_seed(n, FP, &[1; 32]).unwrap();
        run(c, "bloomfilter", bf, &members, &others);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
