//! The packed slot storage of the cuckoo filter: `buckets` buckets of
//! [`SLOTS`] fingerprints of `f` bits each (any `f` in 4..=32), laid end to
//! end in `u64` words read as one little-endian bit string. How a bucket of
//! a given width is read, written and searched is in [`crate::width`].

use approxset_core::format::Words;
use approxset_core::sizing::zeroed_words;
use approxset_core::{Error, Result};

pub(crate) use crate::width::{MAX_BITS, MIN_BITS, SLOTS, SetWords, Width, supported, with_width};

/// Buckets of four `bits`-bit slots, packed in `u64` words: the filter's
/// own (`Vec<u64>`), or a saved payload read in place (`LeWords`, a view's).
///
/// Bits past the last bucket in the last word are always zero.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table<S = Vec<u64>> {
    words: S,
    buckets: usize,
    bits: u32,
}

impl Table {
    /// `buckets` empty buckets of `bits`-bit slots (`bits` [`supported`],
    /// `buckets ≥ 1`), or an error when they would pass `max_bytes`, the
    /// address space, or what the allocator can give.
    pub(crate) fn new(buckets: usize, bits: u32, max_bytes: Option<usize>) -> Result<Self> {
        debug_assert!(supported(bits) && buckets >= 1);
        let storage = zeroed_words(Self::bytes_for(buckets as u128, bits) / 8, max_bytes)?;
        Ok(Table {
            words: storage,
            buckets,
            bits,
        })
    }

    /// Bytes a table of `buckets` buckets of `bits`-bit slots takes.
    pub(crate) fn bytes_for(buckets: u128, bits: u32) -> u128 {
        (buckets * SLOTS as u128 * u128::from(bits)).div_ceil(64) * 8
    }

    /// Empties every slot.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }
}

impl<S: SetWords> Table<S> {
    /// The words it stores into, for the hooks of [`SetWords`].
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut S {
        &mut self.words
    }

    /// Stores `value` (no bits outside a bucket) as bucket `i`.
    #[inline(always)]
    pub(crate) fn set_bucket<W: Width>(&mut self, i: usize, value: W::Bucket) {
        debug_assert!(i < self.buckets && W::BITS == self.bits);
        debug_assert_eq!(value & !W::BUCKET, W::ZERO);
        W::write(&mut self.words, i, value);
    }

    /// Puts `fp` in the first free slot of bucket `i`, whose content is
    /// `bucket` as just read; `false`, changing nothing, when it has none.
    #[inline(always)]
    pub(crate) fn put_free<W: Width>(&mut self, i: usize, bucket: W::Bucket, fp: u64) -> bool {
        let empty = W::zero_lanes(bucket);
        if empty == W::ZERO {
            return false;
        }
        self.set_bucket::<W>(i, W::with(bucket, W::first(empty), fp));
        true
    }
}

impl<S: Words> Table<S> {
    /// A table over `words` known to be one (they came from a table of
    /// `buckets` buckets of `bits`-bit slots): nothing checked.
    #[inline(always)]
    pub(crate) fn over(words: S, buckets: usize, bits: u32) -> Self {
        debug_assert_eq!(
            words.word_count() as u128,
            Table::bytes_for(buckets as u128, bits) / 8
        );
        Table {
            words,
            buckets,
            bits,
        }
    }

    /// A table from serialized words, checked: a supported width (4..=32),
    /// an even bucket count of at least 2 (the alternate-bucket map needs
    /// it), the word count the buckets take, and the padding bits clear
    /// (one word read, so a view makes every check too).
    pub(crate) fn from_words(words: S, buckets: u64, bits: u32) -> Result<Self> {
        if !supported(bits) {
            return Err(Error::corrupt(format!(
                "fingerprint width {bits} is outside {MIN_BITS}..={MAX_BITS}"
            )));
        }
        if buckets < 2 || buckets % 2 != 0 {
            return Err(Error::corrupt(format!(
                "bucket count {buckets} is not an even number of at least 2"
            )));
        }
        let buckets = usize::try_from(buckets)
            .map_err(|_| Error::corrupt("bucket count does not fit this platform"))?;
        let expected = Table::bytes_for(buckets as u128, bits) / 8;
        if words.word_count() as u128 != expected {
            return Err(Error::corrupt(format!(
                "{buckets} buckets of {bits}-bit slots need {expected} words, the payload has {}",
                words.word_count()
            )));
        }
        let table = Table {
            words,
            buckets,
            bits,
        };
        if !table.padding_is_clear() {
            return Err(Error::corrupt("slots set past the last bucket"));
        }
        Ok(table)
    }

