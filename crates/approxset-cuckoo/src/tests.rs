//! Unit tests of the filter, with access to its internals: the stash,
//! duplicates, parameters, and ([`model`]) model-based property tests
//! against an exact multiset, each over fingerprint widths from 4 to 32
//! bits. The bucket
//! arithmetic and the sizing rule are tested in their modules.

use std::collections::HashMap;

use approxset_core::hash::splitmix64;
use approxset_core::{
    ApproxSet, Count, Deletable, DeletableExt, Digest, Error, HashKey, Membership,
};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};

use crate::{CuckooFilter, MIN_FP_RATE};

/// The fingerprint widths every behavioural test runs over: the narrowest
/// and widest, the old 8/12/16, and widths whose buckets straddle words in
/// a `u64` (7, 10, 13) and in a `u128` (23).
pub(crate) const TEST_WIDTHS: [u32; 10] = [4, 7, 8, 10, 12, 13, 16, 23, 24, 32];

/// SplitMix64 of `x`: distinct, well-mixed test keys.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    splitmix64(&mut x)
}

fn digest(i: u64) -> Digest {
    Digest::new(splitmix(2 * i), splitmix(2 * i + 1))
}

fn filter(items: usize, bits: u32, seed: u64) -> CuckooFilter {
    CuckooFilter::with_fp_rate(0.5)
        .fingerprint_bits(bits)
        .seed(seed)
        .expected_items(items)
        .unwrap()
}

#[test]
fn stash_keeps_the_victim_and_refuses_further_inserts() {
    for bits in TEST_WIDTHS {
        // Sized for 5 items: 2 buckets, 8 slots, every item in buckets 0, 1.
        let mut f = filter(5, bits, 3);
        assert_eq!(f.buckets(), 2);
        for i in 0..8 {
            assert!(f.insert_digest(digest(i)).is_ok());
            assert!(!f.stash_taken());
        }
        // The ninth runs out of kicks: stashed, but the insert succeeds.
        assert!(f.insert_digest(digest(8)).is_ok());
        assert!(f.stash_taken());
        assert_eq!(f.len(), 9);
        f.check_invariants();
        assert!(
            (0..9).all(|i| f.contains_digest(digest(i))),
            "bits = {bits}"
        );
        // Now full: an error that changes nothing.
        let before = f.clone();
        assert_eq!(f.insert_digest(digest(9)), Err(Error::Full { items: 9 }));
        assert_eq!(f, before);
        assert!(f.insert(&"anything").is_err());
        assert!(f.try_extend([1, 2, 3]).is_err());
        assert_eq!(f, before);
        // Removing an item from the table makes room: the victim moves back
        // into the table.
        let victim = f.stashed_fingerprint().unwrap();
        let gone = (0..9)
            .find(|&i| f.locate_for_test(digest(i)).0 != victim)
            .unwrap();
        assert!(f.remove_digest(digest(gone)).is_removed());
        assert!(!f.stash_taken());
        assert_eq!(f.len(), 8);
        f.check_invariants();
        assert!(
            (0..9)
                .filter(|&i| i != gone)
                .all(|i| f.contains_digest(digest(i)))
        );
        // And inserts work again.
        assert!(f.insert_digest(digest(9)).is_ok());
        assert!(
            (0..10)
                .filter(|&i| i != gone)
                .all(|i| f.contains_digest(digest(i)))
        );
    }
}

#[test]
fn removing_the_stashed_item_frees_the_stash() {
    for bits in TEST_WIDTHS {
        let mut f = filter(5, bits, 4);
        for i in 0..9 {
            f.insert_digest(digest(i)).unwrap();
        }
        assert!(f.stash_taken());
        // Remove all nine: whichever is stashed, every removal succeeds.
        for i in 0..9 {
            assert!(
                f.remove_digest(digest(i)).is_removed(),
                "{bits} bits: item {i}"
            );
            f.check_invariants();
        }
        assert!(f.is_empty() && !f.stash_taken());
        assert!((0..9).all(|i| !f.contains_digest(digest(i))));
    }
}

