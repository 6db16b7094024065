//! Bit storage shared by the Bloom filters: a fixed-length bit array in
//! 64-bit words that keeps its count of set bits.

use std::sync::OnceLock;

use approxset_core::format::{Payload, Reader, Words};
use approxset_core::sizing::check_memory;
use approxset_core::{Digest, Error, Result};

use crate::layout::Layout;
use crate::words::check_words;

/// A fixed-length array of bits in `u64` words, with a running count of ones.
///
/// The words start on a 64-byte boundary, so each 512-bit block of the
/// blocked layout is one cache line: the buffer has room for seven spare
/// words and `offset` skips to the boundary (safe code; the buffer never
/// reallocates).
///
/// Bits past `len` in the last word are always zero. The count is kept up to
/// date by `set` once known, but a loaded or merged array
/// counts its ones only when first asked: loading then costs one copy of
/// the words, not a copy and a population count (a third of the load time
/// of a 10⁸-bit filter), and a filter that is only queried never pays it.
pub struct BitVec {
    buf: Vec<u64>,
    offset: usize,
    len: u64,
    ones: OnceLock<u64>,
}

impl PartialEq for BitVec {
    fn eq(&self, other: &Self) -> bool {
        // The count follows from the words.
        self.len == other.len && self.words() == other.words()
    }
}

impl Eq for BitVec {}

impl Clone for BitVec {
    fn clone(&self) -> Self {
        let (mut buf, offset) =
            aligned(self.words().len(), None).expect("as large as the original");
        buf.extend_from_slice(self.words());
        BitVec {
            buf,
            offset,
            len: self.len,
            ones: self.ones.clone(),
        }
    }
}

impl std::fmt::Debug for BitVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitVec")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// An empty buffer with room for `words` words after the 64-byte boundary
/// it starts at, holding the `offset` zero words before that boundary.
fn aligned(words: usize, max_bytes: Option<usize>) -> Result<(Vec<u64>, usize)> {
    let bytes = check_memory((words as u128) * 8, max_bytes)?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(words + 7)
        .map_err(|_| Error::AllocationFailed { bytes })?;
    // Words from the buffer's start to the next 64-byte boundary.
    let offset = (buf.as_ptr() as usize).wrapping_neg() % 64 / 8;
    buf.resize(offset, 0);
    Ok((buf, offset))
}

impl BitVec {
    /// `len` zero bits, or an error when they would pass `max_bytes`, the
    /// address space, or what the allocator can give.
    pub(crate) fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self> {
        let words = usize::try_from(len.div_ceil(64)).map_err(|_| Error::TooLarge {
            needed: u128::from(len.div_ceil(8)),
            limit: isize::MAX as u128,
        })?;
        let (mut buf, offset) = aligned(words, max_bytes)?;
        buf.resize(offset + words, 0);
        Ok(BitVec {
            buf,
            offset,
            len,
            ones: OnceLock::from(0),
        })
    }

    /// `len` bits read from a serialized filter: exactly ⌈len/64⌉ words,
    /// with the bits past `len` clear.
    pub(crate) fn read(r: &mut Reader<'_>, len: u64, what: &str) -> Result<Self> {
        Self::read_with(r, len, what, |r, count, buf| r.words_into(count, what, buf))
    }

    /// [`read`](Self::read) with the words filled from the file in chunks
    /// ([`Payload`]), straight into the bits' own storage.
    pub(crate) fn read_streamed(
        r: &mut Reader<'_>,
        payload: &mut Payload<'_>,
        len: u64,
        what: &str,
    ) -> Result<Self> {
        Self::read_with(r, len, what, |r, count, buf| {
            payload.words_into(r, count, what, buf)
        })
    }

    /// `len` bits whose ⌈len/64⌉ words `fill` appends to aligned storage.
    fn read_with<'a>(
        r: &mut Reader<'a>,
        len: u64,
        what: &str,
        fill: impl FnOnce(&mut Reader<'a>, u64, &mut Vec<u64>) -> Result<()>,
    ) -> Result<Self> {
        let count = len.div_ceil(64);
        // The reader checks the count against its input before this
        // allocation, which is bounded by the same check.
        let rest = r.remaining() as u64;
        if count > rest / 8 {
            return Err(Error::corrupt(format!(
                "{what} claims {count} words, the payload has {rest} bytes"
            )));
        }
        let (mut buf, offset) = aligned(count as usize, None)?;
        fill(r, count, &mut buf)?;
        Self::checked(buf, offset, len)
    }

