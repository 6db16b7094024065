//! Batched lookups against the one-at-a-time loop, in the same run, at
//! n = 10⁷ and p = 1 % (filters of 12 MB, past the L2 cache): contains-miss
//! for the classic and blocked filters, one key at a time (`contains`) and
//! batched (`contains_batch`), with fastbloom 0.17 one key at a time as the
//! peer, and the same two paths from precomputed digests (`contains_digest`
//! against `contains_digests`), which leaves hashing out.
//!
//! Also insert (of members again, into the full filter), one key at a time
//! against `insert_batch`.
//!
//! The group `single/n=…` (n = 10⁶ and 10⁷) takes single lookups apart:
//! the hash alone, the lookup from precomputed hashes, and both, for the
//! classic and blocked filters and fastbloom, beside the floor of a
//! one-line lookup (a hash, then one dependent random read; see
//! [`single`]). Run it alone with
//! `cargo bench -p approxset-benches --bench batch -- --warm-up-time 1
//! --measurement-time 5 single/`.
//!
//! Each iteration answers the next 1024 non-members into one `Vec<bool>`
//! (or inserts the next 1024 members); criterion reports the time per key. Run with
//! `cargo bench -p approxset-benches --bench batch -- --warm-up-time 1
//! --measurement-time 5`.

#[allow(dead_code)] // the `Subject` lookups are for the other benches
mod common;
mod window;

use std::hint::black_box;

use approxset::hash::reduce;
use approxset::{ApproxSet, ApproxSetExt, Digest};
use common::Keys;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use window::row;

const FP: f64 = 0.01;
const N: usize = 10_000_000;
/// Keys answered per iteration.
const BATCH: usize = window::WINDOW;

/// One-at-a-time and batched contains-miss (from keys and from digests) of
/// one of our filters.
fn ours<S: ApproxSet>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    filter: &mut S,
    keys: &Keys,
) {
    let mut out = Vec::with_capacity(BATCH);
    let mut at = 0;
    let others = &keys.others;
    group.bench_function(BenchmarkId::new("contains-miss/one-at-a-time", name), |b| {
        b.iter(|| {
            out.clear();
            out.extend(
                window::next(others, &mut at)
                    .iter()
                    .map(|k| filter.contains(k)),
            );
            black_box(&out);
        })
    });
    group.bench_function(BenchmarkId::new("contains-miss/batched", name), |b| {
        b.iter(|| {
            filter.contains_batch(window::next(others, &mut at), &mut out);
            black_box(&out);
        })
    });
    let members = &keys.members;
    group.bench_function(BenchmarkId::new("insert/one-at-a-time", name), |b| {
        b.iter(|| {
            for k in window::next(members, &mut at) {
                filter.insert(k).unwrap();
            }
        })
    });
    group.bench_function(BenchmarkId::new("insert/batched", name), |b| {
        b.iter(|| filter.insert_batch(window::next(members, &mut at)).unwrap())
    });
    let filter = &*filter;
    let digests: Vec<Digest> = others.iter().map(|k| filter.digest(k)).collect();
    group.bench_function(BenchmarkId::new("digest-miss/one-at-a-time", name), |b| {
        b.iter(|| {
            out.clear();
            out.extend(
                window::next(&digests, &mut at)
                    .iter()
                    .map(|&d| filter.contains_digest(d)),
            );
            black_box(&out);
        })
    });
    group.bench_function(BenchmarkId::new("digest-miss/batched", name), |b| {
        b.iter(|| {
            filter.contains_digests(window::next(&digests, &mut at), &mut out);
            black_box(&out);
        })
    });
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(N);
    let mut group = window::group(c, &format!("batch/n={N}"));

    let mut classic: approxset::BloomFilter = common::bloom(N, FP);
    classic.extend(&keys.members);
    ours(&mut group, "approxset-classic", &mut classic, &keys);
    drop(classic);

    let mut blocked: approxset::BlockedBloomFilter = common::bloom(N, FP);
    blocked.extend(&keys.members);
    ours(&mut group, "approxset-blocked", &mut blocked, &keys);
    drop(blocked);

    let mut peer = common::fastbloom(N, FP);
    peer.extend(&keys.members);
    let (mut out, mut at) = (Vec::with_capacity(BATCH), 0);
    group.bench_function(
        BenchmarkId::new("contains-miss/one-at-a-time", "fastbloom"),
        |b| {
            b.iter(|| {
                out.clear();
                out.extend(
                    window::next(&keys.others, &mut at)
                        .iter()
                        .map(|k| peer.contains(k)),
                );
                black_box(&out);
            })
        },
    );
    group.finish();
}