#[test]
fn duplicates_are_counted_up_to_eight() {
    for bits in TEST_WIDTHS {
        let mut f = filter(1000, bits, 5);
        let x = "duplicate";
        assert_eq!(f.insert(x), Ok(true));
        assert_eq!(f.insert(x), Ok(false));
        assert!(f.remove(x).is_removed());
        assert!(f.contains(x), "one copy left");
        assert!(f.remove(x).is_removed());
        assert!(!f.contains(x), "nothing else is stored");
        assert!(!f.remove(x).is_removed());
        assert!(f.is_empty());

        for copy in 0..8 {
            assert_eq!(f.insert(x), Ok(copy == 0));
        }
        f.insert(&"other").unwrap();
        let before = f.clone();
        assert_eq!(f.insert(x), Err(Error::TooManyCopies { limit: 8 }));
        assert_eq!(f, before);
        // The filter is not otherwise full.
        assert!(f.insert(&"yet another").is_ok());
        for _ in 0..8 {
            assert!(f.remove(x).is_removed());
            f.check_invariants();
        }
        assert!(!f.remove(x).is_removed(), "{bits} bits");
        assert!(f.contains(&"other") && f.contains(&"yet another"));
    }
}

#[test]
fn count_and_insert_if_absent() {
    for bits in TEST_WIDTHS {
        let mut f = filter(1000, bits, 8);
        assert_eq!(f.count("k"), Count::AtMost(0));
        for copy in 1..=8 {
            f.insert("k").unwrap();
            assert_eq!(f.count("k"), Count::AtMost(copy), "{bits} bits");
        }
        // insert_if_absent never adds a copy of a held key: no TooManyCopies.
        assert_eq!(f.insert_if_absent("k"), Ok(false));
        assert_eq!(f.count("k"), Count::AtMost(8));
        assert_eq!(f.insert_if_absent("new"), Ok(true));
        assert_eq!(f.insert_if_absent("new"), Ok(false));
        assert_eq!((f.count("new"), f.len()), (Count::AtMost(1), 9));
    }
}

#[test]
fn insert_reports_new_items() {
    let mut f = filter(100, 16, 6);
    assert_eq!(f.insert(&1u32), Ok(true));
    assert_eq!(f.insert(&1u32), Ok(false));
    assert_eq!(f.insert_bytes(b"x"), Ok(true));
    assert!(f.contains_bytes(b"x"));
    assert!(f.remove_bytes(b"x").is_removed());
    assert!(!f.contains_bytes(b"x"));
    assert!(!f.remove_bytes(b"x").is_removed());
    assert_eq!(f.len(), 2);
}

#[test]
fn clear_empties_and_resets() {
    let build = || filter(1000, 8, 7);
    let mut f = build();
    for i in 0..900u32 {
        f.insert(&i).unwrap();
    }
    f.clear();
    assert!(f.is_empty());
    assert_eq!(f.load_factor(), 0.0);
    assert!((0..900u32).all(|i| !f.contains(&i)));
    assert_eq!(f, build());
    f.check_invariants();
}

#[test]
fn accessors() {
    let f = CuckooFilter::with_fp_rate(0.01)
        .seed(1)
        .expected_items(1_000_000)
        .unwrap();
    assert_eq!(f.fingerprint_bits(), 10);
    assert_eq!(f.buckets(), 265_966);
    assert_eq!(f.slots(), 4 * 265_966);
    assert_eq!(f.capacity(), 1_000_000);
    assert_eq!(f.fp_rate(), 0.01);
    assert_eq!(f.estimated_fp_rate(), 0.0);
    assert_eq!(f.hash_key(), HashKey::from_seed(1));
    // 10 bits per slot, rounded up to a word.
    assert_eq!(f.memory_bytes(), (4 * 265_966 * 10usize).div_ceil(64) * 8);
    assert_eq!(Membership::variant(&f), "cuckoo");
    assert_eq!(Membership::memory_bytes(&f), f.memory_bytes());
    assert_eq!(Membership::capacity(&f), 1_000_000);
    assert_eq!(Membership::fp_rate(&f), 0.01);
}

