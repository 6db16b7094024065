//! Classic, partitioned and split-block Bloom filters against fastbloom 0.17 and
//! bloomfilter 3, in the same run: insert, contains-hit and contains-miss at
//! n = 10⁶ and 10⁷, p = 1 %, random `u64` keys through `Hash`. The
//! `approxset-classic-k1` and `-k4` rows are the classic filter's bits with
//! 1 and 4 probes instead of 7, to price one probe.
//!
//! Run with `cargo bench -p approxset-benches --bench bloom` (one size
//! alone: `APPROXSET_BENCH_N=10000`, which fits in the first-level cache and
//! so times the code without the memory). Each setup
//! also prints, on stderr, each filter's bits per key and measured
//! false-positive rate.

mod common;

use common::{Keys, Subject};
use criterion::{Criterion, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// Fills `filter` and measures contains-hit, contains-miss and insert (into
/// the full filter) in the group `n=N`.
fn run<S: Subject>(c: &mut Criterion, name: &str, filter: S, keys: &Keys) {
    let mut group = c.benchmark_group(format!("n={}", keys.members.len()));
    group.sample_size(30);
    common::lookups(&mut group, name, filter, keys, true);
    group.finish();
}

fn bench(c: &mut Criterion) {
    for n in common::sizes() {
        let keys = common::keys(n);
        let classic: approxset::BloomFilter = common::bloom(n, FP);
        let bits = classic.bits();
        run(c, "approxset-classic", classic, &keys);
        // The same bits with fewer probes: what each probe of a lookup
        // costs (a hit reads all of them).
        for k in [1, 4] {
            let fewer = approxset::BloomFilter::with_num_bits(bits)
                .seed(1)
                .hashes(k)
                .unwrap();
            run(c, &format!("approxset-classic-k{k}"), fewer, &keys);
        }
        let parted: approxset::PartitionedBloomFilter = common::bloom(n, FP);
        run(c, "approxset-partitioned", parted, &keys);
        let split: approxset::SplitBlockBloomFilter = common::bloom(n, FP);
        run(c, "approxset-split-block", split, &keys);
        let fast = common::fastbloom(n, FP);
        run(c, "fastbloom", fast, &keys);
        let bf = bloomfilter::Bloom::<u64>::new_for_fp_rate_with_seed(n, FP, &[1; 32]).unwrap();
        run(c, "bloomfilter", bf, &keys);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
