//! An experiment for issue 11, not a library path: how the shape of the
//! in-block probe code changes a one-at-a-time blocked lookup at n = 10⁷,
//! p = 1 % (k = 6), beside the library's `contains`, fastbloom 0.17 and the
//! floor of any one-line lookup (hash, then one read of the line).
//!
//! A stand-in blocked filter (64-byte aligned lines, the library's block
//! choice `reduce(h1, lines)`, the library's digests) is filled twice, once
//! per position scheme:
//!
//! - `salted`: bit `(h2 · sᵢ) >> 55` of the line, the library's layout
//!   (format version 1), with odd multipliers `sᵢ`;
//! - `fields`: bit `(h2 >> 9i) & 511`, nine bits of `h2` per probe and no
//!   multiply (seven probes per 64-bit word; a layout the format does not
//!   have).
//!
//! Rows are `<shape>/<miss|hit>`, criterion's time per 1024 keys; only
//! the library's shape branches on the bits it reads:
//!
//! - `library`: `BlockedBloomFilter::contains`;
//! - `<scheme>-unrolled`: the probes written out for a constant `k`;
//! - `<scheme>-rolled`: a loop over a run-time `k`, as a library that takes
//!   `k` from the filter must;
//! - `<scheme>-fnptr`: the probes for a constant `k` in a function of their
//!   own, called through a pointer picked once for the filter's `k`;
//! - `fields-flat`, `salted-table`: the forms a library could ship, over
//!   flat words from a 64-byte boundary with the block taken as an array,
//!   `k` read at run time (one `if` for 6; a static table of the `fnptr`
//!   functions);
//! - `salted-fnptr-flat` (flat words, the `fnptr` pointer) and
//!   `salted-table-lines` (the lines, the static table): `salted-table`
//!   taken apart;
//! - `floor`: one word of the key's line, no test;
//! - `fastbloom`: fastbloom 0.17's `contains`.
//!
//! The setup prints each scheme's false-positive rate over 10⁶
//! non-members.
//!
//! Run with `cargo bench -p approxset-benches --bench blocked_probes --
//! --warm-up-time 1 --measurement-time 3`. What it showed is in `docs/design.md`, "Single
//! lookups, taken apart".

#[allow(dead_code)] // the `Subject` lookups are for the other benches
mod common;
mod window;

use std::hint::black_box;

use approxset::hash::reduce;
use approxset::{Digest, HashKey};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use window::row;

const N: usize = 10_000_000;
const FP: f64 = 0.01;
/// The blocked sizing's `k` at 1 %.
const K: usize = 6;

/// Odd multipliers for the salted scheme (any odd constants serve).
const SALTS: [u64; K] = [
    0x47b6_137b_4497_4d91,
    0x8824_ad5b_a2b7_289d,
    0x7054_95c7_2df1_424b,
    0x9efc_4947_5c6b_fb31,
    0x2e4b_1f3a_5c7d_9e0f,
    0xd1b5_4a32_d192_ed03,
];

/// One 64-byte aligned block.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u64; 8]);

/// A blocked filter of `K` probes, under the fields scheme if `FIELDS`,
/// else the salted one (a constant, so each scheme compiles on its own).
struct Stand<const FIELDS: bool> {
    lines: Vec<Line>,
    /// `K`, read at run time by the rolled shape.
    k: usize,
}

impl<const FIELDS: bool> Stand<FIELDS> {
    /// Where probe `i` of a key with second hash `h2` falls in its block.
    #[inline(always)]
    fn bit(h2: u64, i: usize) -> usize {
        if FIELDS {
            ((h2 >> (9 * i)) & 511) as usize
        } else {
            (h2.wrapping_mul(SALTS[i]) >> 55) as usize
        }
    }

    fn new(bytes: usize) -> Self {
        Stand {
            lines: vec![Line([0; 8]); bytes / 64],
            k: K,
        }
    }

    #[inline(always)]
    fn line(&self, d: Digest) -> &Line {
        &self.lines[reduce(d.h1(), self.lines.len() as u64) as usize]
    }

