//! Views of saved filters: a view of `to_bytes()` answers exactly as the
//! filter (members, non-members with their false positives, batches, every
//! piece of metadata), at any alignment, over the golden files too; the
//! typed views copy back into owned filters; damage only the checksum
//! shows is left to `verify`.

mod common;

use approxset::format::HEADER_LEN;
use approxset::prelude::*;
use approxset::{
    BinaryFuseFilter, BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter, Error,
    HashFunction, PartitionedBloomFilter, RibbonFilter, SplitBlockBloomFilter, Variant,
};

/// The variants `approxset::view` opens: all but the scalable filter
/// (a chain of stages) and the sliding filter (no view yet; see
/// `docs/format.md`, "Views").
fn flat() -> impl Iterator<Item = Variant> {
    Variant::ALL
        .iter()
        .copied()
        .filter(|&v| v != Variant::Scalable && v != Variant::Sliding)
}

/// A filter of `variant` built from 1,500 keys at 5 %, and the keys.
fn sample(
    variant: Variant,
    function: HashFunction,
) -> (Box<dyn Membership + Send + Sync>, Vec<u32>) {
    let function = if variant == Variant::SplitBlock {
        function
    } else if function == HashFunction::ParquetXxh64 {
        HashFunction::Xxh3
    } else {
        function
    };
    let members: Vec<u32> = (0..1_500).collect();
    let f = variant
        .builder()
        .seed(23)
        .hash(function)
        .build_from(&members, 0.05)
        .unwrap();
    (f, members)
}

/// Asserts `view` answers as `owned` and reports the same metadata, and
/// returns the false positives among 10⁴ non-members.
fn same_answers(
    owned: &dyn Membership,
    view: &dyn Membership,
    members: &[u32],
    what: &str,
) -> usize {
    assert!(
        members.iter().all(|k| view.contains(k)),
        "{what}: a member is missing"
    );
    let others: Vec<u32> = (1_000_000..1_010_000).collect();
    let mut fps = 0;
    for k in &others {
        let answer = view.contains(k);
        assert_eq!(answer, owned.contains(k), "{what}: key {k}");
        fps += usize::from(answer);
    }
    let all: Vec<u32> = members.iter().chain(&others).copied().collect();
    let (mut a, mut b) = (Vec::new(), vec![true; 3]);
    owned.contains_batch(&all, &mut a);
    view.contains_batch(&all, &mut b);
    assert_eq!(a, b, "{what}: batch");
    let d: Vec<_> = all.iter().map(|k| view.digest(k)).collect();
    view.contains_digests(&d, &mut b);
    assert_eq!(a, b, "{what}: digests");
    assert_eq!(view.hash_key(), owned.hash_key(), "{what}");
    assert_eq!(view.len(), owned.len(), "{what}");
    assert_eq!(view.is_empty(), owned.is_empty(), "{what}");
    assert_eq!(view.capacity(), owned.capacity(), "{what}");
    assert_eq!(
        view.fp_rate().to_bits(),
        owned.fp_rate().to_bits(),
        "{what}"
    );
    assert_eq!(
        view.estimated_fp_rate().to_bits(),
        owned.estimated_fp_rate().to_bits(),
        "{what}"
    );
    assert_eq!(
        view.estimated_items().to_bits(),
        owned.estimated_items().to_bits(),
        "{what}"
    );
    assert_eq!(view.memory_bytes(), owned.memory_bytes(), "{what}");
    assert_eq!(view.variant(), owned.variant(), "{what}");
    assert_eq!(view.parameters(), owned.parameters(), "{what}");
    assert_eq!(
        view.to_bytes().unwrap(),
        owned.to_bytes().unwrap(),
        "{what}"
    );
    assert!(
        view.as_approx_set().is_none(),
        "{what}: a view is read-only"
    );
    assert!(view.as_any().is_none(), "{what}: a view borrows");
    fps
}

#[test]
fn a_view_answers_as_its_filter_at_every_offset() {
    for variant in flat() {
        for function in [
            HashFunction::SipHash13,
            HashFunction::Xxh3,
            HashFunction::ParquetXxh64,
        ] {
            let (f, members) = sample(variant, function);
            let bytes = f.to_bytes().unwrap();
            for skew in 0..=8 {
                let mut buf = vec![0x5Au8; skew];
                buf.extend_from_slice(&bytes);
                buf.extend_from_slice(&[0xA5; 3]);
                let slice = &buf[skew..skew + bytes.len()];
                let what = format!("{variant} {function} at offset {skew}");
                let view = approxset::view(slice).unwrap();
                let fps = same_answers(f.as_ref(), view.as_ref(), &members, &what);
                // About 5 % at 1,500 of 2,000 keys: some, not most.
                assert!(fps > 20 && fps < 2_000, "{what}: {fps} false positives");
                let verified = approxset::view_verified(slice).unwrap();
                assert_eq!(verified.to_bytes().unwrap(), bytes, "{what}");
            }
        }
    }
}