#[test]
fn the_width_is_the_least_that_meets_the_target() {
    // At a million items (load 0.94): 2b·0.94/(2^f − 1) ≤ p, so f is about
    // log2(7.52/p) rounded up, one bit per halving of p.
    for (p, bits) in [
        (0.5, 4),
        (0.39, 5),
        (0.2, 6),
        (0.1, 7),
        (0.03, 8),
        (0.01, 10),
        (0.001, 13),
        (1e-4, 17),
        (1e-6, 23),
        (1e-9, 33),
    ] {
        match CuckooFilter::plan(1_000_000, p) {
            Ok(plan) => assert_eq!(plan.fingerprint_bits(), bits, "p = {p}"),
            Err(_) => assert_eq!(bits, 33, "p = {p}"),
        }
    }
    // Everywhere: the chosen width meets the target at the planned load
    // and one bit fewer would not; the builder agrees with the plan.
    for n in [1, 5, 9, 10, 100, 1000, 12_345, 1_000_000, 1 << 40] {
        let mut p = 0.9;
        while p >= MIN_FP_RATE {
            let Ok(plan) = CuckooFilter::plan(n, p) else {
                // Only 9 items in 2 buckets (load 9/8) can miss a target at
                // 32 bits.
                assert!(n == 9 && p < 9.0 / 4_294_967_295.0, "n = {n}, p = {p}");
                p *= 0.77;
                continue;
            };
            let f = plan.fingerprint_bits();
            let load = plan.load();
            assert!((4..=32).contains(&f));
            assert!(plan.expected_fp() <= p, "n = {n}, p = {p}: {f} bits");
            assert!(
                f == 4 || crate::sizing::checked_plan(n, p, f - 1).is_err(),
                "n = {n}, p = {p}: {f} bits, one fewer would do"
            );
            assert!(load <= if f == 4 { 0.9 } else { 0.94 } || n <= 9);
            if n <= 100_000 {
                let filter = CuckooFilter::with_fp_rate(p).expected_items(n).unwrap();
                assert_eq!(filter.fingerprint_bits(), f, "n = {n}, p = {p}");
                assert_eq!(filter.buckets() as u128, plan.buckets());
            }
            p *= 0.77;
        }
    }
}

#[test]
fn rates_down_to_what_32_bits_reach_are_accepted() {
    // MIN_FP_RATE = 2b/2^32 ≈ 1.86e-9: every size from 10 items up takes
    // it with 32-bit fingerprints (at a load of at most 94 %).
    assert!((MIN_FP_RATE - 1.862_645_149e-9).abs() < 1e-17);
    for n in [10, 100, 12_345, 1_000_000] {
        for p in [2e-9, MIN_FP_RATE] {
            let f = CuckooFilter::with_fp_rate(p)
                .seed(1)
                .expected_items(n)
                .unwrap();
            // 32 bits, or 30 or 31 in a table of 10 items (load 0.21).
            let least = if n == 10 { 30 } else { 32 };
            assert!(f.fingerprint_bits() >= least, "n = {n}, p = {p}");
            assert!(CuckooFilter::plan(n, p).unwrap().expected_fp() <= p);
        }
        // 31 bits give about twice the rate.
        assert!(CuckooFilter::new(n, 4.5e-9).unwrap().fingerprint_bits() <= 31);
    }
    // Tables of up to 8 items hold at most one fingerprint per slot; a
    // table of nine (two buckets and the stash) reaches 9/(2^32 − 1).
    for n in 1..=8 {
        assert!(CuckooFilter::new(n, MIN_FP_RATE).is_ok(), "n = {n}");
    }
    assert!(CuckooFilter::new(9, MIN_FP_RATE).is_err());
    assert!(CuckooFilter::new(9, 2.1e-9).is_ok());
    // Below the minimum: refused at every size, saying why.
    for n in [1, 10, 1_000_000] {
        let err = CuckooFilter::new(n, MIN_FP_RATE * 0.999).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidParameter {
                    name: "fp_rate",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("32-bit"), "{err}");
    }
}

#[test]
fn every_width_takes_its_bits() {
    for n in [10, 1000, 12_345, 1_000_000] {
        let slots = filter(n, 12, 1).slots();
        for bits in 4..=32 {
            let f = filter(n, bits, 1);
            // The same bucket count at every width but 4 (sized at 90 %).
            if bits > 4 {
                assert_eq!(f.slots(), slots, "n = {n}");
            }
            let slots = f.slots();
            assert_eq!(
                f.memory_bytes(),
                (slots * bits as usize).div_ceil(64) * 8,
                "n = {n}, {bits} bits"
            );
        }
    }
}

