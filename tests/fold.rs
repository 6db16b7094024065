//! Fold-to-fit (issue 35): a filter built for 10⁶ keys and holding 10⁴
//! folds to at most 1/64 of its size, with no false negative and a false-
//! positive rate within the binomial bound of its target; a folded
//! split-block filter is still a Parquet bitset the `parquet` crate reads.

use approxset::{BloomFilter, HashFunction, SplitBlockBloomFilter};
use parquet::bloom_filter::Sbbf;

mod common;
use common::{Z_ONE_SIDED_1E6, binomial_upper};

const SIZED_FOR: usize = 1_000_000;
const HELD: u64 = 10_000;
const TARGET: f64 = 0.01;
const QUERIES: u64 = 1_000_000;

/// A bit count of at least `bits`, a multiple of `unit · 64`: foldable six
/// times (a power of two, as Parquet writers size bitsets, would be too).
fn foldable(bits: u64, unit: u64) -> u64 {
    bits.div_ceil(unit * 64) * unit * 64
}

fn false_positives(contains: impl Fn(u64) -> bool) -> u64 {
    (0..QUERIES).filter(|&i| contains(i + (1 << 40))).count() as u64
}

#[test]
fn split_block_folds_to_a_64th_in_parquet_mode() {
    let sized = SplitBlockBloomFilter::new(SIZED_FOR, TARGET)
        .unwrap()
        .bits();
    let bits = foldable(sized, 256);
    let mut f = SplitBlockBloomFilter::with_num_bits(bits)
        .hash(HashFunction::ParquetXxh64)
        .hashes(8)
        .unwrap();
    for i in 0..HELD {
        f.insert(&i).unwrap();
    }
    let halvings = f.fold_to(TARGET).unwrap();
    assert!(halvings >= 6, "{halvings} halvings");
    assert!(f.bits() * 64 <= bits, "{} of {bits} bits", f.bits());
    assert!(
        f.estimated_fp_rate() <= TARGET * 1.2,
        "{}",
        f.estimated_fp_rate()
    );
    assert!(
        (0..HELD).all(|i| f.contains(&i)),
        "a false negative after folding"
    );
    let fp = false_positives(|i| f.contains(&i));
    let bound = binomial_upper(QUERIES, TARGET, Z_ONE_SIDED_1E6);
    assert!((fp as f64) <= bound, "{fp} false positives, bound {bound}");
    // Not folded past the target's worth: one more halving would pass it.
    assert!(fp > QUERIES / 1000, "{fp}: folded too little to measure");

    // Still a Parquet bitset: parquet's reader finds every key.
    let bitset = f.to_parquet_bitset().unwrap();
    let theirs = Sbbf::new(&bitset);
    assert_eq!(theirs.num_blocks() as u64 * 256, f.bits());
    assert!((0..HELD).all(|i| theirs.check(&i)));
    let theirs_fp = (0..QUERIES)
        .filter(|&i| theirs.check(&(i + (1 << 40))))
        .count() as u64;
    assert_eq!(theirs_fp, fp);

    // Saved and loaded, it answers the same.
    let again = approxset::load_membership(&f.to_bytes().unwrap()).unwrap();
    assert!((0..HELD).all(|i| again.contains_bytes(&i.to_le_bytes())));
}

#[test]
fn classic_folds_to_a_64th() {
    let sized = BloomFilter::new(SIZED_FOR, TARGET).unwrap();
    let (bits, hashes) = (foldable(sized.bits(), 2), sized.hashes());
    let mut f = BloomFilter::with_num_bits(bits)
        .seed(5)
        .hashes(hashes)
        .unwrap();
    for i in 0..HELD {
        f.insert(&i).unwrap();
    }
    let halvings = f.fold_to(TARGET).unwrap();
    assert!(halvings >= 6, "{halvings} halvings");
    assert!(f.bits() * 64 <= bits);
    assert!(
        (0..HELD).all(|i| f.contains(&i)),
        "a false negative after folding"
    );
    let fp = false_positives(|i| f.contains(&i));
    let bound = binomial_upper(QUERIES, TARGET, Z_ONE_SIDED_1E6);
    assert!((fp as f64) <= bound, "{fp} false positives, bound {bound}");
}

/// Every key of every size survives any number of folds (the layout's
/// multiply-shift maps unit pairs (2j, 2j + 1) to j).
#[test]
fn no_false_negative_at_any_fold() {
    for blocks in [1u64, 2, 6, 64, 96, 1024] {
        let mut f = SplitBlockBloomFilter::with_num_bits(blocks * 256)
            .seed(blocks)
            .hashes(8)
            .unwrap();
        let n = blocks * 3;
        for i in 0..n {
            f.insert(&i).unwrap();
        }
        // A target so loose that folding goes as far as the count allows.
        let halvings = f.fold_to(0.999_999).unwrap();
        let most = blocks.trailing_zeros();
        assert!(
            halvings <= most && (most == 0 || halvings >= 1),
            "{blocks}: {halvings}"
        );
        assert!((0..n).all(|i| f.contains(&i)), "{blocks} blocks");
    }
    for bits in [2u64, 64, 130, 4096, 6000] {
        let mut f = BloomFilter::with_num_bits(bits)
            .seed(bits)
            .hashes(3)
            .unwrap();
        for i in 0..bits / 8 {
            f.insert(&i).unwrap();
        }
        let halvings = f.fold_to(0.999_999).unwrap();
        assert!(halvings >= 1, "{bits}");
        assert!((0..bits / 8).all(|i| f.contains(&i)), "{bits} bits");
    }
}

#[test]
fn folding_stops_at_the_target_and_checks_it() {
    let mut f = SplitBlockBloomFilter::with_num_bits(1024 * 256)
        .seed(1)
        .hashes(8)
        .unwrap();
    assert!(f.fold_to(0.0).is_err() && f.fold_to(1.0).is_err() && f.fold_to(f64::NAN).is_err());
    assert_eq!(f.bits(), 1024 * 256);
    // Empty: folds to one block.
    assert_eq!(f.fold_to(0.01).unwrap(), 10);
    assert_eq!(f.bits(), 256);
    // Full enough: does not fold.
    let mut g = SplitBlockBloomFilter::new(10_000, 0.01).unwrap();
    for i in 0..10_000u32 {
        g.insert(&i).unwrap();
    }
    let before = g.bits();
    assert_eq!(g.fold_to(0.01).unwrap(), 0);
    assert_eq!(g.bits(), before);
}
