//! The fast filters against a naive reference written from the definitions:
//! a `Vec<bool>` and positions computed from the closed form of enhanced
//! double hashing, xᵢ = h1 + i·(h2 | 1) + (i³ − i)/6, mixed as format
//! version 2 says (zᵢ = (xᵢ ⊕ xᵢ ≫ 32) · 0x9E3779B97F4A7C15 mod 2⁶⁴) and
//! reduced by ⌊zᵢ·range / 2⁶⁴⌋.
//!
//! The sliding filter against a naive age-partitioned Bloom filter (a
//! queue of `Vec<bool>` slices, newest first, slice `i` of the storage
//! probed with zᵢ) and against the window it promises: an exact queue of
//! the last `W` keys (or the keys of the last `T` ticks), none of which may
//! ever be missing, under any sequence of inserts, early generation ends
//! and clock moves.

mod common;

use std::collections::VecDeque;

use approxset::{BloomFilter, Digest, PartitionedBloomFilter, SlidingBloomFilter};
use common::proptest_config;
use proptest::prelude::*;

fn probe(d: Digest, i: u64) -> u64 {
    let x = d
        .h1()
        .wrapping_add(i.wrapping_mul(d.h2() | 1))
        .wrapping_add((i * i * i - i) / 6);
    (x ^ (x >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn scale(x: u64, range: u64) -> u64 {
    ((u128::from(x) * u128::from(range)) >> 64) as u64
}

struct Naive {
    bits: Vec<bool>,
    k: u64,
    partitioned: bool,
}

impl Naive {
    fn positions(&self, d: Digest) -> Vec<usize> {
        let m = self.bits.len() as u64;
        (0..self.k)
            .map(|i| {
                if self.partitioned {
                    let slice = m / self.k;
                    (i * slice + scale(probe(d, i), slice)) as usize
                } else {
                    scale(probe(d, i), m) as usize
                }
            })
            .collect()
    }

    fn insert(&mut self, d: Digest) {
        for p in self.positions(d) {
            self.bits[p] = true;
        }
    }

    fn contains(&self, d: Digest) -> bool {
        self.positions(d).into_iter().all(|p| self.bits[p])
    }

    fn ones(&self) -> u64 {
        self.bits.iter().filter(|b| **b).count() as u64
    }
}

fn digests() -> impl Strategy<Value = Vec<Digest>> {
    proptest::collection::vec(
        any::<(u64, u64)>().prop_map(|(a, b)| Digest::new(a, b)),
        0..300,
    )
}

/// The inputs both layouts are checked on: a size in bits, a number of
/// hashes, the digests inserted and more digests queried.
fn inputs() -> impl Strategy<Value = (u64, u32, Vec<Digest>, Vec<Digest>)> {
    (1u64..4000, 1u32..16, digests(), digests())
}

/// Fills `fast` and the naive model with `inserted` and checks they agree
/// on the count of set bits and on every answer.
fn agree<L: approxset::bloom::Layout>(
    mut fast: approxset::bloom::Bloom<L>,
    partitioned: bool,
    k: u32,
    inserted: &[Digest],
    queried: &[Digest],
) -> Result<(), TestCaseError> {
    let mut naive = Naive {
        bits: vec![false; fast.bits() as usize],
        k: u64::from(k),
        partitioned,
    };
    for &d in inserted {
        fast.insert_digest(d).unwrap();
        naive.insert(d);
    }
    prop_assert_eq!(fast.count_ones(), naive.ones());
    for &d in inserted.iter().chain(queried) {
        prop_assert_eq!(fast.contains_digest(d), naive.contains(d));
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(256))]

    #[test]
    fn classic_matches_naive((bits, k, inserted, queried) in inputs()) {
        let fast = BloomFilter::with_num_bits(bits).seed(0).hashes(k).unwrap();
        agree(fast, false, k, &inserted, &queried)?;
    }

    #[test]
    fn partitioned_matches_naive((bits, k, inserted, queried) in inputs()) {
        let fast = PartitionedBloomFilter::with_num_bits(bits).seed(0).hashes(k).unwrap();
        agree(fast, true, k, &inserted, &queried)?;
    }
}

/// The age-partitioned Bloom filter from its definition: `k + l` slices,
/// newest first, each remembering which slice of the storage it is (its
/// probe index); a key sets its bit in the `k` newest; a shift drops the
/// oldest slice and reuses it, cleared, as the newest; a key may be present
/// when some `k` consecutive slices all hold its bit.
struct NaiveSliding {
    slices: VecDeque<(u64, Vec<bool>)>,
    k: usize,
    g: u64,
    in_generation: u64,
    /// Ticks per generation; 0 for a window of inserts.
    interval: u64,
    tick: u64,
}

impl NaiveSliding {
    fn new(f: &SlidingBloomFilter) -> Self {
        let p = f.params();
        NaiveSliding {
            slices: (0..u64::from(p.slices()))
                .map(|i| (i, vec![false; p.slice_bits() as usize]))
                .collect(),
            k: p.hashes() as usize,
            g: p.generation_size(),
            in_generation: 0,
            interval: f.generation_interval().unwrap_or(0),
            tick: 0,
        }
    }

    fn bit(&self, age: usize, d: Digest) -> bool {
        let (index, bits) = &self.slices[age];
        bits[scale(probe(d, *index), bits.len() as u64) as usize]
    }

    fn shift(&mut self) {
        let (index, mut bits) = self.slices.pop_back().unwrap();
        bits.fill(false);
        self.slices.push_front((index, bits));
        self.in_generation = 0;
    }

    fn insert(&mut self, d: Digest) {
        if self.interval == 0 && self.in_generation == self.g {
            self.shift();
        }
        for age in 0..self.k {
            let (index, bits) = &mut self.slices[age];
            let m = bits.len() as u64;
            bits[scale(probe(d, *index), m) as usize] = true;
        }
        self.in_generation += 1;
    }

    fn advance_to(&mut self, tick: u64) {
        let passed = tick / self.interval - self.tick / self.interval;
        self.tick = tick;
        // Past every slice, what is left is the rotation: shift through
        // all of them once, then the remainder.
        let slices = self.slices.len() as u64;
        let shifts = if passed >= slices {
            slices + passed % slices
        } else {
            passed
        };
        for _ in 0..shifts {
            self.shift();
        }
    }

    fn contains(&self, d: Digest) -> bool {
        (0..=self.slices.len() - self.k)
            .any(|start| (start..start + self.k).all(|a| self.bit(a, d)))
    }
}

#[derive(Clone, Debug)]
enum WindowOp {
    /// Insert key `i` of the pool.
    Insert(usize),
    /// End the generation now.
    Advance,
    /// Move the clock (a time window) this many ticks on.
    Tick(u64),
}

fn window_ops() -> impl Strategy<Value = Vec<WindowOp>> {
    proptest::collection::vec(
        prop_oneof![
            12 => (0usize..64).prop_map(WindowOp::Insert),
            1 => Just(WindowOp::Advance),
            2 => (0u64..40).prop_map(WindowOp::Tick),
        ],
        0..400,
    )
}

proptest! {
    #![proptest_config(proptest_config(256))]

    /// A window of inserts: the filter answers every query as the naive
    /// filter, and no key of the last W inserts is ever missing. An early
    /// end of a generation (`advance`) may forget a generation early, so the
    /// exact queue then keeps only what was inserted since.
    #[test]
    fn sliding_matches_naive_and_keeps_its_window(
        window in 1usize..80,
        fp_rate in prop_oneof![Just(0.5), Just(0.1), Just(0.01)],
        seed in any::<u64>(),
        pool in proptest::collection::vec(any::<(u64, u64)>(), 64),
        ops in window_ops(),
        queries in proptest::collection::vec(any::<(u64, u64)>(), 32),
    ) {
        let mut fast = SlidingBloomFilter::with_fp_rate(fp_rate).seed(seed).window(window).unwrap();
        let mut naive = NaiveSliding::new(&fast);
        let mut recent: VecDeque<Digest> = VecDeque::new();
        let queries: Vec<Digest> = queries.into_iter().map(|(a, b)| Digest::new(a, b)).collect();
        for op in &ops {
            match *op {
                WindowOp::Insert(i) => {
                    let d = Digest::new(pool[i].0, pool[i].1);
                    fast.insert_digest(d).unwrap();
                    naive.insert(d);
                    recent.push_back(d);
                    if recent.len() > window {
                        recent.pop_front();
                    }
                }
                WindowOp::Advance => {
                    fast.advance();
                    naive.shift();
                    recent.clear();
                }
                // A window of inserts has no clock: refused, nothing changed.
                WindowOp::Tick(t) => {
                    let before = fast.clone();
                    prop_assert!(fast.advance_to(t).is_err());
                    prop_assert!(fast == before);
                }
            }
            for &d in &recent {
                prop_assert!(fast.contains_digest(d), "a key of the window is missing after {:?}", op);
            }
        }
        for &d in pool.iter().map(|&(a, b)| Digest::new(a, b)).collect::<Vec<_>>().iter().chain(&queries) {
            prop_assert_eq!(fast.contains_digest(d), naive.contains(d));
        }
        prop_assert!(fast.len() >= recent.len());
    }

    /// A time window of `T` ticks: the same against the naive filter, and
    /// no key inserted in the last `T` ticks (the filter's `time_window`,
    /// at least `T`) is ever missing, however many keys a generation takes.
    #[test]
    fn sliding_keeps_its_time_window(
        ticks in 1u64..200,
        window in 1usize..40,
        seed in any::<u64>(),
        pool in proptest::collection::vec(any::<(u64, u64)>(), 64),
        ops in window_ops(),
    ) {
        let mut fast = SlidingBloomFilter::with_fp_rate(0.1)
            .seed(seed)
            .time_window(ticks)
            .window(window)
            .unwrap();
        let span = fast.time_window().unwrap();
        prop_assert!(span >= ticks);
        let mut naive = NaiveSliding::new(&fast);
        // (tick of the insert, key) of the keys the filter must hold.
        let mut recent: VecDeque<(u64, Digest)> = VecDeque::new();
        for op in &ops {
            match *op {
                WindowOp::Insert(i) => {
                    let d = Digest::new(pool[i].0, pool[i].1);
                    fast.insert_digest(d).unwrap();
                    naive.insert(d);
                    recent.push_back((fast.tick(), d));
                }
                WindowOp::Advance => {
                    fast.advance();
                    naive.shift();
                    recent.clear();
                }
                WindowOp::Tick(t) => {
                    let now = fast.tick() + t;
                    fast.advance_to(now).unwrap();
                    naive.advance_to(now);
                    while recent.front().is_some_and(|&(at, _)| now - at >= span) {
                        recent.pop_front();
                    }
                }
            }
            for &(_, d) in &recent {
                prop_assert!(fast.contains_digest(d), "a key of the last {} ticks is missing after {:?}", span, op);
            }
        }
        for &(a, b) in &pool {
            let d = Digest::new(a, b);
            prop_assert_eq!(fast.contains_digest(d), naive.contains(d));
        }
    }
}
