//! Instruction counts, for a machine too noisy to time: runs one operation
//! over fixed keys once, to be counted under valgrind's cachegrind (which
//! counts instructions and simulates branch prediction, the same on every
//! run). No timing, no criterion.
//!
//! ```text
//! cargo bench -p approxset-benches --no-run --bench icount     # prints the binary's path
//! valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
//!     --cachegrind-out-file=/dev/null target/release/deps/icount-… MODE
//! ```
//!
//! Lookup modes (`hash`, `classic-miss`, …) build the classic, blocked and
//! split-block filters and fastbloom 0.17, with the default function
//! (SipHash-1-3-64 widened), with XXH3 and (`-sip128`) with SipHash-1-3-128,
//! over 10⁵ keys at 1 %, then run the operation 10⁶ times; subtract the
//! count of mode `none` (the same setup and loop, no operation) and divide
//! by 10⁶. A second argument `str16` makes the keys 16-byte strings (16 hex
//! digits) instead of random `u64`s (subtract `none str16` then). The
//! key-free modes `read-array` and `split-sip-digest` run over digests
//! computed before the count (subtract `digest-none`). Insert
//! modes fill an empty filter (atomic, or a plain one in `classic-insert`,
//! `blocked-insert` and `fastbloom-insert`) with 10⁵ keys; subtract
//! `insert-none` and divide by 10⁵. The batch modes (`classic-digests`,
//! `classic-digest`, …) answer the non-members' digests batched and in a
//! loop; subtract `batch-none` and divide by 10⁶. The view modes (`classic-owned`, `classic-view`, …)
//! look up the non-members in each flat filter and in a view of its saved
//! bytes; subtract `view-none` and divide by 10⁶. `cargo bench -p
//! approxset-benches --bench icount` alone lists the modes.

#[allow(dead_code)] // the keys and builders only
mod common;

use std::hash::Hash;
use std::hint::black_box;

use approxset::{
    AtomicBloomFilter, BinaryFuseFilter, BlockedBloomFilter, BloomFilter, CountingBloomFilter,
    CuckooFilter, HashFunction, Key, SplitBlockBloomFilter,
};

const N: usize = 100_000;
const FP: f64 = 0.01;
const ROUNDS: usize = 10;

/// The lookup operations: the first `HASHES` alone are modes (over the
/// non-members), each of the others is two, `<op>-miss` and `<op>-hit`.
/// `hash`, `hash-xxh3` and `hash-sip128` are our digest with the default
/// (SipHash-1-3-64 widened), XXH3 and SipHash-1-3-128 (the default before),
/// `fastbloom-hash` and `fastbloom-xxh3-hash` fastbloom's source hash;
/// the `-sip128` filters hash with SipHash-1-3-128, the others' `sip` rows
/// with the default.
const OPS: &[&str] = &[
    "none",
    "hash",
    "fastbloom-hash",
    "hash-xxh3",
    "fastbloom-xxh3-hash",
    "hash-sip128",
    "classic",
    "blocked",
    "fastbloom",
    "split-sip",
    "split-xxh3",
    "classic-xxh3",
    "blocked-xxh3",
    "fastbloom-xxh3",
    "classic-sip128",
    "blocked-sip128",
    "split-sip128",
];
const HASHES: usize = 6;
/// The key-free modes, over the non-members' digests computed before the
/// count (subtract `digest-none`, the same loop with no operation):
/// `split-sip-digest` the split-block lookup from a precomputed digest,
/// `read-array` its floor, one read per key from an array of the
/// split-block filter's size at the digest's `h1`, and `fuse8-digest` and
/// `fuse16-digest` the binary fuse filter's lookup (8 and 16-bit
/// fingerprints, built from the members) from a precomputed digest, and
/// `xorf8-u64` and `xorf16-u64` xorf 0.13's `BinaryFuse8` and
/// `BinaryFuse16` of the members' `h1` from that `u64`.
const KEY_FREE: &[&str] = &[
    "digest-none",
    "read-array",
    "split-sip-digest",
    "fuse8-digest",
    "fuse16-digest",
    "xorf8-u64",
    "xorf16-u64",
];
const INSERTS: &[&str] = &[
    "insert-none",
    "atomic-insert",
    "fastbloom-atomic-insert",
    "atomic-insert-sip128",
    "classic-insert",
    "blocked-insert",
    "fastbloom-insert",
];
/// The batched lookups of the non-members' digests, computed before the
/// count, against their one-key loops ([`batch_lookups`]); subtract
/// `batch-none` and divide by 10⁶: `classic-digests` and `blocked-digests`
/// one `contains_digests` call per round, `classic-digest` and
/// `blocked-digest` the loop of `contains_digest` over the same digests.
const BATCHES: &[&str] = &[
    "batch-none",
    "classic-digest",
    "classic-digests",
    "blocked-digest",
    "blocked-digests",
];
/// Non-member lookups of each flat variant, owned and through a view of its
/// saved bytes (one byte past an 8-byte boundary), in a function of their
/// own ([`view_lookups`]); subtract `view-none`.
const VIEWS: &[&str] = &[
    "view-none",
    "classic-owned",
    "classic-view",
    "blocked-owned",
    "blocked-view",
    "split-owned",
    "split-view",
    "counting-owned",
    "counting-view",
    "cuckoo-owned",
    "cuckoo-view",
    "fuse-owned",
    "fuse-view",
];

