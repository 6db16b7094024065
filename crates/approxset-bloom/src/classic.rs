//! The classic Bloom filter (Bloom 1970): `m` bits, `k` positions per key
//! anywhere among them.

use crate::bloom::Bloom;
use crate::layout::Classic;

/// The classic Bloom filter: `m` bits and `k` hash positions per item.
///
/// Sized from a target false-positive rate, it takes about 9.6 bits per item
/// at 1 % and 4.8 more for every further factor of ten, with
/// `k = round(log₂(1/p))` hash functions.
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::BloomFilter;
///
/// let mut filter = BloomFilter::with_fp_rate(0.01).seed(7).expected_items(1000)?;
/// for i in 0..1000u32 {
///     filter.insert(&i)?;
/// }
/// assert!((0..1000u32).all(|i| filter.contains(&i)));
/// // About 1 % of other keys test positive.
/// let fp = (1000..101_000u32).filter(|i| filter.contains(i)).count();
/// assert!(fp < 1_300, "{fp} false positives in 100,000");
/// assert_eq!(filter.hashes(), 7);
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
///
/// Two filters with the same bits, hashes and key combine:
/// [`union`](Bloom::union) is the bitwise OR, [`intersect`](Bloom::intersect)
/// the bitwise AND.
pub type BloomFilter = Bloom<Classic>;

#[cfg(test)]
mod tests {
    use super::*;
    use approxset_core::Error;

    #[test]
    fn insert_reports_new_items() {
        let mut f = BloomFilter::with_fp_rate(0.001)
            .seed(1)
            .expected_items(100)
            .unwrap();
        assert!(f.insert("a").unwrap());
        assert!(
            !f.insert("a").unwrap(),
            "every bit of a repeat is already set"
        );
        assert_eq!(f.len(), 2);
        assert!(f.contains("a"));
        assert!(!f.is_empty());
        f.clear();
        assert!(f.is_empty());
        assert!(!f.contains("a"));
        assert_eq!(f.count_ones(), 0);
    }

    #[test]
    fn ones_count_matches_inserted_positions() {
        let mut f = BloomFilter::with_num_bits(1 << 16)
            .seed(3)
            .hashes(4)
            .unwrap();
        f.insert(&1u8).unwrap();
        assert!(f.count_ones() >= 1 && f.count_ones() <= 4);
        let before = f.count_ones();
        f.insert(&1u8).unwrap();
        assert_eq!(f.count_ones(), before);
    }

    #[test]
    fn union_is_the_filter_of_both_sets() {
        let build = || {
            BloomFilter::with_fp_rate(0.01)
                .seed(9)
                .expected_items(1000)
                .unwrap()
        };
        let (mut a, mut b, mut both) = (build(), build(), build());
        for i in 0..500u32 {
            a.insert(&i).unwrap();
            both.insert(&i).unwrap();
        }
        for i in 400..900u32 {
            b.insert(&i).unwrap();
            both.insert(&i).unwrap();
        }
        let mut u = a.clone();
        u.union(&b).unwrap();
        assert_eq!(u.count_ones(), both.count_ones());
        assert!((0..900u32).all(|i| u.contains(&i)));
        let mut n = a.clone();
        n.intersect(&b).unwrap();
        assert!((400..500u32).all(|i| n.contains(&i)));
        assert!(n.count_ones() <= a.count_ones().min(b.count_ones()));
    }

    #[test]
    fn union_names_the_mismatch() {
        let a = BloomFilter::with_num_bits(1000).seed(1).hashes(3).unwrap();
        let mut b = BloomFilter::with_num_bits(2000).seed(1).hashes(3).unwrap();
        let err = b.union(&a).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Incompatible {
                    parameter: "bits",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("2000 vs 1000"), "{err}");
        let mut c = BloomFilter::with_num_bits(1000).seed(1).hashes(4).unwrap();
        assert!(matches!(
            c.union(&a),
            Err(Error::Incompatible {
                parameter: "hashes",
                ..
            })
        ));
        let mut d = BloomFilter::with_num_bits(1000).seed(2).hashes(3).unwrap();
        d.insert("x").unwrap();
        let before = d.clone();
        assert!(matches!(
            d.intersect(&a),
            Err(Error::Incompatible {
                parameter: "hash key",
                ..
            })
        ));
        assert_eq!(d, before, "a failed combine changes nothing");
    }

    #[test]
    fn estimated_items_tracks_distinct_items() {
        let mut f = BloomFilter::with_fp_rate(0.01)
            .seed(5)
            .expected_items(10_000)
            .unwrap();
        for i in 0..5_000u32 {
            f.insert(&i).unwrap();
            f.insert(&i).unwrap();
        }
        assert_eq!(f.len(), 10_000);
        let est = f.estimated_items();
        // sd of the estimate is about 1 % here; 5 % is far outside it.
        assert!((est - 5_000.0).abs() < 250.0, "{est}");
    }

    #[test]
    fn fill_and_estimated_fp_rate_at_capacity() {
        let n = 20_000;
        let mut f = BloomFilter::with_fp_rate(0.01)
            .seed(11)
            .expected_items(n)
            .unwrap();
        assert_eq!(f.estimated_fp_rate(), 0.0);
        for i in 0..n as u64 {
            f.insert(&i).unwrap();
        }
        // Half full at the optimum; (1/2)^7 ≈ 0.0078 ≤ 0.01.
        assert!((f.fill_ratio() - 0.5).abs() < 0.02, "{}", f.fill_ratio());
        let est = f.estimated_fp_rate();
        assert!(est > 0.005 && est < 0.0125, "{est}");
    }

    #[test]
    fn num_bits_builder_sets_capacity_at_half_fill() {
        let f = BloomFilter::with_num_bits(1_000_000)
            .seed(1)
            .hashes(7)
            .unwrap();
        assert_eq!(f.bits(), 1_000_000);
        assert_eq!(f.capacity(), 99_021); // ⌊10^6 · ln 2 / 7⌋
        assert!((f.fp_rate() - 0.5f64.powi(7)).abs() < 1e-4);
    }

    #[test]
    fn builder_errors() {
        assert!(BloomFilter::with_num_bits(0).hashes(3).is_err());
        assert!(BloomFilter::with_num_bits(100).hashes(0).is_err());
        assert!(BloomFilter::with_num_bits(100).hashes(1000).is_err());
        let bits = approxset_core::sizing::classic_params(1_000_000, 0.01)
            .unwrap()
            .bits();
        let needed = u128::from(bits.div_ceil(64) * 8);
        assert_eq!(
            BloomFilter::with_fp_rate(0.01)
                .max_bytes(1024)
                .expected_items(1_000_000),
            Err(Error::TooLarge {
                needed,
                limit: 1024
            })
        );
        assert!(
            BloomFilter::with_fp_rate(0.01)
                .max_bytes(needed as usize)
                .expected_items(1_000_000)
                .is_ok()
        );
        assert!(matches!(
            BloomFilter::with_num_bits(u64::MAX).hashes(3),
            Err(Error::TooLarge { .. })
        ));
        assert!(BloomFilter::new(0, 0.5).is_err());
        assert!(BloomFilter::new(10, 0.0).is_err());
    }
}
