//! The quotient filter against qfilter 0.3 (a rank-select quotient filter)
//! in the same run, with approxset's cuckoo filter for reference:
//! contains-hit, contains-miss, remove (then re-insert the same key, so the
//! filter stays as it was) and insert (a whole fill from empty to n,
//! reported per element) at n = 10⁶ and 10⁷, random `u64` keys through
//! `Hash`, all sized for n at 1 %.
//!
//! Run with `cargo bench -p approxset-benches --bench quotient`; short runs:
//! `-- --warm-up-time 1 --measurement-time 3 --sample-size 10`. Each setup
//! prints, on stderr, each filter's bits per key, measured false-positive
//! rate over 10⁶ fresh keys, failed inserts and false negatives.
//!
//! qfilter rounds its slots up to a power of two, so at n = 10⁶ it has 2²¹
//! slots, about half full (19 bits per key), where our filter is sized to
//! 95 %: the `approxset-quotient-qfilter-load` rows size ours for qfilter's
//! capacity at n, the same load, to separate the load from the code; the
//! `approxset-quotient-foldhash` rows hash with qfilter's unkeyed
//! foldhash instead of our keyed SipHash, to separate the hash.
//!
//! For instruction counts (a noisy machine), `APPROXSET_ICOUNT=MODE` runs
//! one operation over 10⁵ keys once, without criterion, to be counted
//! under `valgrind --tool=cachegrind --cache-sim=no`: modes
//! `{quotient,qload,qfold,qfilter}-{fill,hit,miss,remove,churn}` (`qload`:
//! ours sized for qfilter's capacity, at its load; `qfold`: ours hashing
//! with qfilter's hash, as the `approxset-quotient-foldhash` rows do;
//! `churn`: remove then
//! re-insert each key, the filter full throughout); subtract `-fill` from
//! the others (they fill first) and divide by 10⁵. `APPROXSET_ICOUNT_N=N`
//! counts at `N` keys instead: 124,518 fills qfilter's 2¹⁷ slots to its
//! 95 %, the load ours runs at, so both tables hold the same bits.

#[allow(dead_code)] // the Bloom filter builders are not used here
mod common;

use common::{Keys, Subject};
use std::hash::BuildHasher;

use criterion::{Criterion, criterion_group, criterion_main};

const FP: f64 = 0.01;

/// qfilter's filter, `insert`/`contains`/`remove` of the key's `Hash`.
struct Q(qfilter::Filter);

impl Subject for Q {
    const DELETES: bool = true;
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.0.insert(key).is_ok()
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.0.contains(key)
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        let _ = self.0.remove(key);
    }
}

/// Our quotient filter hashing with qfilter's own hash of the key
/// (`StableBuildHasher`: foldhash, a fixed seed, no key) instead of the
/// keyed SipHash digest: the two tables' code under the same hash.
struct Fold(approxset::QuotientFilter);

/// qfilter's hash of `key`, as a digest (the quotient filter reads `h1`).
#[inline]
fn fold(key: &u64) -> approxset::Digest {
    approxset::Digest::new(qfilter::StableBuildHasher.hash_one(key), 0)
}

impl Subject for Fold {
    const DELETES: bool = true;
    #[inline]
    fn put(&mut self, key: &u64) -> bool {
        self.0.insert_digest(fold(key)).is_ok()
    }
    #[inline]
    fn has(&self, key: &u64) -> bool {
        self.0.contains_digest(fold(key))
    }
    #[inline]
    fn del(&mut self, key: &u64) {
        let _ = self.0.remove_digest(fold(key));
    }
}

/// Lookups and remove+reinsert on a full filter (group `n=N`), then a
/// whole fill from empty (group `fill n=N`).
fn run<S: Subject>(c: &mut Criterion, name: &str, make: impl Fn() -> S, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("n={n}"));
    common::lookups(&mut group, name, make(), keys, false);
    group.finish();
    common::fill(c, name, make, keys);
}

/// The instruction-count run of `mode` (see the file's comment).
fn icount(mode: &str) {
    let n = match std::env::var("APPROXSET_ICOUNT_N") {
        Ok(n) => n.parse().expect("APPROXSET_ICOUNT_N: a number of keys"),
        Err(_) => 100_000,
    };
    let keys = common::keys(n);
    let (name, op) = mode.split_once('-').expect("MODE is FILTER-OP");
    // `qload`: ours sized for qfilter's capacity at n, at its load.
    let qfilter_capacity = qfilter::Filter::new(n as u64, FP).unwrap().capacity() as usize;
    match name {
        "quotient" | "qload" => icount_op(
            approxset::QuotientFilter::with_fp_rate(FP)
                .seed(1)
                .expected_items(if name == "qload" { qfilter_capacity } else { n })
                .unwrap(),
            op,
            &keys,
        ),
        "qfold" => icount_op(
            Fold(
                approxset::QuotientFilter::with_fp_rate(FP)
                    .seed(1)
                    .expected_items(n)
                    .unwrap(),
            ),
            op,
            &keys,
        ),
        "qfilter" => icount_op(
            Q(qfilter::Filter::new(keys.members.len() as u64, FP).unwrap()),
            op,
            &keys,
        ),
        _ => panic!("unknown filter {name}"),
    }
}

fn icount_op<S: Subject>(mut f: S, op: &str, keys: &Keys) {
    for k in &keys.members {
        f.put(k);
    }
    let found = match op {
        "fill" => 0,
        "hit" => keys.members.iter().filter(|k| f.has(k)).count(),
        "miss" => keys.others.iter().filter(|k| f.has(k)).count(),
        "remove" => {
            keys.members.iter().for_each(|k| f.del(k));
            0
        }
        // What the `remove+reinsert` rows time: the filter stays full.
        "churn" => {
            keys.members.iter().for_each(|k| {
                f.del(k);
                f.put(k);
            });
            0
        }
        _ => panic!("unknown operation {op}"),
    };
    std::hint::black_box(found);
}

fn bench(c: &mut Criterion) {
    if let Ok(mode) = std::env::var("APPROXSET_ICOUNT") {
        icount(&mode);
        std::process::exit(0);
    }
    for n in common::sizes() {
        let keys = common::keys(n);
        let quotient = || {
            approxset::QuotientFilter::with_fp_rate(FP)
                .seed(1)
                .expected_items(n)
                .unwrap()
        };
        run(c, "approxset-quotient", quotient, &keys);
        // Sized for qfilter's capacity at n (its slots are a power of two,
        // so 2²¹ at 10⁶: about half full), the same load as qfilter's.
        let same = qfilter::Filter::new(n as u64, FP).unwrap().capacity() as usize;
        let at_its_load = || {
            approxset::QuotientFilter::with_fp_rate(FP)
                .seed(1)
                .expected_items(same)
                .unwrap()
        };
        run(c, "approxset-quotient-qfilter-load", at_its_load, &keys);
        let folded = || Fold(quotient());
        run(c, "approxset-quotient-foldhash", folded, &keys);
        let q = || Q(qfilter::Filter::new(n as u64, FP).unwrap());
        run(c, "qfilter", q, &keys);
        let cuckoo = || {
            approxset::CuckooFilter::with_fp_rate(FP)
                .seed(1)
                .expected_items(n)
                .unwrap()
        };
        run(c, "approxset-cuckoo", cuckoo, &keys);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