/// Every lookup mode's name.
fn lookup_modes() -> Vec<String> {
    let (hashes, filters) = OPS.split_at(HASHES);
    let looked_up = ["miss", "hit"].iter();
    let filters = looked_up.flat_map(|end| filters.iter().map(move |op| format!("{op}-{end}")));
    hashes
        .iter()
        .map(|op| op.to_string())
        .chain(filters)
        .collect()
}

/// The operation (an index into `OPS`) of lookup mode `mode`, and whether
/// it looks up members.
fn lookup(mode: &str) -> Option<(usize, bool)> {
    let (op, hit) = match (mode.strip_suffix("-hit"), mode.strip_suffix("-miss")) {
        (Some(op), _) => (op, true),
        (_, Some(op)) => (op, false),
        _ => (mode, false),
    };
    let at = OPS.iter().position(|&o| o == op)?;
    (lookup_modes().iter().any(|m| m == mode)).then_some((at, hit))
}

fn keys(salt: u64) -> Vec<u64> {
    let mut state = salt;
    (0..N)
        .map(|_| approxset::hash::splitmix64(&mut state))
        .collect()
}

/// The key-free mode `KEY_FREE[op]`, apart from [`lookups`] so that its
/// digests and array leave the code of the key loop alone (with them in
/// it, the `u64` counts of the key modes moved by up to 76 per key).
fn digest_lookups<K: Key>(op: usize, members: &[K], others: &[K]) {
    let mut split_sip: SplitBlockBloomFilter = common::bloom(N, FP);
    for k in members {
        split_sip.insert(k).unwrap();
    }
    let split_key = split_sip.hash_key();
    let digests: Vec<_> = others.iter().map(|k| split_key.digest(k)).collect();
    let words: Vec<u64> = (0..split_sip.memory_bytes() as u64 / 8).collect();
    let at = |h: u64| words[approxset::hash::reduce(h, words.len() as u64) as usize];
    let fuse = |fp: f64| {
        approxset::BinaryFuseFilter::with_fp_rate(fp)
            .hash_key(split_key)
            .build(members)
            .unwrap()
    };
    let (fuse8, fuse16) = (fuse(FP), fuse(1e-4));
    let raw: Vec<u64> = members.iter().map(|k| split_key.digest(k).h1()).collect();
    let xorf8 = xorf::BinaryFuse8::try_from(&raw).unwrap();
    let xorf16 = xorf::BinaryFuse16::try_from(&raw).unwrap();
    for _ in 0..ROUNDS {
        for &d in &digests {
            match black_box(op) {
                0 => drop(black_box(d)),
                1 => drop(black_box(at(d.h1()))),
                2 => drop(black_box(split_sip.contains_digest(d))),
                3 => drop(black_box(fuse8.contains_digest(d))),
                4 => drop(black_box(fuse16.contains_digest(d))),
                5 => drop(black_box(xorf::Filter::contains(&xorf8, &d.h1()))),
                _ => drop(black_box(xorf::Filter::contains(&xorf16, &d.h1()))),
            }
        }
    }
}

