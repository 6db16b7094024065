//! Fingerprint widths of the cuckoo filter's slot table: `buckets` buckets of
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

use approxset_core::format::Words;

/// Words that a table's writer stores into: the filter's own (`Vec<u64>`)
/// or a shard's atomic ones, which readers read while the one writer
/// holding the shard's lock stores. A writer that is about to move
/// fingerprints between buckets (a kick) says so first
/// ([`begin_moves`](Self::begin_moves)) and when it is done
/// ([`end_moves`](Self::end_moves)), so that readers of shared words
/// know to look again; the plain words ignore both.
pub(crate) trait SetWords: Words {
    /// Stores `value` as word `i`.
    fn set_word(&mut self, i: usize, value: u64);
    /// Fingerprints are about to move between buckets.
    #[inline(always)]
    fn begin_moves(&mut self) {}
    /// The moves are done; the stash now holds fingerprint `stash_fp` (0:
    /// nothing) for bucket `stash_bucket`.
    #[inline(always)]
    fn end_moves(&mut self, _stash_fp: u64, _stash_bucket: usize) {}
}

impl SetWords for Vec<u64> {
    #[inline(always)]
    fn set_word(&mut self, i: usize, value: u64) {
        self[i] = value;
    }
}

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
        $crate::width::with_width!(@arms $bits, $w, $body,
            [4 5 6 7 8 9 10 11 12 13 14 15 16]
            [17 18 19 20 21 22 23 24 25 26 27 28 29 30 31])
    };
    (@arms $bits:expr, $w:ident, $body:expr, [$($narrow:literal)*] [$($wide:literal)*]) => {
        match $bits {
            $($narrow => {
                type $w = $crate::width::Narrow<$narrow>;
                $body
            })*
            $($wide => {
                type $w = $crate::width::Wide<$wide>;
                $body
            })*
            _ => {
                type $w = $crate::width::Wide<32>;
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
    fn read<S: Words + ?Sized>(words: &S, i: usize) -> Self::Bucket;
    /// Stores `value` (no bits outside the bucket) as bucket `i`.
    fn write<S: SetWords + ?Sized>(words: &mut S, i: usize, value: Self::Bucket);
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
            fn read<S: Words + ?Sized>(words: &S, i: usize) -> $word {
                Self::read_bucket(words, i)
            }

            #[inline(always)]
            fn write<S: SetWords + ?Sized>(words: &mut S, i: usize, value: $word) {
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
    fn read_bucket<S: Words + ?Sized>(words: &S, i: usize) -> u64 {
        if Self::PER_WORD != 0 {
            let shift = (i % Self::PER_WORD) as u32 * Self::BUCKET_BITS;
            (words.word(i / Self::PER_WORD) >> shift) & Self::MASK
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let lo = words.word(w);
            // The next word, when there is one; its bits only matter when
            // the bucket straddles, and then it exists. `(hi << 1) <<
            // (63 − shift)` is `hi << (64 − shift)`, and 0 for shift 0.
            let hi = words.get(w + 1).unwrap_or(0);
            ((lo >> shift) | ((hi << 1) << (63 - shift))) & Self::MASK
        }
    }

    #[inline(always)]
    fn write_bucket<S: SetWords + ?Sized>(words: &mut S, i: usize, value: u64) {
        if Self::PER_WORD != 0 {
            let shift = (i % Self::PER_WORD) as u32 * Self::BUCKET_BITS;
            let at = i / Self::PER_WORD;
            let word = words.word(at);
            words.set_word(at, (word & !(Self::MASK << shift)) | (value << shift));
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let lo = words.word(w);
            words.set_word(w, (lo & !(Self::MASK << shift)) | (value << shift));
            if shift + Self::BUCKET_BITS > 64 {
                let spill = 64 - shift;
                let hi = words.word(w + 1);
                words.set_word(w + 1, (hi & !(Self::MASK >> spill)) | (value >> spill));
            }
        }
    }
}

impl<const F: u32> Wide<F> {
    #[inline(always)]
    fn read_bucket<S: Words + ?Sized>(words: &S, i: usize) -> u128 {
        if Self::BUCKET_BITS == 128 {
            u128::from(words.word(2 * i)) | (u128::from(words.word(2 * i + 1)) << 64)
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            // A bucket of more than 64 bits always reaches word w + 1; the
            // third word only matters when it straddles into it, and then it
            // exists. `(top << 1) << (127 − shift)` is `top << (128 − shift)`,
            // and 0 for shift 0.
            let low = u128::from(words.word(w)) | (u128::from(words.word(w + 1)) << 64);
            let top = u128::from(words.get(w + 2).unwrap_or(0));
            ((low >> shift) | ((top << 1) << (127 - shift))) & Self::MASK
        }
    }

    #[inline(always)]
    fn write_bucket<S: SetWords + ?Sized>(words: &mut S, i: usize, value: u128) {
        if Self::BUCKET_BITS == 128 {
            words.set_word(2 * i, value as u64);
            words.set_word(2 * i + 1, (value >> 64) as u64);
        } else {
            let (w, shift) = start(i, Self::BUCKET_BITS);
            let low = u128::from(words.word(w)) | (u128::from(words.word(w + 1)) << 64);
            let low = (low & !(Self::MASK << shift)) | (value << shift);
            words.set_word(w, low as u64);
            words.set_word(w + 1, (low >> 64) as u64);
            if shift + Self::BUCKET_BITS > 128 {
                let spill = 128 - shift;
                let top = words.word(w + 2);
                words.set_word(
                    w + 2,
                    (top & !((Self::MASK >> spill) as u64)) | (value >> spill) as u64,
                );
            }
        }
    }
}
