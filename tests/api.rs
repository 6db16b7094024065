//! The API rules of `docs/design.md` ("API rules"), checked for every
//! filter type: an inherent method named as a trait method has its
//! signature; `len` means one thing; overfill, union, intersection and
//! downcasting work through `dyn ApproxSet`; generic code over the traits
//! needs only the prelude.

use approxset::{
    ApproxSet, AtomicBloomFilter, BlockedBloomFilter, BloomFilter, Count, CountingBloomFilter,
    CuckooFilter, Deletable, Digest, Error, HashFunction, HashKey, PartitionedBloomFilter, Removal,
    Result, ScalableBloomFilter, SplitBlockBloomFilter, Value, Variant,
};

/// Pins the inherent methods of `$ty` that share a trait method's name to
/// the trait method's signature: each line fails to compile otherwise.
macro_rules! same_signatures {
    ($ty:ty) => {{
        type T = $ty;
        let _: fn(&mut T, Digest) -> Result<bool> = T::insert_digest;
        let _: fn(&T, Digest) -> bool = T::contains_digest;
        let _: fn(&mut T, &str) -> Result<bool> = T::insert::<str>;
        let _: fn(&mut T, &[u8]) -> Result<bool> = T::insert_bytes;
        let _: fn(&mut T, &str) -> Result<bool> = T::insert_if_absent::<str>;
        let _: fn(&T, &str) -> bool = T::contains::<str>;
        let _: fn(&T, &[u8]) -> bool = T::contains_bytes;
        let _: fn(&T) -> HashKey = T::hash_key;
        let _: fn(&T) -> usize = T::len;
        let _: fn(&T) -> bool = T::is_empty;
        let _: fn(&T) -> usize = T::capacity;
        let _: fn(&T) -> f64 = T::fp_rate;
        let _: fn(&T) -> f64 = T::estimated_fp_rate;
        let _: fn(&T) -> f64 = T::estimated_items;
        let _: fn(&T) -> usize = T::memory_bytes;
        let _: fn(&mut T) = T::clear;
        let _: fn(&T) -> Vec<(&'static str, Value)> = T::parameters;
        let _: fn(&T) -> Result<Vec<u8>> = T::to_bytes;
        let _: fn(&T, Vec<u8>) -> Result<()> = T::write_to::<Vec<u8>>;
    }};
    ($ty:ty, bloom) => {{
        same_signatures!($ty);
        type T = $ty;
        let _: fn(&T, &[Digest], &mut Vec<bool>) = T::contains_digests;
        let _: fn(&mut T, &[Digest]) -> Result<()> = T::insert_digests;
        let _: fn(&mut T, &dyn ApproxSet) -> Result<()> = T::union_dyn;
        let _: fn(&mut T, &dyn ApproxSet) -> Result<()> = T::intersect_dyn;
    }};
    ($ty:ty, remove) => {{
        same_signatures!($ty);
        type T = $ty;
        let _: fn(&mut T, Digest) -> Removal = T::remove_digest;
        let _: fn(&mut T, &str) -> Removal = T::remove::<str>;
        let _: fn(&mut T, &[u8]) -> Removal = T::remove_bytes;
        let _: fn(&T, Digest) -> Count = T::count_digest;
        let _: fn(&T, &str) -> Count = T::count::<str>;
    }};
}

#[test]
fn inherent_methods_have_the_trait_signatures() {
    same_signatures!(BloomFilter, bloom);
    same_signatures!(PartitionedBloomFilter, bloom);
    same_signatures!(BlockedBloomFilter, bloom);
    same_signatures!(SplitBlockBloomFilter, bloom);
    same_signatures!(AtomicBloomFilter, bloom);
    same_signatures!(CountingBloomFilter, bloom);
    same_signatures!(CountingBloomFilter, remove);
    same_signatures!(ScalableBloomFilter);
    same_signatures!(CuckooFilter, remove);
}

/// `?` on a concrete filter's insert and `to_bytes`, as on `dyn ApproxSet`
/// (neither compiled on the Bloom filters before: they returned `bool` and
/// `Vec<u8>`).
#[test]
fn question_mark_works_on_every_concrete_filter() -> Result<()> {
    let mut classic = BloomFilter::with_fp_rate(0.01)
        .seed(1)
        .expected_items(100)?;
    assert!(classic.insert("alice")?);
    classic.insert_bytes(b"bob")?;
    let bytes: Vec<u8> = classic.to_bytes()?;
    assert_eq!(BloomFilter::from_bytes(&bytes)?, classic);
    let atomic = AtomicBloomFilter::with_fp_rate(0.01)
        .seed(1)
        .expected_items(100)?;
    atomic.insert_shared("carol");
    assert_eq!(atomic.to_bytes()?.len(), atomic.to_bytes()?.len());
    let mut counting = CountingBloomFilter::with_fp_rate(0.01).expected_items(100)?;
    counting.insert("dave")?;
    let mut cuckoo = CuckooFilter::with_fp_rate(0.01).expected_items(100)?;
    cuckoo.insert("erin")?;
    let mut scalable = ScalableBloomFilter::with_fp_rate(0.01).initial_capacity(100)?;
    scalable.insert("frank")?;
    Ok(())
}

/// Every variant through `dyn`, the atomic filter included.
fn every_filter(items: usize, fp: f64, seed: u64) -> Vec<Box<dyn ApproxSet + Send + Sync>> {
    let mut out: Vec<Box<dyn ApproxSet + Send + Sync>> = Variant::INSERTABLE
        .iter()
        .map(|v| v.builder().seed(seed).build(items, fp).unwrap())
        .collect();
    out.push(Box::new(
        AtomicBloomFilter::with_fp_rate(fp)
            .seed(seed)
            .expected_items(items)
            .unwrap(),
    ));
    out
}

/// `len` is the inserts accepted less the removes that succeeded, for every
/// variant: a repeated key counts each time. (The scalable filter skipped
/// keys that already tested positive: 1 for the key inserted twice.)
#[test]
fn len_counts_every_accepted_insert_for_every_variant() {
    for mut f in every_filter(2_000, 0.01, 3) {
        let name = f.variant();
        f.insert("twice").unwrap();
        f.insert("twice").unwrap();
        assert_eq!(f.len(), 2, "{name}: the same key twice");
        for i in 0..500u32 {
            f.insert(&i).unwrap();
            f.insert(&i).unwrap();
        }
        assert_eq!(f.len(), 1_002, "{name}");
        // The distinct items have their own estimate: about 501 (the cuckoo
        // table, which stores a fingerprint per insert, says 1 002).
        let distinct = f.estimated_items();
        if name == "cuckoo" {
            assert_eq!(distinct, 1_002.0, "{name}");
        } else {
            assert!((distinct - 501.0).abs() < 0.1 * 501.0, "{name}: {distinct}");
        }
        if let Some(del) = f.as_deletable_mut() {
            assert!(del.remove("twice").is_removed());
            assert_eq!(del.len(), 1_001, "{name}: one remove takes one away");
        }
        f.clear();
        assert_eq!(f.len(), 0, "{name}");
    }
}

/// A classic filter sized for 1 000 that took 20 000 keys says so; at its
/// capacity, and one key past it while its estimate is under target, it
/// does not.
#[test]
fn overfill_is_a_fill_status_of_the_trait() {
    let mut f = Variant::Classic
        .builder()
        .seed(1)
        .build(1_000, 0.01)
        .unwrap();
    for i in 0..20_000u32 {
        f.insert(&i).unwrap();
    }
    assert!(f.is_overfilled());
    assert!(f.estimated_fp_rate() > 0.99, "{}", f.estimated_fp_rate());

    // At capacity the estimate is the design rate (just under target) give
    // or take a few per cent of noise, so over seeds it lands on both sides.
    let mut under_target = vec![0; Variant::INSERTABLE.len() + 1];
    for seed in 1..=12 {
        for (j, mut f) in every_filter(1_000, 0.01, seed).into_iter().enumerate() {
            let name = f.variant();
            for i in 0..1_000u32 {
                f.insert(&i).unwrap();
            }
            assert!(!f.is_overfilled(), "{name} at its capacity");
            f.insert("one more").unwrap();
            // One past its capacity (a scalable filter grew a stage instead).
            assert!(f.len() > f.capacity() || name == "scalable", "{name}");
            let under = f.estimated_fp_rate() <= f.fp_rate();
            assert_eq!(f.is_overfilled(), !under && name != "scalable", "{name}");
            under_target[j] += usize::from(under);
        }
    }
    // Before, one key past the capacity was always overfilled.
    assert!(under_target.iter().all(|&n| n > 0), "{under_target:?}");
}

/// The classic, partitioned, blocked and split-block filters union and intersect
/// through `dyn`, exactly as their inherent `union`/`intersect`; every
/// mismatch is an error that changes nothing.
#[test]
fn union_and_intersection_through_dyn() {
    for variant in [
        Variant::Classic,
        Variant::Partitioned,
        Variant::Blocked,
        Variant::SplitBlock,
    ] {
        let build = |seed| variant.builder().seed(seed).build(1_000, 0.01).unwrap();
        let (mut a, mut b, mut whole) = (build(5), build(5), build(5));
        for i in 0..600u32 {
            if i < 400 {
                a.insert(&i).unwrap();
            }
            if i >= 200 {
                b.insert(&i).unwrap();
            }
            whole.insert(&i).unwrap();
        }
        let mut both = a.to_bytes().unwrap();
        let mut inter = approxset::load(&both).unwrap();
        inter.intersect_dyn(&*b).unwrap();
        assert!((200..400u32).all(|i| inter.contains(&i)), "{variant}");
        assert_eq!(inter.len(), 400, "{variant}: the smaller len");

        a.union_dyn(&*b).unwrap();
        assert_eq!(a.len(), 800, "{variant}: the sum of the lens");
        // Bit for bit the filter over all keys (whose len counts 600).
        assert!((0..600u32).all(|i| a.contains(&i)), "{variant}");
        assert!(
            (10_000..20_000u32).all(|i| a.contains(&i) == whole.contains(&i)),
            "{variant}"
        );
        assert_eq!(
            a.parameters().iter().find(|(n, _)| *n == "ones"),
            whole.parameters().iter().find(|(n, _)| *n == "ones"),
            "{variant}"
        );

        // Mismatches: another variant, key, size.
        both = a.to_bytes().unwrap();
        let other = if variant == Variant::Blocked {
            Variant::Classic
        } else {
            Variant::Blocked
        };
        let wrong_variant = other.builder().seed(5).build(1_000, 0.01).unwrap();
        let wrong_key = build(6);
        let wrong_size = variant.builder().seed(5).build(5_000, 0.01).unwrap();
        // The same seed under XXH3: the same key bits, another function.
        let wrong_function = variant
            .builder()
            .seed(5)
            .hash(HashFunction::Xxh3)
            .build(1_000, 0.01)
            .unwrap();
        for (what, wrong) in [
            ("variant", wrong_variant),
            ("hash key", wrong_key),
            ("bits", wrong_size),
            ("hash function", wrong_function),
        ] {
            let e = a.union_dyn(&*wrong).unwrap_err();
            assert!(
                matches!(e, Error::Incompatible { parameter, .. } if parameter == what),
                "{variant}: {e}"
            );
            let e = a.intersect_dyn(&*wrong).unwrap_err();
            assert!(matches!(e, Error::Incompatible { .. }), "{variant}: {e}");
            assert_eq!(a.to_bytes().unwrap(), both, "{variant}: unchanged");
        }
    }
}

/// The variants that cannot combine say so, and change nothing.
#[test]
fn variants_that_cannot_combine_refuse() {
    let mut filters: Vec<Box<dyn ApproxSet + Send + Sync>> =
        [Variant::Counting, Variant::Cuckoo, Variant::Scalable]
            .iter()
            .map(|v| v.builder().seed(5).build(1_000, 0.01).unwrap())
            .collect();
    let atomic = || {
        AtomicBloomFilter::with_fp_rate(0.01)
            .seed(5)
            .expected_items(1_000)
    };
    filters.push(Box::new(atomic().unwrap()));
    for mut f in filters {
        let name = f.variant();
        f.insert("x").unwrap();
        let before = f.to_bytes().unwrap();
        // A twin of the same type (the atomic filter's file loads as a
        // blocked filter, so it gets a fresh atomic one).
        let twin: Box<dyn ApproxSet> = if f.as_any().unwrap().is::<AtomicBloomFilter>() {
            Box::new(atomic().unwrap())
        } else {
            approxset::load(&before).unwrap()
        };
        let e = f.union_dyn(&*twin).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Unsupported {
                    operation: "union",
                    ..
                }
            ),
            "{name}: {e}"
        );
        let e = f.intersect_dyn(&*twin).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Unsupported {
                    operation: "intersection",
                    ..
                }
            ),
            "{name}: {e}"
        );
        assert_eq!(f.to_bytes().unwrap(), before, "{name}: unchanged");
    }
}