fn lookups<K: Key + Hash>(op: usize, hit: bool, members: &[K], others: &[K]) {
    use HashFunction::{SipHash13, Xxh3};
    let mut classic: BloomFilter = common::bloom(N, FP);
    let mut classic_128: BloomFilter = common::bloom_hashed(N, FP, SipHash13);
    let mut blocked_128: BlockedBloomFilter = common::bloom_hashed(N, FP, SipHash13);
    let mut split_128: SplitBlockBloomFilter = common::bloom_hashed(N, FP, SipHash13);
    let mut blocked: BlockedBloomFilter = common::bloom(N, FP);
    let mut split_sip: SplitBlockBloomFilter = common::bloom(N, FP);
    let mut split_xxh3: SplitBlockBloomFilter = common::bloom_hashed(N, FP, Xxh3);
    let mut classic_xxh3: BloomFilter = common::bloom_hashed(N, FP, Xxh3);
    let mut blocked_xxh3: BlockedBloomFilter = common::bloom_hashed(N, FP, Xxh3);
    let mut peer = common::fastbloom(N, FP);
    let mut peer_xxh3 = common::fastbloom_xxh3(N, FP);
    for k in members {
        classic.insert(k).unwrap();
        blocked.insert(k).unwrap();
        split_sip.insert(k).unwrap();
        split_xxh3.insert(k).unwrap();
        classic_xxh3.insert(k).unwrap();
        blocked_xxh3.insert(k).unwrap();
        peer.insert(k);
        peer_xxh3.insert(k);
        classic_128.insert(k).unwrap();
        blocked_128.insert(k).unwrap();
        split_128.insert(k).unwrap();
    }
    let queries = if hit { members } else { others };
    let key_128 = classic_128.hash_key();
    let (key, key_xxh3) = (classic.hash_key(), classic_xxh3.hash_key());
    for _ in 0..ROUNDS {
        for k in queries {
            // One predictable branch per key, the same in every mode.
            match black_box(op) {
                0 => drop(black_box(k)),
                1 => drop(black_box(key.digest(k))),
                2 => drop(black_box(peer.source_hash(k))),
                3 => drop(black_box(key_xxh3.digest(k))),
                4 => drop(black_box(peer_xxh3.source_hash(k))),
                5 => drop(black_box(key_128.digest(k))),
                6 => drop(black_box(classic.contains(k))),
                7 => drop(black_box(blocked.contains(k))),
                8 => drop(black_box(peer.contains(k))),
                9 => drop(black_box(split_sip.contains(k))),
                10 => drop(black_box(split_xxh3.contains(k))),
                11 => drop(black_box(classic_xxh3.contains(k))),
                12 => drop(black_box(blocked_xxh3.contains(k))),
                13 => drop(black_box(peer_xxh3.contains(k))),
                14 => drop(black_box(classic_128.contains(k))),
                15 => drop(black_box(blocked_128.contains(k))),
                _ => drop(black_box(split_128.contains(k))),
            }
        }
    }
}

/// `bytes` copied to start one byte past an 8-byte boundary.
fn unaligned(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 16];
    let at = (buf.as_ptr() as usize).wrapping_neg() % 8 + 1;
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

/// The mode `VIEWS[op]` over the non-members `others`.
fn view_lookups(op: usize, members: &[u64], others: &[u64]) {
    let mut classic: BloomFilter = common::bloom(N, FP);
    let mut blocked: BlockedBloomFilter = common::bloom(N, FP);
    let mut split: SplitBlockBloomFilter = common::bloom(N, FP);
    let mut counting: CountingBloomFilter = common::bloom(N, FP);
    let mut cuckoo = CuckooFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(N)
        .unwrap();
    for k in members {
        classic.insert(k).unwrap();
        blocked.insert(k).unwrap();
        split.insert(k).unwrap();
        counting.insert(k).unwrap();
        cuckoo.insert(k).unwrap();
    }
    let saved = [
        classic.to_bytes().unwrap(),
        blocked.to_bytes().unwrap(),
        split.to_bytes().unwrap(),
        counting.to_bytes().unwrap(),
        cuckoo.to_bytes().unwrap(),
        BinaryFuseFilter::with_fp_rate(FP)
            .seed(1)
            .build(members)
            .unwrap()
            .to_bytes()
            .unwrap(),
    ]
    .map(|b| unaligned(&b));
    let bytes = |i: usize| {
        let (buf, at) = &saved[i];
        &buf[*at..*at + buf.len() - 16]
    };
    let classic_view = BloomFilter::view(bytes(0)).unwrap();
    let blocked_view = BlockedBloomFilter::view(bytes(1)).unwrap();
    let split_view = SplitBlockBloomFilter::view(bytes(2)).unwrap();
    let counting_view = CountingBloomFilter::view(bytes(3)).unwrap();
    let cuckoo_view = CuckooFilter::view(bytes(4)).unwrap();
    let fuse = BinaryFuseFilter::from_bytes(bytes(5)).unwrap();
    let fuse_view = BinaryFuseFilter::view(bytes(5)).unwrap();
    for _ in 0..ROUNDS {
        for k in others {
            match black_box(op) {
                0 => drop(black_box(k)),
                1 => drop(black_box(classic.contains(k))),
                2 => drop(black_box(classic_view.contains(k))),
                3 => drop(black_box(blocked.contains(k))),
                4 => drop(black_box(blocked_view.contains(k))),
                5 => drop(black_box(split.contains(k))),
                6 => drop(black_box(split_view.contains(k))),
                7 => drop(black_box(counting.contains(k))),
                8 => drop(black_box(counting_view.contains(k))),
                9 => drop(black_box(cuckoo.contains(k))),
                10 => drop(black_box(cuckoo_view.contains(k))),
                11 => drop(black_box(fuse.contains(k))),
                _ => drop(black_box(fuse_view.contains(k))),
            }
        }
    }
}