    /// Number of buckets.
    #[inline]
    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    /// Fingerprint width in bits.
    #[inline]
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    /// The storage words.
    pub(crate) fn words(&self) -> &S {
        &self.words
    }

    /// Bytes of storage.
    #[inline]
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.word_count() * 8
    }

    /// Bucket `i` (`i < buckets`), read with the table's width `W`.
    #[inline(always)]
    pub(crate) fn bucket<W: Width>(&self, i: usize) -> W::Bucket {
        debug_assert!(i < self.buckets && W::BITS == self.bits);
        W::read(&self.words, i)
    }

    /// Number of occupied slots, by a scan of the whole table.
    pub(crate) fn count_occupied(&self) -> usize {
        with_width!(self.bits, W => self.count_occupied_impl::<W>())
    }

    fn count_occupied_impl<W: Width>(&self) -> usize {
        (0..self.buckets)
            .map(|i| SLOTS - W::count(W::zero_lanes(self.bucket::<W>(i))) as usize)
            .sum()
    }

    /// Whether the bits past the last bucket are zero (an invariant).
    pub(crate) fn padding_is_clear(&self) -> bool {
        let used = self.buckets as u64 * SLOTS as u64 * u64::from(self.bits);
        let rem = used % 64;
        let count = self.words.word_count();
        rem == 0 || count == 0 || self.words.word(count - 1) >> rem == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `$check::<W>($args)` for the [`Width`] of every supported width.
    macro_rules! for_every_width {
        ($check:ident ( $($arg:expr),* )) => {
            for bits in MIN_BITS..=MAX_BITS {
                with_width!(bits, W => $check::<W>($($arg),*));
            }
        };
    }

    /// A bucket as a bit string of `4·f` bits, lane 0 lowest.
    fn lanes_of<W: Width>(bucket: W::Bucket) -> [u64; SLOTS] {
        [0, 1, 2, 3].map(|j| W::get(bucket, j))
    }

    fn bucket_of<W: Width>(lanes: [u64; SLOTS]) -> W::Bucket {
        (0..SLOTS).fold(W::ZERO, |b, j| W::with(b, j as u32, lanes[j]))
    }

    /// The marks `matching` should give: the high bit of each lane equal to
    /// `fp`, built lane by lane.
    fn lanes_reference<W: Width>(bucket: W::Bucket, fp: u64) -> W::Bucket {
        let lanes = lanes_of::<W>(bucket);
        let high = 1 << (W::BITS - 1);
        bucket_of::<W>(lanes.map(|v| if v == fp { high } else { 0 }))
    }

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    fn swar_matches_reference<W: Width>() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let lane = W::LANE;
        for round in 0..4_000u64 {
            xorshift(&mut x);
            // Buckets with repeated lanes, zero lanes, and lanes differing in
            // one bit from the probe: the cases a sloppy SWAR gets wrong.
            let fp = (x >> 20) & lane;
            let mut lanes = [0u64; SLOTS];
            for (j, v) in lanes.iter_mut().enumerate() {
                let choice = (x >> (j * 3)) & 7;
                *v = match choice {
                    0 => 0,
                    1 | 2 => fp,
                    3 => fp ^ (1 << ((x >> (12 + j)) % u64::from(W::BITS))),
                    4 => 1,
                    5 => lane,
                    _ => (xorshift(&mut x) >> (round % 7)) & lane,
                };
            }
            let bucket = bucket_of::<W>(lanes);
            assert_eq!(lanes_of::<W>(bucket), lanes, "F = {}", W::BITS);
            assert_eq!(bucket & !W::BUCKET, W::ZERO);
            let m = W::matching(bucket, fp);
            assert_eq!(
                m,
                lanes_reference::<W>(bucket, fp),
                "F = {}, bucket {bucket:?}, fp {fp:#x}",
                W::BITS
            );
            let z = W::zero_lanes(bucket);
            assert_eq!(z, lanes_reference::<W>(bucket, 0), "F = {}", W::BITS);
            let equal = lanes.iter().filter(|&&v| v == fp).count() as u32;
            assert_eq!(W::count(m), equal);
            if equal > 0 {
                let first = lanes.iter().position(|&v| v == fp).unwrap() as u32;
                assert_eq!(W::first(m), first);
            }
        }
    }

    #[test]
    fn swar_lane_matching_is_exact_at_every_width() {
        for_every_width!(swar_matches_reference());
    }

    /// A pseudo-random bucket value of width `W`, from its four lanes.
    fn value<W: Width>(i: usize) -> W::Bucket {
        let mut z = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        bucket_of::<W>([0, 1, 2, 3].map(|_| xorshift(&mut z) & W::LANE))
    }

    fn buckets_round_trip<W: Width>(buckets: usize) {
        let f = W::BITS;
        let mut t = Table::new(buckets, f, None).unwrap();
        for i in 0..buckets {
            t.set_bucket::<W>(i, value::<W>(i));
            assert!(t.padding_is_clear());
        }
        for i in 0..buckets {
            assert_eq!(t.bucket::<W>(i), value::<W>(i), "F = {f}, bucket {i}");
        }
        // The documented layout: bucket i is bits 4f·i … 4f·(i+1) − 1 of the
        // words as one little-endian bit string, slot j its bits f·j ….
        for i in 0..buckets {
            for (j, &want) in lanes_of::<W>(value::<W>(i)).iter().enumerate() {
                let at = (4 * i + j) * f as usize;
                let got = (0..f as usize).fold(0u64, |acc, k| {
                    let bit = (t.words[(at + k) / 64] >> ((at + k) % 64)) & 1;
                    acc | (bit << k)
                });
                assert_eq!(got, want, "F = {f}, bucket {i}, slot {j}");
            }
        }
        // Overwrite every other bucket with all ones, then zeros: neighbours
        // keep their values.
        for i in (0..buckets).step_by(2) {
            t.set_bucket::<W>(i, W::BUCKET);
        }
        for i in 0..buckets {
            let want = if i % 2 == 0 { W::BUCKET } else { value::<W>(i) };
            assert_eq!(t.bucket::<W>(i), want, "F = {f}, bucket {i}");
        }
        assert!(t.padding_is_clear());
        assert_eq!(
            t.count_occupied(),
            (0..buckets)
                .map(|i| match i % 2 {
                    0 => SLOTS,
                    _ => lanes_of::<W>(value::<W>(i))
                        .iter()
                        .filter(|&&v| v != 0)
                        .count(),
                })
                .sum::<usize>()
        );
        for i in 0..buckets {
            t.set_bucket::<W>(i, W::ZERO);
        }
        assert!(t.words.iter().all(|&w| w == 0));
    }

    #[test]
    fn buckets_round_trip_at_every_width() {
        for buckets in [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 33] {
            for_every_width!(buckets_round_trip(buckets));
        }
    }

    #[test]
    fn slots_take_exactly_their_bits() {
        // 1000 buckets · 4 slots · 12 bits = 48,000 bits = 750 words.
        let t = Table::new(1000, 12, None).unwrap();
        assert_eq!(t.memory_bytes(), 6000);
        assert_eq!(Table::bytes_for(1000, 12), 6000);
        // 3 buckets = 144 bits: rounded up to 3 words.
        assert_eq!(Table::new(3, 12, None).unwrap().memory_bytes(), 24);
        assert_eq!(Table::new(3, 8, None).unwrap().memory_bytes(), 16);
        assert_eq!(Table::new(3, 16, None).unwrap().memory_bytes(), 24);
        for bits in MIN_BITS..=MAX_BITS {
            for buckets in [1usize, 2, 3, 10, 1001] {
                let t = Table::new(buckets, bits, None).unwrap();
                assert_eq!(
                    t.memory_bytes(),
                    (buckets * 4 * bits as usize).div_ceil(64) * 8,
                    "{bits} bits, {buckets} buckets"
                );
            }
        }
    }

    #[test]
    fn loaded_words_are_checked() {
        for bits in [0, 1, 3, 33, 64, u32::MAX] {
            let Err(err) = Table::from_words(vec![0; 4], 2, bits) else {
                panic!("{bits} bits loaded");
            };
            assert!(err.to_string().contains("outside 4..=32"), "{err}");
        }
        for bits in MIN_BITS..=MAX_BITS {
            let words = (8 * bits as usize).div_ceil(64);
            assert!(Table::from_words(vec![0; words], 2, bits).is_ok());
            assert!(Table::from_words(vec![0; words + 1], 2, bits).is_err());
            assert!(Table::from_words(vec![0; words - 1], 2, bits).is_err());
            assert!(Table::from_words(vec![0; words], 3, bits).is_err());
            let used = 8 * bits as usize % 64;
            if used != 0 {
                let mut padded = vec![0; words];
                padded[words - 1] = 1 << used;
                assert!(Table::from_words(padded, 2, bits).is_err(), "{bits}");
            }
        }
    }

    #[test]
    fn memory_limits_are_errors_not_aborts() {
        assert!(matches!(
            Table::new(1 << 20, 16, Some(1000)),
            Err(Error::TooLarge { .. })
        ));
        assert!(Table::new(usize::MAX / 4, 16, None).is_err());
        assert!(Table::new(usize::MAX / 4, 32, None).is_err());
        assert!(Table::new(100, 16, Some(800)).is_ok());
    }
}
