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
//! Lookup modes (`hash`, `classic-miss`, …) build the classic and blocked
//! filters and fastbloom 0.17 over 10⁵ keys at 1 %, then run the operation
//! 10⁶ times; subtract the count of mode `none` (the same setup and loop,
//! no operation) and divide by 10⁶. Insert modes fill an empty atomic
//! filter with 10⁵ keys; subtract `insert-none` and divide by 10⁵.
//! `cargo bench -p approxset-benches --bench icount` alone lists the modes.

use std::hint::black_box;

use approxset::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};

const N: usize = 100_000;
const FP: f64 = 0.01;
const ROUNDS: usize = 10;

const LOOKUPS: &[&str] = &[
    "none",
    "hash",
    "fastbloom-hash",
    "classic-miss",
    "blocked-miss",
    "fastbloom-miss",
    "classic-hit",
    "blocked-hit",
    "fastbloom-hit",
];
const INSERTS: &[&str] = &["insert-none", "atomic-insert", "fastbloom-atomic-insert"];

fn keys(salt: u64) -> Vec<u64> {
    let mut state = salt;
    (0..N)
        .map(|_| approxset::hash::splitmix64(&mut state))
        .collect()
}

fn lookups(mode: usize) {
    let (members, others) = (keys(1), keys(2));
    let mut classic = BloomFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(N)
        .unwrap();
    let mut blocked = BlockedBloomFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(N)
        .unwrap();
    let mut peer = fastbloom::BloomFilter::with_false_pos(FP)
        .seed(&1)
        .expected_items(N);
    for k in &members {
        classic.insert(k).unwrap();
        blocked.insert(k).unwrap();
        peer.insert(k);
    }
    let queries = if LOOKUPS[mode].ends_with("hit") {
        &members
    } else {
        &others
    };
    let key = classic.hash_key();
    for _ in 0..ROUNDS {
        for k in queries {
            // One predictable branch per key, the same in every mode.
            match black_box(mode) {
                0 => drop(black_box(k)),
                1 => drop(black_box(key.digest(k))),
                2 => drop(black_box(peer.source_hash(k))),
                3 | 6 => drop(black_box(classic.contains(k))),
                4 | 7 => drop(black_box(blocked.contains(k))),
                _ => drop(black_box(peer.contains(k))),
            }
        }
    }
}

fn inserts(mode: usize) {
    let members = keys(1);
    let ours = AtomicBloomFilter::with_fp_rate(FP)
        .seed(1)
        .expected_items(N)
        .unwrap();
    let peer = fastbloom::AtomicBloomFilter::with_false_pos(FP)
        .seed(&1)
        .expected_items(N);
    for k in &members {
        match black_box(mode) {
            0 => drop(black_box(k)),
            1 => drop(black_box(ours.insert_shared(k))),
            _ => drop(black_box(peer.insert(k))),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let find = |modes: &[&str]| args.iter().find_map(|a| modes.iter().position(|m| m == a));
    if let Some(mode) = find(LOOKUPS) {
        lookups(mode);
    } else if let Some(mode) = find(INSERTS) {
        inserts(mode);
    } else {
        println!(
            "icount: give one mode to count under cachegrind: {} {}",
            LOOKUPS.join(" "),
            INSERTS.join(" ")
        );
    }
}
