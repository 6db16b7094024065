//! Filter storage that threads share: [`AtomicWords`], 64-bit words that
//! lookups read through `&self` while a writer changes them, with no lock
//! and no `unsafe`. The atomic Bloom filter's bits and the shards of a
//! [`Sharded`](crate::Sharded) filter keep their words here.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::format::Words;
use crate::sizing::check_memory;

/// 64-bit words in atomics, starting on a 64-byte boundary (a cache line),
/// read and written with `Relaxed` loads and stores: what a reader may
/// conclude from a word it read is the business of the filter that owns
/// it, which says in a comment why `Relaxed` is enough there (the
/// words carry no other data's publication: each is the datum itself).
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::atomic::AtomicWords;
/// use approxset::format::Words;
///
/// let w = AtomicWords::zeros(3, None)?;
/// w.store(1, 7);
/// assert_eq!((w.word(0), w.word(1), w.word_count()), (0, 7, 3));
/// # Ok::<(), approxset::Error>(())
/// ```
pub struct AtomicWords {
    buf: Vec<AtomicU64>,
    offset: usize,
}

impl AtomicWords {
    /// An empty buffer with room for `words` words after the 64-byte
    /// boundary it starts at, holding the zero words before that boundary.
    fn aligned(words: usize, max_bytes: Option<usize>) -> Result<Self> {
        let bytes = check_memory((words as u128) * 8, max_bytes)?;
        let mut buf: Vec<AtomicU64> = Vec::new();
        buf.try_reserve_exact(words + 7)
            .map_err(|_| Error::AllocationFailed { bytes })?;
        // Words from the buffer's start to the next 64-byte boundary.
        let offset = (buf.as_ptr() as usize).wrapping_neg() % 64 / 8;
        buf.extend((0..offset).map(|_| AtomicU64::new(0)));
        Ok(AtomicWords { buf, offset })
    }

    /// `words` zero words.
    ///
    /// # Errors
    /// [`Error::TooLarge`] past `max_bytes` or the address space,
    /// [`Error::AllocationFailed`] when the allocator refuses.
    pub fn zeros(words: usize, max_bytes: Option<usize>) -> Result<Self> {
        let mut w = Self::aligned(words, max_bytes)?;
        w.buf.extend((0..words).map(|_| AtomicU64::new(0)));
        Ok(w)
    }

    /// The words of `words`, copied.
    ///
    /// # Errors
    /// As [`zeros`](Self::zeros).
    pub fn from_words(words: impl ExactSizeIterator<Item = u64>) -> Result<Self> {
        let mut w = Self::aligned(words.len(), None)?;
        w.buf.extend(words.map(AtomicU64::new));
        Ok(w)
    }

    /// The atomics.
    #[inline(always)]
    pub fn atomics(&self) -> &[AtomicU64] {
        &self.buf[self.offset..]
    }

    /// Word `i`, a `Relaxed` load.
    ///
    /// # Panics
    /// When `i` is past the end.
    #[inline(always)]
    pub fn load(&self, i: usize) -> u64 {
        self.atomics()[i].load(Ordering::Relaxed)
    }

    /// Stores `value` as word `i`, a `Relaxed` store.
    ///
    /// # Panics
    /// When `i` is past the end.
    #[inline(always)]
    pub fn store(&self, i: usize, value: u64) {
        self.atomics()[i].store(value, Ordering::Relaxed)
    }

    /// The words in order, each a `Relaxed` load (no snapshot while a
    /// writer runs).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.atomics().iter().map(|w| w.load(Ordering::Relaxed))
    }

    /// Sets every word to zero.
    pub fn clear(&mut self) {
        for w in &mut self.buf {
            *w.get_mut() = 0;
        }
    }

    /// Word `i`, through `&mut self` (no atomic operation).
    ///
    /// # Panics
    /// When `i` is past the end.
    #[inline(always)]
    pub fn get_mut(&mut self, i: usize) -> &mut u64 {
        self.buf[self.offset + i].get_mut()
    }
}

impl Words for AtomicWords {
    #[inline(always)]
    fn word_count(&self) -> usize {
        self.buf.len() - self.offset
    }

    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self.load(i)
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        self.atomics().get(i).map(|w| w.load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        let words: &[AtomicU64; N] = self.atomics()[at..at + N].try_into().expect("N words");
        words.each_ref().map(|w| w.load(Ordering::Relaxed))
    }
}

impl Clone for AtomicWords {
    fn clone(&self) -> Self {
        AtomicWords::from_words(self.iter()).expect("as large as the original")
    }
}

impl PartialEq for AtomicWords {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for AtomicWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicWords")
            .field("words", &self.word_count())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_start_on_a_cache_line_and_round_trip() {
        for n in [0usize, 1, 7, 8, 100] {
            let w = AtomicWords::from_words((0..n).map(|i| i as u64 * 3)).unwrap();
            assert_eq!(w.word_count(), n);
            assert_eq!(w.atomics().as_ptr() as usize % 64, 0);
            assert!(w.iter().eq((0..n as u64).map(|i| i * 3)));
            let c = w.clone();
            assert!(c == w && c.atomics().as_ptr() as usize % 64 == 0);
            assert_eq!(w.get(n), None);
        }
        let mut w = AtomicWords::zeros(10, None).unwrap();
        w.store(9, u64::MAX);
        assert_eq!(w.block::<2>(8), [0, u64::MAX]);
        *w.get_mut(0) = 5;
        assert_eq!(w.load(0), 5);
        w.clear();
        assert!(w.iter().all(|x| x == 0));
        assert!(matches!(
            AtomicWords::zeros(1000, Some(100)),
            Err(Error::TooLarge { .. })
        ));
    }
}
