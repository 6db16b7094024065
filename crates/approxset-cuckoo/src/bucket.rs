//! Where a digest goes: its fingerprint, its first bucket and the
//! alternate bucket, derived from the fingerprint alone (partial-key cuckoo
//! hashing).

use approxset_core::Digest;
use approxset_core::hash::{SPLITMIX64_GAMMA, mix64, reduce};

use crate::table::Width;

/// The fingerprint (1 ..= 2^f − 1) of a digest: multiply-shift of `h2` into
/// 2^f − 1 values, plus one, so 0 stays free to mark an empty slot.
#[inline(always)]
pub(crate) fn fingerprint<W: Width>(digest: Digest) -> u64 {
    reduce(digest.h2(), W::LANE) + 1
}

/// The bucket offset `H(fp)` that the alternate bucket is derived from: an
/// **odd** number in `1..buckets` (`buckets` even), from a bijective 64-bit
/// mixer (the SplitMix64 finaliser) of the fingerprint, reduced by
/// multiply-shift.
#[inline(always)]
pub(crate) fn offset(fp: u64, buckets: usize) -> usize {
    let z = mix64(fp.wrapping_mul(SPLITMIX64_GAMMA));
    2 * reduce(z, (buckets / 2) as u64) as usize + 1
}

/// The other bucket of a fingerprint in bucket `i`: `(H(fp) − i) mod B`.
///
/// It is its own inverse for every bucket count `B`:
/// `H − (H − i) ≡ i (mod B)`, so a fingerprint can always move back, and the
/// table size need not be a power of two. The table's `B` is even and `H`
/// odd, so it is never `i` itself (`2i ≡ H (mod B)` has no solution): every
/// item has two distinct buckets, one even and one odd, like the two tables
/// of classic cuckoo hashing.
#[inline(always)]
pub(crate) fn alternate(i: usize, fp: u64, buckets: usize) -> usize {
    let h = offset(fp, buckets);
    if h >= i { h - i } else { h + buckets - i }
}

/// The fingerprint and the two buckets of a digest in a table of `buckets`
/// buckets.
#[inline(always)]
pub(crate) fn locate<W: Width>(digest: Digest, buckets: usize) -> (u64, usize, usize) {
    let fp = fingerprint::<W>(digest);
    let i1 = reduce(digest.h1(), buckets as u64) as usize;
    (fp, i1, alternate(i1, fp, buckets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::splitmix;

    #[test]
    fn alternate_bucket_is_self_inverse_for_any_bucket_count() {
        let mut counts: Vec<usize> = (2..=300).collect();
        counts.extend([
            1_000_003,
            1_063_864,
            1 << 20,
            (1 << 40) + 2,
            usize::MAX / 64,
        ]);
        let mut x = 1u64;
        for &b in &counts {
            for round in 0..2_000u64 {
                x = splitmix(x);
                let fp = 1 + (x >> 48) % 65_535;
                let i = if round < 3 {
                    [0, b - 1, b / 2][round as usize]
                } else {
                    (x as usize) % b
                };
                let h = offset(fp, b);
                assert!(h < b && h % 2 == 1, "B = {b}, fp = {fp}: offset {h}");
                let j = alternate(i, fp, b);
                assert!(j < b, "B = {b}, i = {i}, fp = {fp}: {j}");
                assert_eq!(alternate(j, fp, b), i, "B = {b}, i = {i}, fp = {fp}");
                if b % 2 == 0 {
                    // Even B (every table): the two buckets always differ, one
                    // even and one odd.
                    assert_ne!(i, j, "B = {b}, fp = {fp}");
                    assert_ne!(i % 2, j % 2);
                }
            }
        }
    }

    #[test]
    fn alternate_buckets_spread_over_the_table() {
        // The offsets of the 255 eight-bit fingerprints hit many buckets, so the
        // fingerprints of one bucket scatter when kicked.
        let b = 1_000_002;
        let mut seen: Vec<usize> = (1..=255).map(|fp| offset(fp, b)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert!(seen.len() >= 250, "{}", seen.len());
        // And every odd offset in a small table is reached.
        let b = 16;
        let mut seen: Vec<usize> = (1..=255).map(|fp| offset(fp, b)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, vec![1, 3, 5, 7, 9, 11, 13, 15]);
    }

    fn fingerprints_in_range<W: Width>(coverage: bool) {
        let f = W::BITS;
        let max = (1u64 << f) - 1;
        assert_eq!(W::LANE, max);
        for h2 in [0, 1, u64::MAX, u64::MAX - 1, 1 << 63] {
            let fp = fingerprint::<W>(Digest::new(0, h2));
            assert!((1..=max).contains(&fp), "F = {f}: {fp}");
        }
        assert_eq!(fingerprint::<W>(Digest::new(0, 0)), 1);
        assert_eq!(fingerprint::<W>(Digest::new(0, u64::MAX)), max);
        for i in 0..10_000 {
            let fp = fingerprint::<W>(Digest::new(0, splitmix(i)));
            assert!((1..=max).contains(&fp), "F = {f}: {fp}");
        }
        if !coverage {
            return;
        }
        // Every value 1..=2^F − 1 is reached, about equally often.
        let mut counts = vec![0u32; (max + 1) as usize];
        let draws = 64 * (max + 1);
        for i in 0..draws {
            counts[fingerprint::<W>(Digest::new(0, splitmix(i))) as usize] += 1;
        }
        assert_eq!(counts[0], 0, "F = {f}: fingerprint 0");
        // Each count is about Poisson(64): P(count < 8) < 1e-17 and
        // P(count > 128) < 1e-11, so over the fewer than 80,000 values of
        // the widths checked a false alarm has probability below 1e-6.
        for (fp, &c) in counts.iter().enumerate().skip(1) {
            assert!(
                (8..=128).contains(&c),
                "F = {f}: fingerprint {fp} drawn {c} times"
            );
        }
    }

    #[test]
    fn fingerprints_are_never_zero_and_cover_the_range() {
        use crate::table::{MAX_BITS, MIN_BITS, with_width};
        for bits in MIN_BITS..=MAX_BITS {
            let coverage = [4, 7, 8, 10, 12, 13, 16].contains(&bits);
            with_width!(bits, W => fingerprints_in_range::<W>(coverage));
        }
    }
}