    fn insert(&mut self, d: Digest) {
        let at = reduce(d.h1(), self.lines.len() as u64) as usize;
        for i in 0..K {
            let bit = Self::bit(d.h2(), i);
            self.lines[at].0[bit >> 6] |= 1 << (bit & 63);
        }
    }

    /// The probes written out for the constant `K`, no branch.
    #[inline(always)]
    fn unrolled(&self, d: Digest) -> bool {
        let line = self.line(d);
        let mut all = true;
        for i in 0..K {
            let bit = Self::bit(d.h2(), i);
            all &= line.0[bit >> 6] >> (bit & 63) & 1 != 0;
        }
        all
    }

    /// The probes over a run-time `k`, no branch on the bits.
    #[inline(always)]
    fn rolled(&self, d: Digest) -> bool {
        let line = self.line(d);
        let mut all = true;
        for i in 0..self.k {
            let bit = Self::bit(d.h2(), i);
            all &= line.0[bit >> 6] >> (bit & 63) & 1 != 0;
        }
        all
    }

    /// One word of the key's line, no test: the floor.
    #[inline(always)]
    fn floor(&self, d: Digest) -> bool {
        self.line(d).0[(d.h2() >> 61) as usize] & 1 != 0
    }
}

/// The fields scheme's probes over flat words from a 64-byte boundary (the
/// library's storage), the block taken as an array first (one bounds
/// check), and `k` read at run time but specialised for 6 by one `if`.
#[inline(always)]
fn fields_flat(words: &[u64], k: usize, d: Digest) -> bool {
    let at = reduce(d.h1(), words.len() as u64 / 8) as usize * 8;
    let block: &[u64; 8] = words[at..at + 8].try_into().expect("8 words");
    let test = |i: usize| {
        let bit = (d.h2() >> (9 * i)) & 511;
        block[(bit >> 6) as usize] >> (bit & 63) & 1 != 0
    };
    if k == 6 {
        let mut all = true;
        for i in 0..6 {
            all &= test(i);
        }
        all
    } else {
        (0..k).fold(true, |all, i| all & test(i))
    }
}

/// The `K` probes of a block under the fields scheme if `FIELDS`, else
/// the salted one, no branch: a function for each `K`, to be called
/// through a pointer.
fn block_probes<const FIELDS: bool, const K: usize>(block: &[u64; 8], h2: u64) -> bool {
    let mut all = true;
    for i in 0..K {
        let bit = Stand::<FIELDS>::bit(h2, i);
        all &= block[bit >> 6] >> (bit & 63) & 1 != 0;
    }
    all
}

/// A pointer to one of [`block_probes`].
type BlockProbes = fn(&[u64; 8], u64) -> bool;

/// The salted probes by `k`, as a static table.
static SALTED_PROBES: [BlockProbes; 7] = [
    block_probes::<false, 0>,
    block_probes::<false, 1>,
    block_probes::<false, 2>,
    block_probes::<false, 3>,
    block_probes::<false, 4>,
    block_probes::<false, 5>,
    block_probes::<false, 6>,
];

/// The salted probes over flat words (as [`fields_flat`]), through
/// `SALTED_PROBES[k]`.
#[inline(always)]
fn salted_table(words: &[u64], k: usize, d: Digest) -> bool {
    let at = reduce(d.h1(), words.len() as u64 / 8) as usize * 8;
    let block: &[u64; 8] = words[at..at + 8].try_into().expect("8 words");
    SALTED_PROBES[k](block, d.h2())
}

/// The filter's bits as flat words from a 64-byte boundary: the buffer and
/// where the words start in it.
fn flat_words<const FIELDS: bool>(filter: &Stand<FIELDS>) -> (Vec<u64>, usize) {
    let len = filter.lines.len() * 8;
    let mut buf = vec![0u64; len + 8];
    let skip = buf.as_ptr().align_offset(64);
    for (chunk, line) in buf[skip..skip + len].chunks_mut(8).zip(&filter.lines) {
        chunk.copy_from_slice(&line.0);
    }
    (buf, skip)
}