/// The mode `BATCHES[op]` over the non-members `others`.
fn batch_lookups(op: usize, members: &[u64], others: &[u64]) {
    let mut classic: BloomFilter = common::bloom(N, FP);
    let mut blocked: BlockedBloomFilter = common::bloom(N, FP);
    for k in members {
        classic.insert(k).unwrap();
        blocked.insert(k).unwrap();
    }
    let digests: Vec<_> = others
        .iter()
        .map(|k| classic.hash_key().digest(k))
        .collect();
    let mut out = Vec::with_capacity(N);
    for _ in 0..ROUNDS {
        match black_box(op) {
            0 => drop(black_box(&digests)),
            1 => out.extend(digests.iter().map(|&d| classic.contains_digest(d))),
            2 => classic.contains_digests(&digests, &mut out),
            3 => out.extend(digests.iter().map(|&d| blocked.contains_digest(d))),
            _ => blocked.contains_digests(&digests, &mut out),
        }
        black_box(&out);
        out.clear();
    }
}

fn inserts(mode: usize) {
    let members = keys(1);
    let mut classic: BloomFilter = common::bloom(N, FP);
    let mut blocked: BlockedBloomFilter = common::bloom(N, FP);
    let mut fast = common::fastbloom(N, FP);
    let ours = AtomicBloomFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(N)
        .unwrap();
    let peer = fastbloom::AtomicBloomFilter::with_false_pos(FP)
        .seed(&1)
        .expected_items(N);
    let ours_128 = AtomicBloomFilter::with_fp_rate(FP)
        .seed(1)
        .hash(HashFunction::SipHash13)
        .expected_items(N)
        .unwrap();
    for k in &members {
        match black_box(mode) {
            0 => drop(black_box(k)),
            1 => drop(black_box(ours.insert_shared(k))),
            2 => drop(black_box(peer.insert(k))),
            3 => drop(black_box(ours_128.insert_shared(k))),
            4 => drop(black_box(classic.insert(k))),
            5 => drop(black_box(blocked.insert(k))),
            _ => drop(black_box(fast.insert(k))),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let str16 = args.iter().any(|a| a == "str16");
    let find = |modes: &[&str]| args.iter().find_map(|a| modes.iter().position(|m| m == a));
    if let Some((op, hit)) = args.iter().find_map(|a| lookup(a)) {
        let (members, others) = (keys(1), keys(2));
        if str16 {
            let strs =
                |keys: &[u64]| -> Vec<String> { keys.iter().map(|&k| common::str16(k)).collect() };
            lookups(op, hit, &strs(&members), &strs(&others));
        } else {
            lookups(op, hit, &members, &others);
        }
    } else if let Some(op) = find(KEY_FREE) {
        digest_lookups(op, &keys(1), &keys(2));
    } else if let Some(mode) = find(INSERTS) {
        inserts(mode);
    } else if let Some(op) = find(VIEWS) {
        view_lookups(op, &keys(1), &keys(2));
    } else if let Some(op) = find(BATCHES) {
        batch_lookups(op, &keys(1), &keys(2));
    } else {
        println!(
            "icount: give one mode (and `str16` for string keys) to count under cachegrind: {} {} {} {} {}",
            lookup_modes().join(" "),
            KEY_FREE.join(" "),
            INSERTS.join(" "),
            VIEWS.join(" "),
            BATCHES.join(" ")
        );
    }
}
