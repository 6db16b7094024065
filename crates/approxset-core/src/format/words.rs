//! Read-only sources of payload words: a filter's own `[u64]` words, or
//! the little-endian bytes of a saved payload read where they lie
//! ([`LeWords`]), at any alignment. A filter's lookups are written once
//! over [`Words`], so a view of saved bytes runs the owned filter's code.

/// Read-only `u64` words, indexed from 0: a filter's lookups are generic
/// over it, so that they read their own words or a saved payload alike.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{LeWords, Words};
/// let bytes = [1u8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
/// let le = LeWords::new(&bytes).unwrap();
/// assert_eq!((le.word_count(), le.word(1)), (2, 2));
/// assert_eq!([1u64, 2][..].word(1), le.word(1));
/// ```
pub trait Words {
    /// The number of words.
    fn word_count(&self) -> usize;

    /// Word `i`.
    ///
    /// # Panics
    /// When `i >= word_count()`, as slice indexing does.
    fn word(&self, i: usize) -> u64;

    /// Word `i`, or `None` past the end.
    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        (i < self.word_count()).then(|| self.word(i))
    }

    /// The `N` words from word `at` on, as an array (one load of `8N`
    /// bytes).
    ///
    /// # Panics
    /// When they pass the end.
    fn block<const N: usize>(&self, at: usize) -> [u64; N];

    /// Bit `index` of the words read as one bit string (bit `i % 64` of
    /// word `i / 64`).
    ///
    /// # Panics
    /// When `index` is past the end.
    #[inline(always)]
    fn bit(&self, index: u64) -> bool {
        (self.word((index >> 6) as usize) >> (index & 63)) & 1 == 1
    }

    /// The 4-bit value `index` of the words (bits `4(i % 16)…` of word
    /// `i / 16`).
    ///
    /// # Panics
    /// When `index` is past the end.
    #[inline(always)]
    fn nibble(&self, index: u64) -> u8 {
        ((self.word((index >> 4) as usize) >> ((index & 15) * 4)) & 0xF) as u8
    }

    /// The words as the format's little-endian bytes, when that is how
    /// they are held (a view's); `None` by default.
    fn le_bytes(&self) -> Option<&[u8]> {
        None
    }
}

/// Implements [`Words`] for `$ty` by handing every method to the words
/// `$inner` (of type `&$target`) that `$ty` holds: the one home of the
/// forwarding impls.
macro_rules! forward_words {
    (impl[$($generics:tt)*] $ty:ty => $target:ty, |$this:ident| $inner:expr) => {
        impl<$($generics)*> Words for $ty {
            #[inline(always)]
            fn word_count(&self) -> usize {
                let $this = self;
                <$target as Words>::word_count($inner)
            }

            #[inline(always)]
            fn word(&self, i: usize) -> u64 {
                let $this = self;
                <$target as Words>::word($inner, i)
            }

            #[inline(always)]
            fn get(&self, i: usize) -> Option<u64> {
                let $this = self;
                <$target as Words>::get($inner, i)
            }

            #[inline(always)]
            fn block<const N: usize>(&self, at: usize) -> [u64; N] {
                let $this = self;
                <$target as Words>::block($inner, at)
            }

            fn le_bytes(&self) -> Option<&[u8]> {
                let $this = self;
                <$target as Words>::le_bytes($inner)
            }
        }
    };
}

forward_words!(impl[T: Words + ?Sized] &T => T, |this| &**this);

impl Words for [u64] {
    #[inline(always)]
    fn word_count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self[i]
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        <[u64]>::get(self, i).copied()
    }

    #[inline(always)]
    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        self[at..at + N].try_into().expect("N words")
    }
}

forward_words!(impl[] Vec<u64> => [u64], |this| this.as_slice());

/// Payload words as the format stores them, little-endian bytes, read in
/// place: any alignment, any endianness of the processor, no copy. Each
/// read is `u64::from_le_bytes` of eight bytes (one unaligned load on the
/// common processors).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct LeWords<'a> {
    bytes: &'a [u8],
}

impl<'a> LeWords<'a> {
    /// The words of `bytes`, or `None` when its length is not a multiple
    /// of 8.
    pub fn new(bytes: &'a [u8]) -> Option<Self> {
        (bytes.len() % 8 == 0).then_some(LeWords { bytes })
    }

    /// The bytes, `8 · word_count()` of them.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The words in order, as `u64`s.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        self.bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
    }
}

impl std::fmt::Debug for LeWords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeWords")
            .field("words", &self.word_count())
            .finish_non_exhaustive()
    }
}

impl Words for LeWords<'_> {
    #[inline(always)]
    fn word_count(&self) -> usize {
        self.bytes.len() / 8
    }

    fn le_bytes(&self) -> Option<&[u8]> {
        Some(self.bytes)
    }

    /// One byte read: in little-endian words, bit `i` is bit `i % 8` of
    /// byte `i / 8`, so the read never straddles a cache line, wherever
    /// the bytes start.
    #[inline(always)]
    fn bit(&self, index: u64) -> bool {
        (self.bytes[(index >> 3) as usize] >> (index & 7)) & 1 == 1
    }

    /// One byte read, as [`bit`](Words::bit).
    #[inline(always)]
    fn nibble(&self, index: u64) -> u8 {
        (self.bytes[(index >> 1) as usize] >> ((index & 1) * 4)) & 0xF
    }

    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        let at = i * 8;
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"))
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<u64> {
        let at = i.checked_mul(8)?;
        let bytes = self.bytes.get(at..at.checked_add(8)?)?;
        Some(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    #[inline(always)]
    fn block<const N: usize>(&self, at: usize) -> [u64; N] {
        let bytes = &self.bytes[at * 8..(at + N) * 8];
        std::array::from_fn(|i| {
            u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn le_words_read_as_the_words_at_any_offset() {
        let words: Vec<u64> = (0..20u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for skew in 0..8 {
            let mut buf = vec![0xAAu8; skew];
            buf.extend_from_slice(&le);
            let v = LeWords::new(&buf[skew..]).unwrap();
            assert_eq!(v.word_count(), 20);
            assert!((0..20).all(|i| v.word(i) == words[i] && v.get(i) == Some(words[i])));
            assert_eq!(v.get(20), None);
            assert_eq!(v.get(usize::MAX), None);
            assert_eq!(v.block::<4>(16), words.block::<4>(16));
            assert_eq!(v.iter().collect::<Vec<_>>(), words);
            for i in 0..20 * 64 {
                assert_eq!(v.bit(i), words.bit(i), "bit {i}");
            }
            for i in 0..20 * 16 {
                assert_eq!(v.nibble(i), words.nibble(i), "nibble {i}");
            }
        }
        assert!(LeWords::new(&[0; 7]).is_none());
    }
}