fn bench(c: &mut Criterion) {
    let keys = common::keys(N);
    let (members, others) = (&keys.members[..], &keys.others[..]);
    let mut lib: approxset::BlockedBloomFilter = common::bloom(N, FP);
    assert_eq!(lib.hashes() as usize, K, "the blocked sizing's k at 1 %");
    lib.extend(members);
    let hk: HashKey = lib.hash_key();
    let mut salted = Stand::<false>::new(lib.memory_bytes());
    let mut fields = Stand::<true>::new(lib.memory_bytes());
    for k in members {
        salted.insert(hk.digest(k));
        fields.insert(hk.digest(k));
    }
    let rate = |f: &dyn Fn(Digest) -> bool| {
        let q = &others[..1_000_000];
        q.iter().filter(|k| f(hk.digest(*k))).count() as f64 / q.len() as f64
    };
    eprintln!(
        "blocked_probes: measured fp over 10^6 non-members: library {:.5}, salted {:.5}, fields {:.5}",
        rate(&|d| lib.contains_digest(d)),
        rate(&|d| salted.unrolled(d)),
        rate(&|d| fields.unrolled(d)),
    );
    let (fbuf, skip) = flat_words(&fields);
    let fwords = &fbuf[skip..skip + fields.lines.len() * 8];
    let (sbuf, skip) = flat_words(&salted);
    let swords = &sbuf[skip..skip + salted.lines.len() * 8];
    let mut peer = common::fastbloom(N, FP);
    peer.extend(members);

    // The probes for the filter's k, picked once (as a filter could at
    // construction) and called through a pointer the compiler cannot see
    // through.
    assert_eq!(fields.k, 6);
    let fprobes: BlockProbes = black_box(block_probes::<true, 6>);
    let sprobes: BlockProbes = black_box(block_probes::<false, 6>);
    let mut group = window::group(c, "blocked_probes");
    for (name, keys) in [("miss", others), ("hit", members)] {
        let id = |shape: &str| BenchmarkId::new(shape, name);
        row(&mut group, id("library"), keys, |k| lib.contains(k));
        row(&mut group, id("salted-unrolled"), keys, |k| {
            salted.unrolled(hk.digest(k))
        });
        row(&mut group, id("fields-unrolled"), keys, |k| {
            fields.unrolled(hk.digest(k))
        });
        row(&mut group, id("salted-rolled"), keys, |k| {
            salted.rolled(hk.digest(k))
        });
        row(&mut group, id("fields-rolled"), keys, |k| {
            fields.rolled(hk.digest(k))
        });
        row(&mut group, id("fields-flat"), keys, |k| {
            fields_flat(fwords, fields.k, hk.digest(k))
        });
        row(&mut group, id("fields-fnptr"), keys, |k| {
            let d = hk.digest(k);
            fprobes(&fields.line(d).0, d.h2())
        });
        row(&mut group, id("salted-fnptr"), keys, |k| {
            let d = hk.digest(k);
            sprobes(&salted.line(d).0, d.h2())
        });
        row(&mut group, id("salted-table"), keys, |k| {
            salted_table(swords, salted.k, hk.digest(k))
        });
        row(&mut group, id("salted-fnptr-flat"), keys, |k| {
            let d = hk.digest(k);
            let at = reduce(d.h1(), swords.len() as u64 / 8) as usize * 8;
            let block: &[u64; 8] = swords[at..at + 8].try_into().expect("8 words");
            sprobes(block, d.h2())
        });
        row(&mut group, id("salted-table-lines"), keys, |k| {
            let d = hk.digest(k);
            SALTED_PROBES[salted.k](&salted.line(d).0, d.h2())
        });
        row(&mut group, id("floor"), keys, |k| {
            fields.floor(hk.digest(k))
        });
        row(&mut group, id("fastbloom"), keys, |k| peer.contains(k));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
