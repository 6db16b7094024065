//! The packed slot storage of the cuckoo filter: `buckets` buckets of
//! [`SLOTS`] fingerprints of `F` bits each, laid end to end in `u64` words.
//!
//! A bucket is `4·F` bits: 32 for 8-bit fingerprints (two buckets per word),
//! 48 for 12-bit ones (four buckets in three words, so every other bucket
//! straddles two words) and 64 for 16-bit ones (one bucket per word). A whole
//! bucket is read into one `u64`, and its four slots are compared with a
//! fingerprint at once (SWAR: SIMD within a register). The fingerprint 0
//! marks an empty slot.
//!
//! The operations that depend on the width are generic over a const `F`, so
//! the filter monomorphises its hot paths per width and picks one with a
//! single well-predicted `match`.

use approxset_core::sizing::zeroed_words;
use approxset_core::{Error, Result};

/// Slots per bucket (`b` in the paper).
pub(crate) const SLOTS: usize = 4;

/// The fingerprint widths the table supports.
pub(crate) const WIDTHS: [u32; 3] = [8, 12, 16];

/// Lane constants and SWAR operations on a bucket of four `F`-bit lanes held
/// in the low `4·F` bits of a `u64`.
pub(crate) struct Lanes<const F: u32>;

impl<const F: u32> Lanes<F> {
    /// Bits of a bucket.
    pub(crate) const BUCKET_BITS: u32 = F * SLOTS as u32;
    /// The low bit of every lane.
    const LSB: u64 = 1 | (1 << F) | (1 << (2 * F)) | (1 << (3 * F));
    /// The high bit of every lane.
    const MSB: u64 = Self::LSB << (F - 1);
    /// Every bit of every lane but the high one.
    const LOW: u64 = Self::LSB * ((1 << (F - 1)) - 1);
    /// One lane's bits.
    pub(crate) const LANE: u64 = (1 << F) - 1;
    /// A whole bucket's bits.
    pub(crate) const BUCKET: u64 = if Self::BUCKET_BITS == 64 {
        u64::MAX
    } else {
        (1 << Self::BUCKET_BITS) - 1
    };

    /// The high bit of every lane of `x` that is zero, and no other bit.
    ///
    /// Exact per lane (unlike the shorter `(x − LSB) & !x & MSB`, whose
    /// borrows mark lanes above a zero lane), so the result can be counted.
    #[inline(always)]
    pub(crate) fn zero_lanes(x: u64) -> u64 {
        // Per lane: (v & LOW) + LOW has its high bit set iff the low bits of v
        // are not all zero, and cannot carry into the next lane.
        !(((x & Self::LOW) + Self::LOW) | x | Self::LOW) & Self::MSB
    }

    /// The high bit of every lane of `bucket` that holds `fp`.
    #[inline(always)]
    pub(crate) fn matching(bucket: u64, fp: u64) -> u64 {
        Self::zero_lanes(bucket ^ fp.wrapping_mul(Self::LSB))
    }

    /// The lane of the lowest bit set in a `zero_lanes`/`matching` result
    /// (not 0).
    #[inline(always)]
    pub(crate) fn first(marks: u64) -> u32 {
        marks.trailing_zeros() / F
    }

    /// The fingerprint in `lane` of `bucket`.
    #[inline(always)]
    pub(crate) fn get(bucket: u64, lane: u32) -> u64 {
        (bucket >> (lane * F)) & Self::LANE
    }

    /// `bucket` with `lane` set to `fp`.
    #[inline(always)]
    pub(crate) fn with(bucket: u64, lane: u32, fp: u64) -> u64 {
        let shift = lane * F;
        (bucket & !(Self::LANE << shift)) | (fp << shift)
    }
}

/// Buckets of four `bits`-bit slots, packed in `u64` words.
///
/// Bits past the last bucket in the last word are always zero.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table {
    words: Vec<u64>,
    buckets: usize,
    bits: u32,
}

impl Table {
    /// `buckets` empty buckets of `bits`-bit slots (`bits` one of
    /// [`WIDTHS`], `buckets ≥ 1`), or an error when they would pass
    /// `max_bytes`, the address space, or what the allocator can give.
    pub(crate) fn new(buckets: usize, bits: u32, max_bytes: Option<usize>) -> Result<Self> {
        debug_assert!(WIDTHS.contains(&bits) && buckets >= 1);
        let storage = zeroed_words(Self::bytes_for(buckets as u128, bits) / 8, max_bytes)?;
        Ok(Table {
            words: storage,
            buckets,
            bits,
        })
    }