/// Single lookups, one key at a time, at n = 10⁶ and 10⁷: where the time
/// goes. `hash/*` hashes only: our 128-bit SipHash-1-3 digest through the
/// library (`approxset-128`) against fastbloom's 64-bit SipHash-1-3 source
/// hash. `<filter>-miss` and `<filter>-hit` look up non-members and
/// members: `contains` from keys (`dyn` through `&dyn ApproxSet`),
/// `digest` (or `hash` for fastbloom) from precomputed hashes, so memory
/// alone. `read/array` is one random 8-byte read per key over an array of
/// the blocked filter's size, and
/// `hash-then-read/…` the same read at an index taken from the key's hash
/// (ours or fastbloom's): the floor of any filter that hashes a key and
/// reads one line for it. (A digest written out for one `u64` was a row
/// here until the library's one-pass digest matched its time; see the
/// commit that removed it.) The probe-order A/B of the classic filter
/// (first probe alone, first two, then one or three at a time), its code
/// and its figures are in the message of the commit that added this group
/// (`git log benches/batch.rs`).
fn single(c: &mut Criterion) {
    for n in [1_000_000, N] {
        let keys = common::keys(n);
        let mut group = window::group(c, &format!("single/n={n}"));
        let (members, others) = (&keys.members[..], &keys.others[..]);

        let mut classic: approxset::BloomFilter = common::bloom(n, FP);
        classic.extend(members);
        let hk = classic.hash_key();
        row(
            &mut group,
            BenchmarkId::new("hash", "approxset-128"),
            others,
            |k| hk.digest(k),
        );
        let indices: Vec<u64> = (0..n as u64).collect();
        for (name, keys) in [("miss", others), ("hit", members)] {
            let digests: Vec<Digest> = keys.iter().map(|k| hk.digest(k)).collect();
            let f = &classic;
            let id = |what| BenchmarkId::new(format!("classic-{name}"), what);
            row(&mut group, id("digest"), &indices, |&i| {
                f.contains_digest(digests[i as usize])
            });
            row(&mut group, id("contains"), keys, |k| f.contains(k));
            // The same lookup through a trait object, as an app that picks
            // the variant at run time makes it.
            let d: &dyn ApproxSet = f;
            row(&mut group, id("dyn"), keys, |k| d.contains(k));
        }
        drop(classic);

        let mut blocked: approxset::BlockedBloomFilter = common::bloom(n, FP);
        blocked.extend(members);
        let digests: Vec<Digest> = others.iter().map(|k| blocked.digest(k)).collect();
        for (name, keys) in [("miss", others), ("hit", members)] {
            let f = &blocked;
            row(
                &mut group,
                BenchmarkId::new(format!("blocked-{name}"), "contains"),
                keys,
                |k| f.contains(k),
            );
        }
        row(
            &mut group,
            BenchmarkId::new("blocked-miss", "digest"),
            &indices,
            |&i| blocked.contains_digest(digests[i as usize]),
        );
        // The floor of any filter that reads one line per key: one random
        // 8-byte read over as many bytes as the blocked filter holds, alone
        // (`read/array`: the key is the index) and after hashing the key
        // (`hash-then-read/…`: the read's address depends on the hash).
        let words: Vec<u64> = (0..blocked.memory_bytes() as u64 / 8).collect();
        let at = |h: u64| words[reduce(h, words.len() as u64) as usize];
        row(
            &mut group,
            BenchmarkId::new("read", "array"),
            others,
            |&k| at(k),
        );
        let hk = blocked.hash_key();
        row(
            &mut group,
            BenchmarkId::new("hash-then-read", "approxset-128"),
            others,
            |k| at(hk.digest(k).h1()),
        );
        drop(blocked);

        let mut peer = common::fastbloom(n, FP);
        peer.extend(members);
        row(
            &mut group,
            BenchmarkId::new("hash", "fastbloom-64"),
            others,
            |k| peer.source_hash(k),
        );
        row(
            &mut group,
            BenchmarkId::new("hash-then-read", "fastbloom-64"),
            others,
            |k| at(peer.source_hash(k)),
        );
        let hashes: Vec<u64> = others.iter().map(|k| peer.source_hash(k)).collect();
        row(
            &mut group,
            BenchmarkId::new("fastbloom-miss", "hash"),
            &indices,
            |&i| peer.contains_hash(hashes[i as usize]),
        );
        for (name, keys) in [("miss", others), ("hit", members)] {
            row(
                &mut group,
                BenchmarkId::new(format!("fastbloom-{name}"), "contains"),
                keys,
                |k| peer.contains(k),
            );
        }
        group.finish();
    }
}