#[test]
fn typed_views_verify_and_copy_back() {
    let (f, _) = sample(Variant::Counting, HashFunction::SipHash13);
    let bytes = f.to_bytes().unwrap();
    let view = CountingBloomFilter::view(&bytes).unwrap();
    view.verify().unwrap();
    assert_eq!(view.as_bytes(), &bytes[..]);
    assert!(view.contains(&7u32) && view.contains_bytes(&7u32.to_le_bytes()));
    let mut owned = view.clone().into_owned().unwrap();
    assert_eq!(owned, CountingBloomFilter::from_bytes(&bytes).unwrap());
    assert!(owned.remove(&7u32).is_removed(), "the copy deletes");
    assert!(view.contains(&7u32), "the view is unchanged");

    macro_rules! round_trip {
        ($filter:ty, $variant:expr) => {{
            let (f, members) = sample($variant, HashFunction::Xxh3);
            let bytes = f.to_bytes().unwrap();
            let view = <$filter>::view(&bytes).unwrap();
            view.verify().unwrap();
            assert!(members.iter().all(|k| view.contains(k)));
            let mut owned: $filter = view.into_owned().unwrap();
            assert_eq!(owned, <$filter>::from_bytes(&bytes).unwrap());
            owned.insert("new").unwrap();
            assert!(owned.contains("new"));
            let verified = <$filter>::view_verified(&bytes).unwrap();
            assert_eq!(verified.to_bytes().unwrap(), bytes);
        }};
    }
    round_trip!(BloomFilter, Variant::Classic);
    round_trip!(PartitionedBloomFilter, Variant::Partitioned);
    round_trip!(BlockedBloomFilter, Variant::Blocked);
    round_trip!(SplitBlockBloomFilter, Variant::SplitBlock);
    round_trip!(CuckooFilter, Variant::Cuckoo);

    // The static filter's copy is a filter, not a `Result`: its checks
    // are all made when the view opens (but the checksum).
    let (f, members) = sample(Variant::Fuse, HashFunction::SipHash13);
    let bytes = f.to_bytes().unwrap();
    let view = BinaryFuseFilter::view(&bytes).unwrap();
    view.verify().unwrap();
    assert_eq!(view.as_bytes(), &bytes[..]);
    assert!(members.iter().all(|k| view.contains(k)));
    assert_eq!(
        view.into_owned(),
        BinaryFuseFilter::from_bytes(&bytes).unwrap()
    );
    assert_eq!(
        BinaryFuseFilter::view_verified(&bytes)
            .unwrap()
            .to_bytes()
            .unwrap(),
        bytes
    );

    // The Ribbon filter's likewise.
    let (f, members) = sample(Variant::Ribbon, HashFunction::Xxh3);
    let bytes = f.to_bytes().unwrap();
    let view = RibbonFilter::view(&bytes).unwrap();
    view.verify().unwrap();
    assert_eq!(view.as_bytes(), &bytes[..]);
    assert!(members.iter().all(|k| view.contains(k)));
    assert_eq!(view.into_owned(), RibbonFilter::from_bytes(&bytes).unwrap());
    assert_eq!(
        RibbonFilter::view_verified(&bytes)
            .unwrap()
            .to_bytes()
            .unwrap(),
        bytes
    );
}

#[test]
fn views_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<approxset::BloomFilterView<'_>>();
    check::<approxset::PartitionedBloomFilterView<'_>>();
    check::<approxset::BlockedBloomFilterView<'_>>();
    check::<approxset::SplitBlockBloomFilterView<'_>>();
    check::<approxset::CountingBloomFilterView<'_>>();
    check::<approxset::CuckooFilterView<'_>>();
    check::<approxset::BinaryFuseFilterView<'_>>();
    check::<approxset::RibbonFilterView<'_>>();
}

#[test]
fn views_of_the_golden_files_answer_as_the_loaded_filters() {
    let dir = common::golden_path("");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let loaded = approxset::load_membership(&bytes).unwrap();
        let what = path.display().to_string();
        // The scalable filter has no flat payload; the sliding filter no
        // view yet.
        if loaded.variant() == "scalable" || loaded.variant() == "sliding" {
            let err = approxset::view(&bytes).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::Unsupported {
                        operation: "view",
                        ..
                    }
                ),
                "{what}: {err}"
            );
            continue;
        }
        let view = approxset::view(&bytes).unwrap();
        let members: Vec<u32> = Vec::new();
        same_answers(loaded.as_ref(), view.as_ref(), &members, &what);
        for i in 0..50 {
            let key = format!("golden-{i}");
            assert_eq!(view.contains(&key), loaded.contains(&key), "{what}: {key}");
        }
        seen += 1;
    }
    assert!(seen >= 15, "{seen} golden files viewed");
}

/// `bytes` with byte `at` changed and the checksum left as it was.
fn damaged(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] ^= 0x10;
    out
}