    /// The bits from words: exactly ⌈len/64⌉ of them, with the bits past
    /// `len` clear (one copy, into aligned storage).
    pub(crate) fn from_words_iter(
        words: impl ExactSizeIterator<Item = u64>,
        len: u64,
    ) -> Result<Self> {
        let (mut buf, offset) = aligned(words.len(), None)?;
        buf.extend(words);
        Self::checked(buf, offset, len)
    }

    /// [`from_words_iter`](Self::from_words_iter) of a vector, for tests.
    #[cfg(test)]
    pub(crate) fn from_words(words: Vec<u64>, len: u64) -> Result<Self> {
        Self::from_words_iter(words.into_iter(), len)
    }

    fn checked(buf: Vec<u64>, offset: usize, len: u64) -> Result<Self> {
        check_words(&buf[offset..], len, 64, "bits")?;
        Ok(BitVec {
            buf,
            offset,
            len,
            ones: OnceLock::new(),
        })
    }

    /// The storage words.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.buf[self.offset..]
    }

    #[inline]
    fn words_mut(&mut self) -> &mut [u64] {
        &mut self.buf[self.offset..]
    }

    /// Number of bits.
    #[inline]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Number of bits set.
    #[inline]
    pub(crate) fn count_ones(&self) -> u64 {
        *self.ones.get_or_init(|| count_ones(self.words()))
    }

    /// Bytes of storage.
    #[inline]
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words().len() * 8
    }

    /// Whether bit `index` is set. `index < len`.
    #[inline]
    pub(crate) fn get(&self, index: u64) -> bool {
        debug_assert!(index < self.len);
        bit(self.words(), index)
    }

    /// Sets bit `index`; returns whether it was clear before. `index < len`.
    #[inline]
    pub(crate) fn set(&mut self, index: u64) -> bool {
        debug_assert!(index < self.len);
        let word = &mut self.words_mut()[(index >> 6) as usize];
        let mask = 1u64 << (index & 63);
        let was_clear = *word & mask == 0;
        *word |= mask;
        if let Some(ones) = self.ones.get_mut() {
            *ones += u64::from(was_clear);
        }
        was_clear
    }

    /// Sets the bit at every one of `positions` (each `< len`), a key's `k`
    /// bits in one pass: the count of ones is looked up and updated once,
    /// not once a bit. Returns how many bits were clear before (a position
    /// given twice counts once), so the bits and the count end as `set` on
    /// each position would leave them.
    #[inline]
    pub(crate) fn set_all(&mut self, positions: impl Iterator<Item = u64>) -> u32 {
        let words = &mut self.buf[self.offset..];
        let mut new = 0;
        for index in positions {
            debug_assert!(index < self.len);
            let word = &mut words[(index >> 6) as usize];
            let mask = 1 << (index & 63);
            new += u32::from(*word & mask == 0);
            *word |= mask;
        }
        if let Some(ones) = self.ones.get_mut() {
            *ones += u64::from(new);
        }
        new
    }

    /// Sets the bits of `digest` by the layout's block operation
    /// ([`Layout::block_insert`]), keeping the count; whether any was
    /// clear, or `None` (nothing done) for a layout without one.
    #[inline(always)]
    pub(crate) fn insert_block<L: Layout>(&mut self, hashes: u32, digest: Digest) -> Option<bool> {
        let bits = self.len;
        let new = L::block_insert(self.words_mut(), bits, hashes, digest)?;
        if let Some(ones) = self.ones.get_mut() {
            *ones += u64::from(new);
        }
        Some(new > 0)
    }

    /// Clears every bit.
    pub(crate) fn clear(&mut self) {
        self.words_mut().fill(0);
        self.ones = OnceLock::from(0);
    }

    /// Clears the bits `start..end` (`end ≤ len`), keeping the count.
    pub(crate) fn clear_range(&mut self, start: u64, end: u64) {
        debug_assert!(start <= end && end <= self.len);
        if let Some(ones) = self.ones.get_mut() {
            *ones -= count_ones_range(&self.buf[self.offset..], start, end);
        }
        for_range(start, end, |word, mask| {
            self.buf[self.offset + word] &= !mask;
        });
    }

    /// The bits set in `start..end` (`end ≤ len`).
    pub(crate) fn count_ones_range(&self, start: u64, end: u64) -> u64 {
        debug_assert!(start <= end && end <= self.len);
        count_ones_range(self.words(), start, end)
    }

    /// `self |= other`; both have the same length.
    pub(crate) fn union_with(&mut self, other: &BitVec) {
        debug_assert_eq!(self.len, other.len);
        for (a, b) in self.words_mut().iter_mut().zip(other.words()) {
            *a |= *b;
        }
        self.ones = OnceLock::new();
    }

    /// `self &= other`; both have the same length.
    pub(crate) fn intersect_with(&mut self, other: &BitVec) {
        debug_assert_eq!(self.len, other.len);
        for (a, b) in self.words_mut().iter_mut().zip(other.words()) {
            *a &= *b;
        }
        self.ones = OnceLock::new();
    }
}