/// An experiment for issue 11, not a library path: what a 64-bit source
/// hash would give. The classic and blocked filters are filled through
/// `insert_digest` with digests made of fastbloom's 64-bit SipHash-1-3
/// source hash `h` (the same hasher and cost as fastbloom's) as
/// `Digest::new(h, splitmix64(h))`, then looked up one key at a time the
/// same way (`<filter>-<miss|hit>/sip64`), beside the library's 128-bit
/// digest (`contains`) and fastbloom, in the same group. Each setup prints
/// the measured false-positive rate over the non-members on stderr. Run
/// with `cargo bench -p approxset-benches --bench batch -- digest64/`.
fn digest64(c: &mut Criterion) {
    for n in [1_000_000, N] {
        let keys = common::keys(n);
        let mut group = window::group(c, &format!("digest64/n={n}"));
        let (members, others) = (&keys.members[..], &keys.others[..]);
        let mut peer = common::fastbloom(n, FP);
        peer.extend(members);
        let peer = &peer;
        let d64 = |k: &u64| {
            let h = peer.source_hash(k);
            let mut state = h;
            Digest::new(h, approxset::hash::splitmix64(&mut state))
        };
        let mut classic: approxset::BloomFilter = common::bloom(n, FP);
        let mut classic64 = classic.clone();
        classic.extend(members);
        members.iter().for_each(|k| {
            classic64.insert_digest(d64(k)).unwrap();
        });
        let mut blocked: approxset::BlockedBloomFilter = common::bloom(n, FP);
        let mut blocked64 = blocked.clone();
        blocked.extend(members);
        members.iter().for_each(|k| {
            blocked64.insert_digest(d64(k)).unwrap();
        });
        let rate = |f: &dyn Fn(&u64) -> bool| {
            others.iter().filter(|k| f(k)).count() as f64 / others.len() as f64
        };
        eprintln!(
            "digest64/n={n}: measured fp over {} non-members: classic {:.5}, classic sip64 {:.5}, blocked {:.5}, blocked sip64 {:.5}",
            others.len(),
            rate(&|k| classic.contains(k)),
            rate(&|k| classic64.contains_digest(d64(k))),
            rate(&|k| blocked.contains(k)),
            rate(&|k| blocked64.contains_digest(d64(k))),
        );
        for (name, keys) in [("miss", others), ("hit", members)] {
            let id = |filter: &str, what: &str| BenchmarkId::new(format!("{filter}-{name}"), what);
            row(&mut group, id("classic", "contains"), keys, |k| {
                classic.contains(k)
            });
            row(&mut group, id("classic", "sip64"), keys, |k| {
                classic64.contains_digest(d64(k))
            });
            row(&mut group, id("blocked", "contains"), keys, |k| {
                blocked.contains(k)
            });
            row(&mut group, id("blocked", "sip64"), keys, |k| {
                blocked64.contains_digest(d64(k))
            });
            row(&mut group, id("fastbloom", "contains"), keys, |k| {
                peer.contains(k)
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench, single, digest64);
criterion_main!(benches);
