//! One-at-a-time rows over windows of keys, for the benches that take
//! single lookups apart (`batch`, `blocked_probes`): each iteration answers
//! the next `WINDOW` keys one at a time into one `Vec`, and criterion
//! reports the time per window.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};

/// Keys answered per iteration.
pub(crate) const WINDOW: usize = 1024;

/// A benchmark group named `name` whose rows report per window of
/// `WINDOW` keys, 20 samples each.
pub(crate) fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(20);
    group.throughput(Throughput::Elements(WINDOW as u64));
    group
}

/// The next window of `WINDOW` items of `all`, moving on by one window per
/// call, so every iteration queries keys not queried just before.
pub(crate) fn next<'a, T>(all: &'a [T], at: &mut usize) -> &'a [T] {
    if *at + WINDOW > all.len() {
        *at = 0;
    }
    let w = &all[*at..*at + WINDOW];
    *at += WINDOW;
    w
}

/// Registers `f` over the next window of `keys`, one key at a time, into
/// one `Vec`.
pub(crate) fn row<K, T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    keys: &[K],
    f: impl Fn(&K) -> T,
) {
    let (mut out, mut at) = (Vec::with_capacity(WINDOW), 0);
    group.bench_function(id, |b| {
        b.iter(|| {
            out.clear();
            out.extend(next(keys, &mut at).iter().map(&f));
            black_box(&out);
        })
    });
}

/// Registers `f` over the next window of `keys`, all at once (a batched
/// call such as `contains_batch`), into one `Vec`.
#[allow(dead_code)] // `blocked_probes` has no batched row
pub(crate) fn batched<K>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    keys: &[K],
    f: impl Fn(&[K], &mut Vec<bool>),
) {
    let (mut out, mut at) = (Vec::with_capacity(WINDOW), 0);
    group.bench_function(id, |b| {
        b.iter(|| {
            f(next(keys, &mut at), &mut out);
            black_box(&out);
        })
    });
}
