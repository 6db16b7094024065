//! Cuckoo filters of every fingerprint width (4 to 32 bits) in the binary
//! format: round trips through `approxset::load`, golden files that pin the
//! bytes of a few new widths, the 12-bit file of the first release loading
//! unchanged, and forged fields refused at every width.
//!
//! Regenerate the golden files of this suite, after an intended format
//! change, with `APPROXSET_BLESS=1 cargo test --test cuckoo_widths golden`.

mod common;

use approxset::format::{HEADER_LEN, MAGIC};
use approxset::{CuckooFilter, Error, HashFunction, HashKey, Membership};

const SEED: u64 = 42;

/// Where the cuckoo parameters start, and each field's offset in them.
const BITS: usize = HEADER_LEN;
const BUCKETS: usize = HEADER_LEN + 8;
const LEN: usize = HEADER_LEN + 16;
const STASH_FP: usize = HEADER_LEN + 40;
const STASH_BUCKET: usize = HEADER_LEN + 48;
const PAYLOAD: usize = HEADER_LEN + 64;

fn members() -> impl Iterator<Item = Vec<u8>> {
    (0..50).map(|i| format!("golden-{i}").into_bytes())
}

/// An empty filter for `items` items with `bits`-bit fingerprints, rate
/// 0.5, seed 42, hashed with SipHash-1-3-128 (the function of the golden
/// files, the default when they were written).
fn empty(bits: u32, items: usize) -> CuckooFilter {
    CuckooFilter::with_fp_rate(0.5)
        .fingerprint_bits(bits)
        .seed(SEED)
        .hash(HashFunction::SipHash13)
        .expected_items(items)
        .unwrap()
}

/// A filter for 100 items with `bits`-bit fingerprints, seed 42, holding
/// the 50 members.
fn sample(bits: u32) -> CuckooFilter {
    let mut f = empty(bits, 100);
    for k in members() {
        f.insert_bytes(&k).unwrap();
    }
    f
}

