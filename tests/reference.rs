//! The fast filters against a naive reference written from the definitions:
//! a `Vec<bool>` and positions computed from the closed form of enhanced
//! double hashing, xᵢ = h1 + i·(h2 | 1) + (i³ − i)/6, mixed as format
//! version 2 says (zᵢ = (xᵢ ⊕ xᵢ ≫ 32) · 0x9E3779B97F4A7C15 mod 2⁶⁴) and
//! reduced by ⌊zᵢ·range / 2⁶⁴⌋.

mod common;

use approxset::{BloomFilter, Digest, PartitionedBloomFilter};
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
