//! Counter storage of the counting Bloom filter: 4-bit counters packed
//! sixteen to a `u64`, saturating (sticky) at 15.

use approxset_core::Result;
use approxset_core::format::Words;
use approxset_core::sizing::zeroed_words;

use crate::words::check_words;

/// The value at which a counter sticks.
pub(crate) const SATURATED: u8 = 15;

/// The word and the shift of counter `index`.
#[inline(always)]
pub(crate) fn locate(index: u64) -> (usize, u32) {
    ((index >> 4) as usize, ((index & 15) * 4) as u32)
}

/// `word` with its counter at `shift` one up unless it is saturated, and
/// the value that counter had: the one increment of the counting filter,
/// whether its words are plain or atomic.
#[inline(always)]
pub(crate) fn step_up(word: u64, shift: u32) -> (u64, u8) {
    let old = ((word >> shift) & 0xF) as u8;
    if old < SATURATED {
        (word + (1 << shift), old)
    } else {
        (word, old)
    }
}

/// `word` with its counter at `shift` one down unless it is zero or
/// saturated (a saturated counter has lost count, so it is never
/// decremented), and the value that counter had.
#[inline(always)]
pub(crate) fn step_down(word: u64, shift: u32) -> (u64, u8) {
    let old = ((word >> shift) & 0xF) as u8;
    if old != 0 && old != SATURATED {
        (word - (1 << shift), old)
    } else {
        (word, old)
    }
}

/// Counter `index` of `words`: the one counter read of the counting filter
/// and its view.
#[inline(always)]
pub(crate) fn counter<W: Words + ?Sized>(words: &W, index: u64) -> u8 {
    words.nibble(index)
}

/// The counters of `words` above zero, and those saturated.
pub(crate) fn count_nibbles<W: Words + ?Sized>(words: &W) -> (u64, u64) {
    let (mut nonzero, mut saturated) = (0, 0);
    for w in (0..words.word_count()).map(|i| words.word(i)) {
        // Per nibble: any bit set → non-zero; all four set → saturated.
        let any = (w | w >> 1 | w >> 2 | w >> 3) & 0x1111_1111_1111_1111;
        let all = (w & w >> 1 & w >> 2 & w >> 3) & 0x1111_1111_1111_1111;
        nonzero += u64::from(any.count_ones());
        saturated += u64::from(all.count_ones());
    }
    (nonzero, saturated)
}

/// `len` 4-bit counters in `u64` words, with running counts of non-zero and
/// saturated counters.
#[derive(Clone, PartialEq, Eq)]
pub struct Counters {
    words: Vec<u64>,
    len: u64,
    nonzero: u64,
    saturated: u64,
}

impl std::fmt::Debug for Counters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters")
            .field("len", &self.len)
            .field("nonzero", &self.nonzero)
            .field("saturated", &self.saturated)
            .finish_non_exhaustive()
    }
}

impl Counters {
    /// `len` zero counters, or an error when they would pass `max_bytes`,
    /// the address space, or what the allocator can give.
    pub(crate) fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self> {
        let storage = zeroed_words(u128::from(len).div_ceil(16), max_bytes)?;
        Ok(Counters {
            words: storage,
            len,
            nonzero: 0,
            saturated: 0,
        })
    }

    /// Counters from serialized words: exactly ⌈len/16⌉ of them, with the
    /// nibbles past `len` zero.
    pub(crate) fn from_words(words: Vec<u64>, len: u64) -> Result<Self> {
        check_words(&words, len, 16, "counters")?;
        let (nonzero, saturated) = count_nibbles(&words);
        Ok(Counters {
            words,
            len,
            nonzero,
            saturated,
        })
    }

    /// The storage words.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Number of counters.
    #[inline]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Counters above zero.
    pub(crate) fn nonzero(&self) -> u64 {
        self.nonzero
    }

    /// Counters stuck at [`SATURATED`].
    pub(crate) fn saturated(&self) -> u64 {
        self.saturated
    }

    /// Bytes of storage.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The value of counter `index` (< len).
    #[inline]
    pub(crate) fn get(&self, index: u64) -> u8 {
        debug_assert!(index < self.len);
        counter(&self.words, index)
    }

    /// Adds one to counter `index` unless it is saturated; returns the value
    /// it had before.
    #[inline]
    pub(crate) fn increment(&mut self, index: u64) -> u8 {
        debug_assert!(index < self.len);
        let (word, shift) = locate(index);
        let (new, old) = step_up(self.words[word], shift);
        self.words[word] = new;
        if old < SATURATED {
            self.nonzero += u64::from(old == 0);
            self.saturated += u64::from(old + 1 == SATURATED);
        }
        old
    }

    /// Takes one from counter `index` unless it is zero or saturated (a
    /// saturated counter has lost count, so it is never decremented).
    #[inline]
    pub(crate) fn decrement(&mut self, index: u64) {
        debug_assert!(index < self.len);
        let (word, shift) = locate(index);
        let (new, old) = step_down(self.words[word], shift);
        self.words[word] = new;
        self.nonzero -= u64::from(old == 1);
    }

    /// Sets every counter to zero.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
        self.nonzero = 0;
        self.saturated = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_independent_nibbles() {
        let mut c = Counters::zeros(40, None).unwrap();
        assert_eq!(c.memory_bytes(), 24); // 40 counters → 3 words
        for _ in 0..3 {
            c.increment(17);
        }
        c.increment(16);
        c.increment(18);
        assert_eq!(
            (c.get(15), c.get(16), c.get(17), c.get(18), c.get(19)),
            (0, 1, 3, 1, 0)
        );
        assert_eq!(c.nonzero(), 3);
        c.decrement(17);
        c.decrement(16);
        assert_eq!((c.get(16), c.get(17)), (0, 2));
        assert_eq!(c.nonzero(), 2);
        // Decrementing zero does nothing (never wraps to 15).
        c.decrement(16);
        assert_eq!(c.get(16), 0);
        assert_eq!(c.get(15), 0);
    }

    #[test]
    fn saturation_is_sticky() {
        let mut c = Counters::zeros(32, None).unwrap();
        for i in 0..20 {
            let old = c.increment(31);
            assert_eq!(old, (i as u8).min(SATURATED));
        }
        assert_eq!(c.get(31), SATURATED);
        assert_eq!(c.get(30), 0, "no carry into the neighbour");
        assert_eq!(c.saturated(), 1);
        for _ in 0..40 {
            c.decrement(31);
        }
        assert_eq!(c.get(31), SATURATED, "a saturated counter never goes down");
        assert_eq!(c.nonzero(), 1);
        c.clear();
        assert_eq!((c.get(31), c.nonzero(), c.saturated()), (0, 0, 0));
    }

    #[test]
    fn from_words_recounts() {
        let mut c = Counters::zeros(20, None).unwrap();
        for _ in 0..15 {
            c.increment(3);
        }
        c.increment(19);
        c.increment(7);
        let copy = Counters::from_words(c.words().to_vec(), 20).unwrap();
        assert!(copy == c);
        assert_eq!((copy.nonzero(), copy.saturated()), (3, 1));
        // A nibble past the end set: refused.
        let mut words = c.words().to_vec();
        words[1] |= 1 << 20;
        assert!(Counters::from_words(words, 20).is_err());
        assert!(Counters::from_words(vec![0], 20).is_err());
    }

    #[test]
    fn oversize_is_an_error() {
        assert!(Counters::zeros(1 << 20, Some(100)).is_err());
        assert!(Counters::zeros(u64::MAX, None).is_err());
    }
}
