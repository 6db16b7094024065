//! The packed slot storage of the cuckoo filter: `buckets` buckets of
//! [`SLOTS`] fingerprints of `f` bits each (any `f` in 4..=32), laid end to
//! end in `u64` words read as one little-endian bit string.
//!
//! A bucket is `4·f` bits and slot `j` is its bits `f·j … f·(j+1) − 1`. Up
//! to 16-bit fingerprints a bucket fits in a `u64` ([`Narrow`]): 16, 32 or
//! 64 bits for 4, 8 and 16-bit fingerprints, which never straddle a word,
//! and otherwise read from the one or two words it touches (48 bits for
//! 12-bit ones: four buckets in three words). From 17 bits on, a bucket of
//! 68 to 128 bits is read from the two or three words it touches into a
//! `u128` ([`Wide`]). Either way its four slots are compared with a
//! fingerprint at once (SWAR: SIMD within a register). The fingerprint 0
//! marks an empty slot.
//!
//! The operations that depend on the width go through the [`Width`] trait,
//! implemented by `Narrow<F>` and `Wide<F>` for a const `F`, so the filter
//! monomorphises its hot paths for every width and picks one with a single
//! `match` ([`with_width!`]).

use approxset_core::sizing::zeroed_words;
use approxset_core::{Error, Result};

/// Slots per bucket (`b` in the paper).
pub(crate) const SLOTS: usize = 4;

/// The narrowest fingerprint the table supports.
pub(crate) const MIN_BITS: u32 = 4;

/// The widest fingerprint the table supports.
pub(crate) const MAX_BITS: u32 = 32;

/// Whether the table supports `bits`-bit fingerprints: 4 ≤ bits ≤ 32.
pub(crate) fn supported(bits: u32) -> bool {
    (MIN_BITS..=MAX_BITS).contains(&bits)
}

/// Runs `$body` with the type `$w` bound to the [`Width`] of `$bits`-bit
/// fingerprints (`Narrow<F>` up to 16 bits, `Wide<F>` above): the hot paths
/// are monomorphised per width and picked by one predictable branch. `$bits`
/// must be [`supported`]; anything above 31 takes the 32-bit path.
macro_rules! with_width {
    ($bits:expr, $w:ident => $body:expr) => {
        $crate::table::with_width!(@arms $bits, $w, $body,
            [4 5 6 7 8 9 10 11 12 13 14 15 16]
            [17 18 19 20 21 22 23 24 25 26 27 28 29 30 31])
    };
    (@arms $bits:expr, $w:ident, $body:expr, [$($narrow:literal)*] [$($wide:literal)*]) => {
        match $bits {
            $($narrow => {
                type $w = $crate::table::Narrow<$narrow>;
                $body
            })*
            $($wide => {
                type $w = $crate::table::Wide<$wide>;
                $body
            })*
            _ => {
                type $w = $crate::table::Wide<32>;
                $body
            }
        }
    };
}
pub(crate) use with_width;

/// A fingerprint width: how a bucket of four `BITS`-bit lanes is read,
/// written and searched.
pub(crate) trait Width {
    /// A bucket in a register: its four lanes in the low `4·BITS` bits.
    /// Lane masks (`zero_lanes`, `matching`) are values of the same type.
    type Bucket: Copy
        + Eq
        + std::fmt::Debug
        + std::ops::BitAnd<Output = Self::Bucket>
        + std::ops::BitOr<Output = Self::Bucket>
        + std::ops::Not<Output = Self::Bucket>;
    /// Fingerprint bits `f`.
    const BITS: u32;
    /// One lane's bits, `2^f − 1`: also the number of nonzero fingerprints.
    const LANE: u64;
    /// A whole bucket's bits.
    const BUCKET: Self::Bucket;
    /// The empty bucket, and the empty lane mask.
    const ZERO: Self::Bucket;