    /// A table from serialized words, checked: a supported width, an even
    /// bucket count of at least 2 (the alternate-bucket map needs it), the
    /// word count the buckets take, and the padding bits clear.
    pub(crate) fn from_words(words: Vec<u64>, buckets: u64, bits: u32) -> Result<Self> {
        if !WIDTHS.contains(&bits) {
            return Err(Error::corrupt(format!(
                "fingerprint width {bits} is not 8, 12 or 16"
            )));
        }
        if buckets < 2 || buckets % 2 != 0 {
            return Err(Error::corrupt(format!(
                "bucket count {buckets} is not an even number of at least 2"
            )));
        }
        let buckets = usize::try_from(buckets)
            .map_err(|_| Error::corrupt("bucket count does not fit this platform"))?;
        let expected = Self::bytes_for(buckets as u128, bits) / 8;
        if words.len() as u128 != expected {
            return Err(Error::corrupt(format!(
                "{buckets} buckets of {bits}-bit slots need {expected} words, the payload has {}",
                words.len()
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

    /// The storage words.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bytes a table of `buckets` buckets of `bits`-bit slots takes.
    pub(crate) fn bytes_for(buckets: u128, bits: u32) -> u128 {
        (buckets * SLOTS as u128 * u128::from(bits)).div_ceil(64) * 8
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

    /// Bytes of storage.
    #[inline]
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Empties every slot.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Bucket `i` (`i < buckets`), its four lanes in the low `4·F` bits.
    #[inline(always)]
    pub(crate) fn bucket<const F: u32>(&self, i: usize) -> u64 {
        debug_assert!(i < self.buckets && F == self.bits);
        match F {
            8 => (self.words[i / 2] >> ((i % 2) * 32)) & Lanes::<F>::BUCKET,
            16 => self.words[i],
            _ => {
                let offset = i as u64 * u64::from(Lanes::<F>::BUCKET_BITS);
                let w = (offset / 64) as usize;
                let shift = (offset % 64) as u32;
                let lo = self.words[w];
                // The next word, when there is one; its bits only matter when
                // the bucket straddles, and then it exists. `(hi << 1) <<
                // (63 − shift)` is `hi << (64 − shift)`, and 0 for shift 0.
                let hi = self.words.get(w + 1).copied().unwrap_or(0);
                ((lo >> shift) | ((hi << 1) << (63 - shift))) & Lanes::<F>::BUCKET
            }
        }
    }

    /// Stores `value` (its low `4·F` bits) as bucket `i`.
    #[inline(always)]
    pub(crate) fn set_bucket<const F: u32>(&mut self, i: usize, value: u64) {
        debug_assert!(i < self.buckets && F == self.bits);
        debug_assert_eq!(value & !Lanes::<F>::BUCKET, 0);
        match F {
            8 => {
                let shift = (i % 2) * 32;
                let word = &mut self.words[i / 2];
                *word = (*word & !(Lanes::<F>::BUCKET << shift)) | (value << shift);
            }
            16 => self.words[i] = value,
            _ => {
                let offset = i as u64 * u64::from(Lanes::<F>::BUCKET_BITS);
                let w = (offset / 64) as usize;
                let shift = (offset % 64) as u32;
                let lo = &mut self.words[w];
                *lo = (*lo & !(Lanes::<F>::BUCKET << shift)) | (value << shift);
                if shift + Lanes::<F>::BUCKET_BITS > 64 {
                    let spill = 64 - shift;
                    let hi = &mut self.words[w + 1];
                    *hi = (*hi & !(Lanes::<F>::BUCKET >> spill)) | (value >> spill);
                }
            }
        }
    }

    /// Puts `fp` in the first free slot of bucket `i`, whose content is
    /// `bucket` as just read; `false`, changing nothing, when it has none.
    #[inline(always)]
    pub(crate) fn put_free<const F: u32>(&mut self, i: usize, bucket: u64, fp: u64) -> bool {
        let empty = Lanes::<F>::zero_lanes(bucket);
        if empty == 0 {
            return false;
        }
        self.set_bucket::<F>(i, Lanes::<F>::with(bucket, Lanes::<F>::first(empty), fp));
        true
    }

    /// Number of occupied slots, by a scan of the whole table.
    pub(crate) fn count_occupied(&self) -> usize {
        match self.bits {
            8 => self.count_occupied_impl::<8>(),
            12 => self.count_occupied_impl::<12>(),
            _ => self.count_occupied_impl::<16>(),
        }
    }

    fn count_occupied_impl<const F: u32>(&self) -> usize {
        (0..self.buckets)
            .map(|i| {
                let b = self.bucket::<F>(i);
                SLOTS - Lanes::<F>::zero_lanes(b).count_ones() as usize
            })
            .sum()
    }

    /// Whether the bits past the last bucket are zero (an invariant).
    pub(crate) fn padding_is_clear(&self) -> bool {
        let used = self.buckets as u64 * SLOTS as u64 * u64::from(self.bits);
        let rem = used % 64;
        rem == 0 || self.words.last().is_none_or(|w| w >> rem == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes_reference<const F: u32>(bucket: u64, fp: u64) -> u64 {
        (0..4u32)
            .filter(|&j| Lanes::<F>::get(bucket, j) == fp)
            .map(|j| 1u64 << (j * F + F - 1))
            .sum()
    }

    fn swar_matches_reference<const F: u32>() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let lane = Lanes::<F>::LANE;
        for round in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Buckets with repeated lanes, zero lanes, and lanes differing in
            // one bit from the probe: the cases a sloppy SWAR gets wrong.
            let fp = (x >> 40) & lane;
            let mut bucket = 0;
            for j in 0..4 {
                let choice = (x >> (j * 3)) & 7;
                let v = match choice {
                    0 => 0,
                    1 | 2 => fp,
                    3 => fp ^ (1 << ((x >> (20 + j)) % u64::from(F))),
                    4 => 1,
                    _ => (x >> (8 * j + round % 7)) & lane,
                };
                bucket = Lanes::<F>::with(bucket, j as u32, v);
            }
            assert_eq!(bucket & !Lanes::<F>::BUCKET, 0);
            assert_eq!(
                Lanes::<F>::matching(bucket, fp),
                lanes_reference::<F>(bucket, fp),
                "F = {F}, bucket {bucket:#x}, fp {fp:#x}"
            );
            assert_eq!(
                Lanes::<F>::zero_lanes(bucket),
                lanes_reference::<F>(bucket, 0),
                "F = {F}, bucket {bucket:#x}"
            );
        }
    }

    #[test]
    fn swar_lane_matching_is_exact() {
        swar_matches_reference::<8>();
        swar_matches_reference::<12>();
        swar_matches_reference::<16>();
    }

    fn buckets_round_trip<const F: u32>(buckets: usize) {
        let mut t = Table::new(buckets, F, None).unwrap();
        let value = |i: usize| {
            let mut z = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z ^= z >> 29;
            z & Lanes::<F>::BUCKET
        };
        for i in 0..buckets {
            t.set_bucket::<F>(i, value(i));
            assert!(t.padding_is_clear());
        }
        for i in 0..buckets {
            assert_eq!(t.bucket::<F>(i), value(i), "F = {F}, bucket {i}");
        }
        // Overwrite every other bucket with all ones, then zeros: neighbours
        // keep their values.
        for i in (0..buckets).step_by(2) {
            t.set_bucket::<F>(i, Lanes::<F>::BUCKET);
        }
        for i in 0..buckets {
            let want = if i % 2 == 0 {
                Lanes::<F>::BUCKET
            } else {
                value(i)
            };
            assert_eq!(t.bucket::<F>(i), want, "F = {F}, bucket {i}");
        }
        assert!(t.padding_is_clear());
        for i in 0..buckets {
            t.set_bucket::<F>(i, 0);
        }
        assert!(t.words.iter().all(|&w| w == 0));
    }

    #[test]
    fn buckets_round_trip_at_every_width() {
        for buckets in [1, 2, 3, 4, 5, 7, 8, 33] {
            buckets_round_trip::<8>(buckets);
            buckets_round_trip::<12>(buckets);
            buckets_round_trip::<16>(buckets);
        }
    }

    #[test]
    fn twelve_bit_slots_take_twelve_bits() {
        // 1000 buckets · 4 slots · 12 bits = 48,000 bits = 750 words.
        let t = Table::new(1000, 12, None).unwrap();
        assert_eq!(t.memory_bytes(), 6000);
        // 3 buckets = 144 bits: rounded up to 3 words.
        assert_eq!(Table::new(3, 12, None).unwrap().memory_bytes(), 24);
        assert_eq!(Table::new(3, 8, None).unwrap().memory_bytes(), 16);
        assert_eq!(Table::new(3, 16, None).unwrap().memory_bytes(), 24);
        assert_eq!(Table::bytes_for(1000, 12), 6000);
    }

    #[test]
    fn memory_limits_are_errors_not_aborts() {
        assert!(matches!(
            Table::new(1 << 20, 16, Some(1000)),
            Err(Error::TooLarge { .. })
        ));
        assert!(Table::new(usize::MAX / 4, 16, None).is_err());
        assert!(Table::new(100, 16, Some(800)).is_ok());
    }
}
