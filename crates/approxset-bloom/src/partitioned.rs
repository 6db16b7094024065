//! The partitioned Bloom filter: `k` slices of `⌈m/k⌉` bits, one position
//! per slice.

use crate::bloom::Bloom;
use crate::layout::Partitioned;

/// A partitioned Bloom filter: the bits are cut into `k` equal slices and
/// each item sets one bit in every slice, so its `k` positions never collide
/// with each other. The false-positive rate (1 − (1 − k/m)^n)^k is a hair
/// above the classic filter's at the same size; the layout is the building
/// block of scalable Bloom filters (Almeida et al. 2007).
///
/// ```
/// # extern crate approxset_bloom as approxset;
/// use approxset::PartitionedBloomFilter;
///
/// let mut filter = PartitionedBloomFilter::with_fp_rate(0.01).seed(7).expected_items(1000)?;
/// filter.extend(0..1000u32);
/// assert!((0..1000u32).all(|i| filter.contains(&i)));
/// assert_eq!(filter.bits() % u64::from(filter.hashes()), 0);
/// # Ok::<(), approxset_bloom::Error>(())
/// ```
pub type PartitionedBloomFilter = Bloom<Partitioned>;

#[cfg(test)]
mod tests {
    use super::*;
    use approxset_core::sizing::fp_rate_partitioned;

    #[test]
    fn every_item_sets_one_bit_per_slice() {
        let mut f = PartitionedBloomFilter::with_num_bits(700)
            .seed(2)
            .hashes(7)
            .unwrap();
        assert_eq!(f.bits(), 700);
        f.insert("only").unwrap();
        // Exactly k bits: positions in distinct slices cannot collide.
        assert_eq!(f.count_ones(), 7);
    }

    #[test]
    fn num_bits_round_up_to_whole_slices() {
        let f = PartitionedBloomFilter::with_num_bits(1000)
            .seed(2)
            .hashes(7)
            .unwrap();
        assert_eq!(f.bits(), 1001);
    }

    #[test]
    fn sized_filter_meets_its_formula() {
        let f = PartitionedBloomFilter::new(50_000, 0.001).unwrap();
        assert!(fp_rate_partitioned(f.bits(), 50_000, f.hashes()) <= 0.001);
        assert_eq!(f.hashes(), 10);
    }
}