/// A filter of 2 buckets filled to its stash with 9 items.
fn stashed(bits: u32) -> CuckooFilter {
    let mut f = empty(bits, 5);
    let mut i = 0u32;
    while f.len() < 9 {
        // A ninth copy of a fingerprint in a 2-bucket table is refused;
        // skip such keys (only likely at 4 bits).
        let _ = f.insert(&i);
        i += 1;
    }
    f
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// Rewrites a field and fixes the checksum, so the checks behind the
/// checksum are what rejects it.
fn patched(bytes: &[u8], offset: usize, value: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[offset..offset + value.len()].copy_from_slice(value);
    approxset::format::reseal(&mut out).unwrap();
    out
}

fn corrupt_reason(bytes: &[u8]) -> String {
    match approxset::load(bytes) {
        Err(e @ Error::Corrupt { .. }) => e.to_string(),
        Err(e) => panic!("expected Corrupt, got {e}"),
        Ok(_) => panic!("a forged file loaded"),
    }
}

#[test]
fn every_width_round_trips() {
    for bits in 4..=32u32 {
        for f in [sample(bits), stashed(bits)] {
            let bytes = f.to_bytes().unwrap();
            // The width is the first parameter; the payload is 4·B·f bits
            // in whole words.
            assert_eq!(
                u32::from_le_bytes(bytes[BITS..BITS + 4].try_into().unwrap()),
                bits
            );
            let buckets = u64_at(&bytes, BUCKETS) as usize;
            let words = (buckets * 4 * bits as usize).div_ceil(64);
            assert_eq!(
                common::data_of(&bytes).len(),
                PAYLOAD + 8 * words,
                "{bits} bits"
            );

            let g = CuckooFilter::from_bytes(&bytes).unwrap();
            assert_eq!(g, f, "{bits} bits");
            assert_eq!(g.fingerprint_bits(), bits);
            assert_eq!(g.to_bytes().unwrap(), bytes, "{bits} bits");
            let d = approxset::load(&bytes).unwrap();
            assert_eq!(d.variant(), "cuckoo");
            assert_eq!(d.len(), f.len());
            assert_eq!(d.parameters(), Membership::parameters(&f));
            for i in 0..2_000u32 {
                let k = format!("other-{i}");
                assert_eq!(d.contains(k.as_str()), f.contains(k.as_str()));
                assert_eq!(g.contains(&i), f.contains(&i));
            }
        }
        let f = sample(bits);
        let mut d = approxset::load_deletable(&f.to_bytes().unwrap()).unwrap();
        assert!(members().all(|k| d.contains_bytes(&k)), "{bits} bits");
        assert!(d.remove_bytes(b"golden-0").is_removed());
        assert_eq!(d.len(), 49);
        // And a reloaded stashed filter still refuses, then takes inserts
        // once a removal makes room, losing nothing.
        let mut g = CuckooFilter::from_bytes(&stashed(bits).to_bytes().unwrap()).unwrap();
        assert!(matches!(g.insert(&u32::MAX), Err(Error::Full { items: 9 })));
        let kept: Vec<u32> = (0..200).filter(|i| g.contains(i)).collect();
        assert!(g.remove(&kept[0]).is_removed());
        assert!(g.insert(&u32::MAX).is_ok(), "{bits} bits");
    }
}

/// Filters of a few new widths serialize to the committed bytes: 4 (four
/// buckets to a word), 10 (buckets straddle words), 23 (92-bit buckets over
/// two or three words) and 32 (two words a bucket).
#[test]
fn golden_files_of_new_widths() {
    for bits in [4u32, 10, 23, 32] {
        let bytes = sample(bits).to_bytes().unwrap();
        let golden = common::golden(
            &format!("cuckoo-{bits}bit.bin"),
            &bytes,
            &format!("{bits} bits"),
        );
        assert_eq!(golden[..4], MAGIC);
        // The cuckoo layout did not change: its files stay version 1 (the
        // oldest that describes them), which every reader accepts.
        assert_eq!(u16::from_le_bytes([golden[4], golden[5]]), 1);
        assert_eq!(golden[6], 4, "the cuckoo tag");
        assert_eq!(golden[16..32], HashKey::from_seed(SEED).to_le_bytes());
        let g = approxset::load(&golden).unwrap();
        assert!(members().all(|k| g.contains_bytes(&k)));
    }
}

/// The 12-bit cuckoo file of the first release (the `cuckoo.bin` golden
/// file as first committed) loads unchanged, answers for its members, and
/// serializes back to the same bytes: the layout of 8/12/16-bit filters is
/// the layout of every width.
#[test]
fn a_first_release_12_bit_file_loads_unchanged() {
    let path = common::golden_path("cuckoo-v1-12bit.bin");
    let golden = std::fs::read(&path).unwrap();
    assert_eq!(
        u32::from_le_bytes(golden[BITS..BITS + 4].try_into().unwrap()),
        12
    );
    let f = CuckooFilter::from_bytes(&golden).unwrap();
    assert_eq!(f.fingerprint_bits(), 12);
    assert_eq!(f.len(), 50);
    assert!(members().all(|k| f.contains_bytes(&k)));
    // Saved again, it is the same data in version 4.
    assert!(common::same_data(&golden, &f.to_bytes().unwrap()));
    // The same keys in a 12-bit filter built today with the file's
    // function give the same bytes.
    let mut again = CuckooFilter::with_fp_rate(0.01)
        .fingerprint_bits(12)
        .seed(SEED)
        .hash(HashFunction::SipHash13)
        .expected_items(100)
        .unwrap();
    for k in members() {
        again.insert_bytes(&k).unwrap();
    }
    assert!(common::same_data(&golden, &again.to_bytes().unwrap()));
}

#[test]
fn forged_fields_are_refused_at_every_width() {
    for bits in 4..=32u32 {
        let bytes = stashed(bits).to_bytes().unwrap();
        let lane = (1u64 << bits) - 1;
        let buckets = u64_at(&bytes, BUCKETS);
        // A width outside 4..=32.
        for bad in [0u32, 1, 3, 33, 64, u32::MAX] {
            let r = corrupt_reason(&patched(&bytes, BITS, &bad.to_le_bytes()));
            assert!(r.contains("outside 4..=32"), "{bits} → {bad}: {r}");
        }
        // A stashed fingerprint wider than the width, or 0 with a bucket.
        let wide = patched(&bytes, STASH_FP, &(lane + 1).to_le_bytes());
        assert!(corrupt_reason(&wide).contains("wider than"), "{bits}");
        let zero = patched(&bytes, STASH_FP, &0u64.to_le_bytes());
        let zero = patched(&zero, STASH_BUCKET, &1u64.to_le_bytes());
        corrupt_reason(&zero);
        // A stash bucket outside the table.
        corrupt_reason(&patched(&bytes, STASH_BUCKET, &buckets.to_le_bytes()));
        // A len that is not the occupied slots plus the stash.
        for len in [0u64, 8, 10] {
            let r = corrupt_reason(&patched(&bytes, LEN, &len.to_le_bytes()));
            assert!(
                r.contains("fingerprints stored") || r.contains("the table and stash hold"),
                "{bits}: {r}"
            );
        }
        // A bit set past the last bucket, where there is one.
        let used = (buckets as usize * 4 * bits as usize) % 64;
        if used != 0 {
            let last = common::data_of(&bytes).len() - 8;
            let word = u64_at(&bytes, last) | (1 << used);
            let r = corrupt_reason(&patched(&bytes, last, &word.to_le_bytes()));
            assert!(r.contains("past the last bucket"), "{bits}: {r}");
        }
        // A width whose payload would take another number of words.
        for other in [4u32, 10, 17, 32] {
            let words = |f: u32| (buckets as usize * 4 * f as usize).div_ceil(64);
            if words(other) != words(bits) {
                // Too few bytes, bytes left over, or (read at a narrower
                // width) slots past the last bucket.
                corrupt_reason(&patched(&bytes, BITS, &other.to_le_bytes()));
            }
        }
    }
}