#[test]
fn bad_parameters_are_errors() {
    let name = |r: Result<CuckooFilter, Error>| match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    for p in [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(name(CuckooFilter::new(10, p)), "fp_rate", "p = {p}");
    }
    assert_eq!(name(CuckooFilter::new(0, 0.01)), "expected_items");
    for bits in [0, 1, 2, 3, 33, 64, u32::MAX] {
        let r = CuckooFilter::with_fp_rate(0.5)
            .fingerprint_bits(bits)
            .expected_items(10);
        let err = r.unwrap_err();
        assert!(err.to_string().contains("4..=32"), "{err}");
        assert_eq!(name(Err(err)), "fingerprint_bits", "bits = {bits}");
    }
    // Every width in 4..=32 is accepted when it meets the target.
    for bits in 4..=32 {
        let f = CuckooFilter::with_fp_rate(0.5)
            .fingerprint_bits(bits)
            .expected_items(1000)
            .unwrap();
        assert_eq!(f.fingerprint_bits(), bits);
    }
    // Too few bits for the target: 9 bits give 1.47 % at 1000 items.
    let r = CuckooFilter::with_fp_rate(0.01)
        .fingerprint_bits(9)
        .expected_items(1000);
    assert_eq!(name(r), "fingerprint_bits");
    assert!(
        CuckooFilter::with_fp_rate(0.01)
            .fingerprint_bits(10)
            .expected_items(1000)
            .is_ok()
    );
    // Memory limits.
    let r = CuckooFilter::with_fp_rate(0.01)
        .max_bytes(1000)
        .expected_items(10_000);
    assert!(
        matches!(r, Err(Error::TooLarge { limit: 1000, .. })),
        "{r:?}"
    );
    assert!(
        CuckooFilter::with_fp_rate(0.01)
            .max_bytes(20_000)
            .expected_items(10_000)
            .is_ok()
    );
    // Past the address space: refused before any allocation.
    for (n, p) in [
        (usize::MAX, 0.01),
        (usize::MAX / 2, 0.01),
        (usize::MAX / 2, 0.001),
        (usize::MAX / 4, 1e-8),
    ] {
        let r = CuckooFilter::new(n, p);
        assert!(matches!(r, Err(Error::TooLarge { .. })), "n = {n}: {r:?}");
    }
}

#[test]
fn debug_is_short_and_hides_the_key() {
    let mut f = CuckooFilter::with_fp_rate(0.01)
        .hash_key(HashKey::from_parts(0xdead_beef, 0xfeed))
        .expected_items(100_000)
        .unwrap();
    f.insert("a").unwrap();
    let s = format!("{f:?}");
    assert!(
        s.starts_with("CuckooFilter {") && s.contains("len: 1"),
        "{s}"
    );
    assert!(!s.to_lowercase().contains("deadbeef") && !s.contains("3735928559"));
    assert!(s.len() < 300, "{s}");
    let b = format!("{:?}", CuckooFilter::with_fp_rate(0.01).seed(3));
    assert!(b.contains("CuckooBuilder") && b.contains("<secret>"), "{b}");
}

#[test]
fn usable_as_a_shared_trait_object() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CuckooFilter>();
    let mut f: Box<dyn Deletable + Send + Sync> = Box::new(
        CuckooFilter::with_fp_rate(0.01)
            .seed(8)
            .expected_items(100)
            .unwrap(),
    );
    f.insert("alice").unwrap();
    f.insert("alice").unwrap();
    assert!(f.contains("alice"));
    assert!(f.remove("alice").is_removed());
    assert!(f.contains("alice"));
    assert!(DeletableExt::remove(&mut f, "alice").is_removed());
    assert!(!f.contains("alice"));
    assert_eq!(f.variant(), "cuckoo");
    assert!(f.is_empty());
}

#[test]
fn try_extend_stops_at_the_first_error() {
    let mut f = filter(100, 12, 9);
    f.try_extend(0..50u32).unwrap();
    assert!((0..50u32).all(|i| f.contains(&i)));
    assert!(f.try_extend(50..90u32).is_ok());
    assert_eq!(f.len(), 90);
    // A tiny filter: try_extend stops at the first error; what went in stays.
    let mut g = filter(5, 12, 9);
    let err = g.try_extend(0..100u32).unwrap_err();
    assert_eq!(err, Error::Full { items: 9 });
    assert_eq!(g.len(), 9);
    assert!((0..9u32).all(|i| g.contains(&i)));
    g.check_invariants();
}

#[test]
fn equality_compares_contents() {
    let a = filter(100, 8, 1);
    let mut b = a.clone();
    assert_eq!(a, b);
    b.insert(&1u8).unwrap();
    assert_ne!(a, b);
    assert!(b.remove(&1u8).is_removed());
    assert_eq!(a, b, "same slots, same len");
    assert_ne!(a, filter(100, 8, 2), "different keys");
    assert_ne!(a, filter(100, 12, 1), "different widths");
}

mod model;
