//! The scalable Bloom filter against growable-bloom-filter 2 and
//! probabilistic-collections 0.7's `ScalableBloomFilter`, in the same run:
//! growing from an initial capacity of 10⁴ to 10⁶ and 10⁷ items (insert, per
//! item), then contains-hit and contains-miss on the grown filter. Target
//! rate 1 %, growth 2, tightening 0.85 for all; random `u64` keys.
//!
//! Run with `cargo bench -p approxset-benches --bench scalable`. Setup
//! prints, on stderr, each filter's memory, stages and measured
//! false-positive rate over 10⁶ fresh keys, and our filter's memory for growth 2 and 4 against a classic filter
//! sized up front for the final count.

mod common;

use approxset::{BloomFilter, ScalableBloomFilter};
use common::{Keys, Subject};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const FP: f64 = 0.01;
const INITIAL: usize = 10_000;

/// Measures growing a filter from `make` to all the members (per item),
/// then contains-hit and contains-miss on the grown filter.
fn run<S: Subject>(c: &mut Criterion, name: &str, make: impl Fn() -> S, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("scalable/n={n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("grow-insert", name), |b| {
        b.iter(|| {
            let mut f = make();
            for k in &keys.members {
                f.put(k);
            }
            f
        })
    });
    group.throughput(Throughput::Elements(1));
    common::lookups(&mut group, name, make(), keys, false);
    group.finish();
}

/// Memory of our scalable filter (growth 2 and 4) against a classic filter
/// sized up front for the final count: the price of not knowing n.
fn memory_report(n: usize, members: &[u64]) {
    let classic: BloomFilter = common::bloom(n, FP);
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
    for n in common::sizes() {
        let keys = common::keys(n);
        memory_report(n, &keys.members);
        let ours = || {
            ScalableBloomFilter::with_fp_rate(FP)
                .seed(1)
                .initial_capacity(INITIAL)
                .unwrap()
        };
        run(c, "approxset", ours, &keys);
        let growable = || {
            growable_bloom_filter::GrowableBloomBuilder::new()
                .estimated_insertions(INITIAL)
                .desired_error_ratio(FP)
                .growth_factor(2)
                .tightening_ratio(0.85)
                .build()
        };
        run(c, "growable-bloom-filter", growable, &keys);
        // It takes an initial bit count: the classic optimum for INITIAL items.
        let pc = || {
            let bits = (INITIAL as f64 * approxset::sizing::optimal_bits_per_key(FP)).ceil();
            probabilistic_collections::bloom::ScalableBloomFilter::<u64>::new(
                bits as usize,
                FP,
                2.0,
                0.85,
            )
        };
        run(c, "probabilistic-collections", pc, &keys);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