/// A `dyn ApproxSet` of a deletable variant becomes a `dyn Deletable`, and
/// any filter downcasts to its concrete type.
#[test]
fn checked_conversions_from_dyn() {
    let mut f: Box<dyn ApproxSet + Send + Sync> = Variant::Counting
        .builder()
        .seed(1)
        .build(100, 0.01)
        .unwrap();
    f.insert("k").unwrap();
    let del: &mut dyn Deletable = f.as_deletable_mut().expect("counting deletes");
    assert!(del.remove("k").is_removed());
    assert!(!f.contains("k"), "the removal reached the filter");
    assert!(f.as_deletable().is_some());
    assert!(
        f.as_any()
            .and_then(|a| a.downcast_ref::<CountingBloomFilter>())
            .is_some()
    );
    for variant in Variant::INSERTABLE {
        let mut f = variant.builder().build(100, 0.01).unwrap();
        assert_eq!(
            f.as_deletable().is_some(),
            variant.supports_delete(),
            "{variant}"
        );
        assert_eq!(f.as_deletable_mut().is_some(), variant.supports_delete());
        assert!(f.as_any().is_some(), "{variant}");
    }
    let classic: Box<dyn ApproxSet> = Box::new(BloomFilter::new(10, 0.01).unwrap());
    assert!(
        classic
            .as_any()
            .unwrap()
            .downcast_ref::<BloomFilter>()
            .is_some()
    );
    assert!(
        classic
            .as_any()
            .unwrap()
            .downcast_ref::<CuckooFilter>()
            .is_none()
    );
}