/// Bit `index` of `words` (bit `i` of word `i / 64`): the one bit read of
/// the filters and their views.
#[inline(always)]
pub(crate) fn bit<W: Words + ?Sized>(words: &W, index: u64) -> bool {
    words.bit(index)
}

/// Calls `each(word, mask)` for every word holding bits of `start..end`,
/// `mask` selecting those bits.
fn for_range(start: u64, end: u64, mut each: impl FnMut(usize, u64)) {
    let mut pos = start;
    while pos < end {
        let word = pos >> 6;
        let lo = pos & 63;
        let hi = (end - (word << 6)).min(64);
        let mask = (u64::MAX >> (64 - (hi - lo))) << lo;
        each(word as usize, mask);
        pos = (word + 1) << 6;
    }
}

/// The bits set in `start..end` of `words`.
fn count_ones_range(words: &[u64], start: u64, end: u64) -> u64 {
    let mut ones = 0;
    for_range(start, end, |word, mask| {
        ones += u64::from((words[word] & mask).count_ones());
    });
    ones
}

/// The bits set in `words`.
pub(crate) fn count_ones<W: Words + ?Sized>(words: &W) -> u64 {
    (0..words.word_count())
        .map(|i| u64::from(words.word(i).count_ones()))
        .sum()
}

/// Asks the processor to start loading the cache line holding `value`, so
/// that a read of it soon after does not wait for memory. A hint only: it
/// changes no result. A no-op where the target has no stable prefetch
/// instruction (only x86-64 has one in `core::arch` today).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 target has (it is
    // in the baseline, so `target_feature = "sse"` is always enabled there).
    // A prefetch reads nothing architecturally and never faults, whatever
    // the address; here it is a valid reference besides.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_line_aligned(b: &BitVec) -> bool {
        b.words().as_ptr() as usize % 64 == 0
    }

    #[test]
    fn words_start_on_a_cache_line() {
        for len in [1, 64, 512, 513, 100_000] {
            let mut a = BitVec::zeros(len, None).unwrap();
            assert!(is_line_aligned(&a), "{len}");
            assert_eq!(a.words().len() as u64, len.div_ceil(64));
            a.set(len - 1);
            let b = a.clone();
            assert!(is_line_aligned(&b) && b == a && b.get(len - 1));
            let c = BitVec::from_words(a.words().to_vec(), len).unwrap();
            assert!(is_line_aligned(&c) && c == a);
            assert_eq!(a.memory_bytes() as u64, len.div_ceil(64) * 8);
        }
    }

    #[test]
    fn set_get_and_count() {
        let mut b = BitVec::zeros(130, None).unwrap();
        assert_eq!(b.memory_bytes(), 24);
        assert!(b.set(0));
        assert!(b.set(129));
        assert!(!b.set(129));
        assert!(b.set(64));
        assert!(b.get(0) && b.get(64) && b.get(129));
        assert!(!b.get(1) && !b.get(63) && !b.get(128));
        assert_eq!(b.count_ones(), 3);
        b.clear();
        assert_eq!(b.count_ones(), 0);
        assert!(!b.get(129));
    }

    #[test]
    fn set_all_is_set_on_each_position() {
        let positions = [3, 64, 3, 129, 0, 64, 127];
        for loaded in [false, true] {
            let words = vec![1 << 3, 0, 0];
            let (mut one, mut all) = if loaded {
                let b = BitVec::from_words(words, 130).unwrap();
                (b.clone(), b)
            } else {
                let mut b = BitVec::zeros(130, None).unwrap();
                b.set(3);
                (b.clone(), b)
            };
            let was_clear = positions.iter().filter(|&&i| one.set(i)).count();
            // A repeated position counts once, as `set` reports it once.
            assert_eq!(all.set_all(positions.into_iter()) as usize, was_clear);
            assert_eq!(was_clear, 4);
            assert!(all == one);
            assert_eq!(all.count_ones(), 5);
            assert_eq!(all.set_all(positions.into_iter()), 0);
            assert_eq!(all.count_ones(), 5);
        }
    }

    #[test]
    fn ranges_clear_and_count_exactly() {
        for (start, end) in [
            (0, 0),
            (0, 1),
            (3, 64),
            (0, 64),
            (63, 65),
            (10, 200),
            (64, 128),
            (130, 300),
        ] {
            let mut b = BitVec::zeros(300, None).unwrap();
            for i in (0..300).step_by(3) {
                b.set(i);
            }
            let before = b.count_ones();
            let inside = (start..end).filter(|&i| b.get(i)).count() as u64;
            assert_eq!(b.count_ones_range(start, end), inside, "{start}..{end}");
            b.clear_range(start, end);
            assert_eq!(b.count_ones(), before - inside);
            assert_eq!(count_ones(b.words()), before - inside);
            for i in 0..300 {
                assert_eq!(b.get(i), i % 3 == 0 && !(start..end).contains(&i), "{i}");
            }
        }
    }

    #[test]
    fn union_and_intersection_recount() {
        let mut a = BitVec::zeros(200, None).unwrap();
        let mut b = BitVec::zeros(200, None).unwrap();
        for i in [1, 5, 100, 199] {
            a.set(i);
        }
        for i in [5, 6, 199] {
            b.set(i);
        }
        let mut u = a.clone();
        u.union_with(&b);
        assert_eq!(u.count_ones(), 5);
        assert!((0..200).all(|i| u.get(i) == (a.get(i) || b.get(i))));
        a.intersect_with(&b);
        assert_eq!(a.count_ones(), 2);
        assert!(a.get(5) && a.get(199) && !a.get(1));
    }

    #[test]
    fn loaded_bits_count_lazily_and_stay_exact() {
        let words = vec![0b1011, 1 << 63, 0b1];
        // Set before the first count, and after it.
        let mut early = BitVec::from_words(words.clone(), 130).unwrap();
        assert!(early.set(2));
        assert!(!early.set(0));
        assert_eq!(early.count_ones(), 6);
        let mut late = BitVec::from_words(words, 130).unwrap();
        assert_eq!(late.count_ones(), 5);
        assert!(late.set(2));
        assert!(!late.set(127));
        assert_eq!(late.count_ones(), 6);
        assert!(early == late);
        // Bits past the end are refused.
        assert!(BitVec::from_words(vec![0, 0, 1 << 2], 130).is_err());
    }

    #[test]
    fn memory_limits_are_errors_not_aborts() {
        assert!(matches!(
            BitVec::zeros(1 << 20, Some(1000)),
            Err(Error::TooLarge { .. })
        ));
        // 2^63 bits = 2^60 bytes: more than any machine, refused cleanly.
        assert!(BitVec::zeros(1 << 63, None).is_err());
        assert!(BitVec::zeros(8000, Some(1000)).is_ok());
    }
}