    /// Bucket `i` of the bit string `words`.
    fn read(words: &[u64], i: usize) -> Self::Bucket;
    /// Stores `value` (no bits outside the bucket) as bucket `i`.
    fn write(words: &mut [u64], i: usize, value: Self::Bucket);
    /// The high bit of every lane of `bucket` that is zero, and no other bit.
    fn zero_lanes(bucket: Self::Bucket) -> Self::Bucket;
    /// The high bit of every lane of `bucket` that holds `fp`.
    fn matching(bucket: Self::Bucket, fp: u64) -> Self::Bucket;
    /// The number of lanes marked in `marks`.
    fn count(marks: Self::Bucket) -> u32;
    /// The lowest lane marked in `marks` (not [`ZERO`](Self::ZERO)).
    fn first(marks: Self::Bucket) -> u32;
    /// The fingerprint in `lane` of `bucket`.
    fn get(bucket: Self::Bucket, lane: u32) -> u64;
    /// `bucket` with `lane` set to `fp`.
    fn with(bucket: Self::Bucket, lane: u32, fp: u64) -> Self::Bucket;
}

/// Buckets of `F`-bit fingerprints, `F` ≤ 16, held in a `u64`.
#[derive(Debug)]
pub(crate) struct Narrow<const F: u32>;

/// Buckets of `F`-bit fingerprints, 16 < `F` ≤ 32, held in a `u128`.
#[derive(Debug)]
pub(crate) struct Wide<const F: u32>;

/// The lane constants and the SWAR operations of `$ty<F>` on buckets of
/// type `$word`; `$widen` takes a `u64` to `$word` and `$narrow` back.
macro_rules! swar_lanes {
    ($ty:ident, $word:ty, $widen:path, $narrow:path) => {
        impl<const F: u32> $ty<F> {
            /// Bits of a bucket.
            const BUCKET_BITS: u32 = F * SLOTS as u32;
            /// The low bit of every lane.
            const LSB: $word = 1 | (1 << F) | (1 << (2 * F)) | (1 << (3 * F));
            /// The high bit of every lane.
            const MSB: $word = Self::LSB << (F - 1);
            /// Every bit of every lane but the high one.
            const LOW: $word = Self::LSB * ((1 << (F - 1)) - 1);
            /// A whole bucket's bits.
            const MASK: $word = if Self::BUCKET_BITS == <$word>::BITS {
                <$word>::MAX
            } else {
                (1 << Self::BUCKET_BITS) - 1
            };
        }

        impl<const F: u32> Width for $ty<F> {
            type Bucket = $word;
            const BITS: u32 = F;
            const LANE: u64 = (1 << F) - 1;
            const BUCKET: $word = Self::MASK;
            const ZERO: $word = 0;

            #[inline(always)]
            fn read(words: &[u64], i: usize) -> $word {
                Self::read_bucket(words, i)
            }

            #[inline(always)]
            fn write(words: &mut [u64], i: usize, value: $word) {
                Self::write_bucket(words, i, value)
            }

            /// Exact per lane (unlike the shorter `(x − LSB) & !x & MSB`,
            /// whose borrows mark lanes above a zero lane), so the result can
            /// be counted.
            #[inline(always)]
            fn zero_lanes(x: $word) -> $word {
                // Per lane: (v & LOW) + LOW has its high bit set iff the low
                // bits of v are not all zero, and cannot carry into the next
                // lane.
                !(((x & Self::LOW) + Self::LOW) | x | Self::LOW) & Self::MSB
            }

            #[inline(always)]
            fn matching(bucket: $word, fp: u64) -> $word {
                Self::zero_lanes(bucket ^ $widen(fp).wrapping_mul(Self::LSB))
            }

            #[inline(always)]
            fn count(marks: $word) -> u32 {
                marks.count_ones()
            }

            #[inline(always)]
            fn first(marks: $word) -> u32 {
                marks.trailing_zeros() / F
            }

            #[inline(always)]
            fn get(bucket: $word, lane: u32) -> u64 {
                $narrow(bucket >> (lane * F)) & Self::LANE
            }

            #[inline(always)]
            fn with(bucket: $word, lane: u32, fp: u64) -> $word {
                let shift = lane * F;
                (bucket & !($widen(Self::LANE) << shift)) | ($widen(fp) << shift)
            }
        }
    };
}

swar_lanes!(Narrow, u64, std::convert::identity, std::convert::identity);
swar_lanes!(Wide, u128, u128::from, low_word);

/// The low 64 bits of `x`.
#[inline(always)]
fn low_word(x: u128) -> u64 {
    x as u64
}

