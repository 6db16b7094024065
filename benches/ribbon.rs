//! The Ribbon filter against approxset's binary fuse filter and classic
//! Bloom filter, in the same run, at n = 10⁶ and 10⁷ random `u64` keys:
//!
//! - `build n=N`: construction from precomputed digests, per key: the
//!   Ribbon filter at 1 % and 0.1 %, the fuse filter at 1 % (8-bit
//!   fingerprints) and the classic filter's build + fill at 1 % and 0.1 %
//!   (the yardstick: Ribbon within 4× of the classic fill);
//! - `lookup n=N`: contains-hit and contains-miss from a precomputed
//!   digest, one key per iteration, for the Ribbon filter at 1 % and
//!   0.1 %, the fuse filter at 1 % and the classic filter at 1 %;
//! - on stderr, before the timings: each subject's bits per key, measured
//!   rate over 10⁶ fresh keys and false negatives.
//!
//! Run with `cargo bench -p approxset-benches --bench ribbon -- --warm-up-time 1
//! --measurement-time 3 --sample-size 10` (`'n=1000000/'` for one size).
//!
//! Instruction counts (no timing): with `STATIC_ICOUNT=MODE` set the binary
//! counts MODE's lookups instead (`common/static_filters.rs`, `icount`).

#[allow(dead_code)] // only `keys`, `sizes` and `step` are used here
mod common;
#[path = "common/static_filters.rs"]
mod static_filters;

use std::hint::black_box;

use approxset::Digest;
use common::step;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use static_filters::{classic, fuse, report, ribbon};

/// A subject's lookup of a digest.
type Lookup<'a> = dyn Fn(Digest) -> bool + 'a;

fn bench(c: &mut Criterion) {
    if static_filters::icount() {
        return;
    }
    for n in common::sizes() {
        let (_, key, members, others) = static_filters::digests(n);

        let r1 = ribbon(&members, 0.01, key);
        let r01 = ribbon(&members, 0.001, key);
        let f8 = fuse(&members, 0.01, key);
        let cl = classic(&members, 0.01, key);
        let pick = |i: usize, hit: bool| if hit { members[i] } else { others[i] };
        let subjects: [(&str, usize, &Lookup); 4] = [
            ("approxset-ribbon-1%", r1.memory_bytes(), &|d| {
                r1.contains_digest(d)
            }),
            ("approxset-ribbon-0.1%", r01.memory_bytes(), &|d| {
                r01.contains_digest(d)
            }),
            ("approxset-fuse-8", f8.memory_bytes(), &|d| {
                f8.contains_digest(d)
            }),
            ("approxset-classic-1%", cl.memory_bytes(), &|d| {
                cl.contains_digest(d)
            }),
        ];
        for (name, bytes, has) in subjects {
            report(n, name, bytes, None, |i, h| has(pick(i, h)));
        }

        let mut group = c.benchmark_group(format!("build n={n}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(n as u64));
        for (name, fp) in [
            ("approxset-ribbon-1%", 0.01),
            ("approxset-ribbon-0.1%", 0.001),
        ] {
            group.bench_function(name, |b| b.iter(|| ribbon(black_box(&members), fp, key)));
        }
        group.bench_function("approxset-fuse-8", |b| {
            b.iter(|| fuse(black_box(&members), 0.01, key))
        });
        for (name, fp) in [
            ("approxset-classic-1%", 0.01),
            ("approxset-classic-0.1%", 0.001),
        ] {
            group.bench_function(name, |b| b.iter(|| classic(black_box(&members), fp, key)));
        }
        group.finish();

        let mut group = c.benchmark_group(format!("lookup n={n}"));
        let mut i = 0usize;
        for (kind, set) in [("contains-hit", &members), ("contains-miss", &others)] {
            group.bench_function(BenchmarkId::new(kind, "approxset-ribbon-1%"), |b| {
                b.iter(|| black_box(r1.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "approxset-ribbon-0.1%"), |b| {
                b.iter(|| black_box(r01.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "approxset-fuse-8"), |b| {
                b.iter(|| black_box(f8.contains_digest(black_box(set[step(&mut i, n)]))))
            });
            group.bench_function(BenchmarkId::new(kind, "approxset-classic-1%"), |b| {
                b.iter(|| black_box(cl.contains_digest(black_box(set[step(&mut i, n)]))))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