/// Generic code over `Membership` or `ApproxSet` needs one import, the
/// prelude (`contains` is a `MembershipExt` method, `insert` an
/// `ApproxSetExt` one), and every filter is a `dyn Membership` that
/// converts back to a `dyn ApproxSet`.
#[test]
fn generic_code_over_the_traits_needs_only_the_prelude() {
    mod generic {
        use approxset::prelude::*;

        pub(super) fn answers<S: Membership + ?Sized>(set: &S, keys: &[&str]) -> Vec<bool> {
            keys.iter().map(|k| set.contains(*k)).collect()
        }

        pub(super) fn fill<S: ApproxSet + ?Sized>(set: &mut S, keys: &[&str]) -> Vec<bool> {
            for k in keys {
                set.insert(*k).unwrap();
            }
            let mut out = Vec::new();
            set.contains_batch(keys, &mut out);
            out
        }
    }
    let keys = ["alice", "bob"];
    for mut f in every_filter(100, 0.01, 1) {
        let name = f.variant();
        assert_eq!(generic::fill(&mut f, &keys), [true, true], "{name}");
        assert_eq!(generic::answers(&f, &keys), [true, true], "{name}");
        let read: &mut dyn approxset::Membership = &mut f;
        assert_eq!(generic::answers(read, &keys), [true, true], "{name}");
        let set = read
            .as_approx_set_mut()
            .expect("every filter takes inserts");
        set.insert("carol").unwrap();
        assert!(f.contains("carol"), "{name}: the insert reached the filter");
        assert_eq!(f.len(), 3, "{name}");
        assert!(f.as_approx_set().is_some(), "{name}");
    }
}

/// The errors the trait documents for `insert` come through `dyn`.
#[test]
fn insert_errors_through_dyn_are_the_documented_ones() {
    let mut cuckoo = Variant::Cuckoo
        .builder()
        .seed(1)
        .build(1_000, 0.01)
        .unwrap();
    let copies: Vec<_> = (0..9).map(|_| cuckoo.insert("same")).collect();
    assert!(copies[..8].iter().all(Result::is_ok));
    assert!(
        matches!(copies[8], Err(Error::TooManyCopies { limit: 8 })),
        "{:?}",
        copies[8]
    );
    assert_eq!(cuckoo.len(), 8, "the refused insert is not counted");
    let mut full = Variant::Cuckoo.builder().seed(1).build(100, 0.01).unwrap();
    let first_error = (0..10_000u32).find_map(|i| full.insert(&i).err());
    assert!(
        matches!(first_error, Some(Error::Full { .. })),
        "{first_error:?}"
    );
}