#[test]
fn damage_only_the_checksum_shows_is_left_to_verify() {
    for variant in flat() {
        let (f, _) = sample(variant, HashFunction::SipHash13);
        let bytes = f.to_bytes().unwrap();
        // A payload byte: the parameters are intact, so the view opens.
        let bad = damaged(&bytes, common::data_of(&bytes).len() - 20);
        let what = variant.to_string();
        assert!(
            matches!(approxset::load(&bad), Err(Error::ChecksumMismatch { .. })),
            "{what}"
        );
        // The quotient filter's view makes every check of a load but the
        // checksum, and so may refuse a damaged payload itself.
        match approxset::view(&bad) {
            Ok(view) => {
                let _ = view.contains("anything");
            }
            Err(Error::Corrupt { .. }) if variant == Variant::Quotient => {}
            Err(e) => panic!("{what}: {e}"),
        }
        assert!(approxset::view_verified(&bad).is_err(), "{what}");
        // The stored checksum itself.
        let bad = damaged(&bytes, bytes.len() - 1);
        assert!(approxset::view(&bad).is_ok(), "{what}");
        assert!(approxset::view_verified(&bad).is_err(), "{what}");
    }
    let (f, _) = sample(Variant::Classic, HashFunction::SipHash13);
    let bad = damaged(&f.to_bytes().unwrap(), HEADER_LEN + 60);
    let view = BloomFilter::view(&bad).unwrap();
    assert!(matches!(view.verify(), Err(Error::ChecksumMismatch { .. })));
    let (f, _) = sample(Variant::Cuckoo, HashFunction::SipHash13);
    let bytes = f.to_bytes().unwrap();
    let bad = damaged(&bytes, bytes.len() - 30);
    assert!(CuckooFilter::view(&bad).unwrap().verify().is_err());
}

/// `bytes` with `value` at `at` (little-endian, `width` bytes) and the
/// checksum made valid again.
fn forge(bytes: &[u8], at: usize, width: usize, value: u64) -> Vec<u8> {
    common::forged(bytes, at, &value.to_le_bytes()[..width])
}

#[test]
fn huge_claims_fail_without_allocating() {
    let (f, _) = sample(Variant::Classic, HashFunction::SipHash13);
    let bytes = f.to_bytes().unwrap();
    // A total length of 2^60 bytes: truncated, before anything is read.
    let mut long = bytes.clone();
    long[8..16].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(matches!(
        approxset::view(&long),
        Err(Error::Truncated { .. })
    ));
    // 2^63 bits in a few kilobytes: the payload cannot hold them.
    let huge = forge(&bytes, HEADER_LEN, 8, 1 << 63);
    let err = approxset::view(&huge).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    // The view's memory is the payload it borrows, and nothing else.
    let view = BloomFilter::view(&bytes).unwrap();
    let payload = common::data_of(&bytes).len() - HEADER_LEN - 40;
    assert_eq!(view.memory_bytes(), payload);
    // At most two cache lines; 40 of its bytes are the hash key, which
    // keeps SipHash's initial state (four words) beside its function.
    assert!(
        std::mem::size_of_val(&view) <= 128,
        "{}",
        std::mem::size_of_val(&view)
    );
}

proptest::proptest! {
    #![proptest_config(common::proptest_config(500))]

    /// Random damage (a byte anywhere but the checksum, which is then made
    /// valid again or left stale), at any offset: a view opens or refuses
    /// without panicking, refuses only what `load` refuses, and where
    /// `load` accepts, answers as the loaded filter.
    #[test]
    fn damaged_bytes_view_safely(
        variant in proptest::sample::select(flat().collect::<Vec<_>>()),
        at in proptest::num::usize::ANY,
        value in proptest::num::u8::ANY,
        fix_checksum in proptest::bool::ANY,
        skew in 0usize..8,
    ) {
        let (f, _) = sample(variant, HashFunction::SipHash13);
        let bytes = f.to_bytes().unwrap();
        let at = at % common::data_of(&bytes).len();
        let mut bad = bytes.clone();
        bad[at] = value;
        if fix_checksum {
            bad = forge(&bad, at, 1, u64::from(value));
        }
        let mut buf = vec![0u8; skew];
        buf.extend_from_slice(&bad);
        let bad = &buf[skew..];
        let loaded = approxset::load_membership(bad);
        match approxset::view(bad) {
            Ok(view) => {
                let keys: Vec<u32> = (0..300).collect();
                let mut out = Vec::new();
                view.contains_batch(&keys, &mut out);
                for (k, &batched) in keys.iter().zip(&out) {
                    proptest::prop_assert_eq!(view.contains(k), batched);
                }
                let _ = (view.estimated_fp_rate(), view.parameters(), view.to_bytes());
                if let Ok(loaded) = loaded {
                    proptest::prop_assert!(keys.iter().all(|k| loaded.contains(k) == view.contains(k)));
                }
            }
            Err(e) => proptest::prop_assert!(loaded.is_err(), "view refuses ({e}), load opens"),
        }
    }
}