/// Where bucket `i` of `bucket_bits` bits starts: its first word and the
/// bit within it.
#[inline(always)]
fn start(i: usize, bucket_bits: u32) -> (usize, u32) {
    let offset = i as u64 * u64::from(bucket_bits);
    ((offset / 64) as usize, (offset % 64) as u32)
}

impl<const F: u32> Narrow<F> {
    /// Buckets per word when they do not straddle words (4, 8 and 16-bit
    /// fingerprints), else 0.
    const PER_WORD: usize = if 64 % Self::BUCKET_BITS == 0 {
        (64 / Self::BUCKET_BITS) as usize
    } else {
        0
    };

    #[inline(always)]
    fn read_bucket(words: &[u64], i: usize) -> u64 {
        if Self::PER_WORD != 0 {
            let shift = (i % Self::PER_WORD) as u32 * Self::BUCKET_BITS;
            (words[i / Self::PER_WORD] >> shift) & Self::MASK
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let lo = words[w];
            // The next word, when there is one; its bits only matter when
            // the bucket straddles, and then it exists. `(hi << 1) <<
            // (63 − shift)` is `hi << (64 − shift)`, and 0 for shift 0.
            let hi = words.get(w + 1).copied().unwrap_or(0);
            ((lo >> shift) | ((hi << 1) << (63 - shift))) & Self::MASK
        }
    }

    #[inline(always)]
    fn write_bucket(words: &mut [u64], i: usize, value: u64) {
        if Self::PER_WORD != 0 {
            let shift = (i % Self::PER_WORD) as u32 * Self::BUCKET_BITS;
            let word = &mut words[i / Self::PER_WORD];
            *word = (*word & !(Self::MASK << shift)) | (value << shift);
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let lo = &mut words[w];
            *lo = (*lo & !(Self::MASK << shift)) | (value << shift);
            if shift + Self::BUCKET_BITS > 64 {
                let spill = 64 - shift;
                let hi = &mut words[w + 1];
                *hi = (*hi & !(Self::MASK >> spill)) | (value >> spill);
            }
        }
    }
}

impl<const F: u32> Wide<F> {
    #[inline(always)]
    fn read_bucket(words: &[u64], i: usize) -> u128 {
        if Self::BUCKET_BITS == 128 {
            u128::from(words[2 * i]) | (u128::from(words[2 * i + 1]) << 64)
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            // A bucket of more than 64 bits always reaches word w + 1; the
            // third word only matters when it straddles into it, and then it
            // exists. `(top << 1) << (127 − shift)` is `top << (128 − shift)`,
            // and 0 for shift 0.
            let low = u128::from(words[w]) | (u128::from(words[w + 1]) << 64);
            let top = u128::from(words.get(w + 2).copied().unwrap_or(0));
            ((low >> shift) | ((top << 1) << (127 - shift))) & Self::MASK
        }
    }

    #[inline(always)]
    fn write_bucket(words: &mut [u64], i: usize, value: u128) {
        if Self::BUCKET_BITS == 128 {
            words[2 * i] = value as u64;
            words[2 * i + 1] = (value >> 64) as u64;
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let low = u128::from(words[w]) | (u128::from(words[w + 1]) << 64);
            let low = (low & !(Self::MASK << shift)) | (value << shift);
            words[w] = low as u64;
            words[w + 1] = (low >> 64) as u64;
            if shift + Self::BUCKET_BITS > 128 {
                let spill = 128 - shift;
                let top = &mut words[w + 2];
                *top = (*top & !((Self::MASK >> spill) as u64)) | (value >> spill) as u64;
            }
        }
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

    /// A table from serialized words, checked: a supported width (4..=32),
    /// an even bucket count of at least 2 (the alternate-bucket map needs
    /// it), the word count the buckets take, and the padding bits clear.
    pub(crate) fn from_words(words: Vec<u64>, buckets: u64, bits: u32) -> Result<Self> {
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

    /// Bucket `i` (`i < buckets`), read with the table's width `W`.
    #[inline(always)]
    pub(crate) fn bucket<W: Width>(&self, i: usize) -> W::Bucket {
        debug_assert!(i < self.buckets && W::BITS == self.bits);
        W::read(&self.words, i)
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
        rem == 0 || self.words.last().is_none_or(|w| w >> rem == 0)
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
