//! The scalable Bloom filter against growable-bloom-filter 2 and
//! probabilistic-collections 0.7's `ScalableBloomFilter`, in the same run:
//! growing from an initial capacity of 10⁴ to 10⁶ and 10⁷ items (insert, per
//! item), then contains-hit and contains-miss on the grown filter. Target
//! rate 1 %, growth 2, tightening 0.85 for all; random `u64` keys.
//!
//! Run with `cargo bench --bench scalable`. Setup prints, on stderr, each
//! filter's memory, stages and measured false-positive rate over 10⁶ fresh
//! keys, and our filter's memory for growth 2 and 4 against a classic filter
//! sized up front for the final count.

mod common;

use std::hint::black_box;

use approxset::{BloomFilter, ScalableBloomFilter};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const FP: f64 = 0.01;
const INITIAL: usize = 10_000;

trait Grower {
    fn fresh() -> Self;
    fn put(&mut self, key: &u64);
    fn has(&self, key: &u64) -> bool;
    /// Bytes of filter data, where the crate tells.
    fn bytes(&self) -> Option<usize>;
}

struct Ours(ScalableBloomFilter);

impl Grower for Ours {
    fn fresh() -> Self {
        Ours(
            ScalableBloomFilter::with_fp_rate(FP)
                .seed(1)
                .initial_capacity(INITIAL)
                .unwrap(),
        )
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.0.insert(key).unwrap();
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.0.contains(key)
    }
    fn bytes(&self) -> Option<usize> {
        Some(self.0.memory_bytes())
    }
}

impl Grower for growable_bloom_filter::GrowableBloom {
    fn fresh() -> Self {
        growable_bloom_filter::GrowableBloomBuilder::new()
            .estimated_insertions(INITIAL)
            .desired_error_ratio(FP)
            .growth_factor(2)
            .tightening_ratio(0.85)
            .build()
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.insert(key);
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    fn bytes(&self) -> Option<usize> {
        None
    }
}

type PcScalable = probabilistic_collections::bloom::ScalableBloomFilter<u64>;

impl Grower for PcScalable {
    fn fresh() -> Self {
        // It takes an initial bit count: the classic optimum for INITIAL items.
        let bits = (INITIAL as f64 * approxset::sizing::optimal_bits_per_key(FP)).ceil();
        PcScalable::new(bits as usize, FP, 2.0, 0.85)
    }
    #[inline]
    fn put(&mut self, key: &u64) {
        self.insert(key);
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.contains(key)
    }
    fn bytes(&self) -> Option<usize> {
        Some(self.len() / 8)
    }
}

fn run<G: Grower>(c: &mut Criterion, name: &str, members: &[u64], others: &[u64]) {
    let n = members.len();
    let mut group = c.benchmark_group(format!("scalable/n={n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("grow-insert", name), |b| {
        b.iter(|| {
            let mut f = G::fresh();
            for k in members {
                f.put(k);
            }
            f
        })
    });
    let mut f = G::fresh();
    for k in members {
        f.put(k);
    }
    let missed = members.iter().filter(|k| !f.has(k)).count();
    let probes = others.len().min(1_000_000);
    let fp = others[..probes].iter().filter(|k| f.has(k)).count();
    eprintln!(
        "n={n} {name}: bytes {:?} ({}), measured fp {:.5} over {probes} fresh keys, false negatives {missed}",
        f.bytes(),
        f.bytes().map_or("bits/key n/a".into(), |b| format!(
            "{:.2} bits/key",
            b as f64 * 8.0 / n as f64
        )),
        fp as f64 / probes as f64,
    );
    group.throughput(Throughput::Elements(1));
    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("contains-hit", name), |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(f.has(black_box(&members[i])))
        })
    });
    group.bench_function(BenchmarkId::new("contains-miss", name), |b| {
        b.iter(|| {
            i = (i + 1) % n;
            black_box(f.has(black_box(&others[i])))
        })
    });
    group.finish();
}

/// Memory of our scalable filter (growth 2 and 4) against a classic filter
/// sized up front for the final count: the price of not knowing n.
fn memory_report(n: usize, members: &[u64]) {
    let classic = BloomFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(n)
        .unwrap();
    for growth in [2.0, 4.0] {
        let mut f = ScalableBloomFilter::with_fp_rate(FP)
            .growth(growth)
            .seed(1)
            .initial_capacity(INITIAL)
            .unwrap();
        for k in members {
            f.insert(k).unwrap();
        }
        eprintln!(
            "n={n} growth {growth}: {} stages, {} bytes = {:.2}x the classic filter sized for n ({} bytes), estimated fp {:.5}",
            f.stages().len(),
            f.memory_bytes(),
            f.memory_bytes() as f64 / classic.memory_bytes() as f64,
            classic.memory_bytes(),
            f.estimated_fp_rate()
        );
    }
}

fn bench(c: &mut Criterion) {
    for n in [1_000_000usize, 10_000_000] {
        let (members, others) = common::keys(n);
        memory_report(n, &members);
        run::<Ours>(c, "approxset", &members, &others);
        run::<growable_bloom_filter::GrowableBloom>(c, "growable-bloom-filter", &members, &others);
        run::<PcScalable>(c, "probabilistic-collections", &members, &others);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
