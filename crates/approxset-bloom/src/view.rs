//! Views of saved Bloom filters: a [`Bloom`] whose cells are the payload
//! of a serialized filter borrowed where it lies ([`BitsView`],
//! [`CountersView`]), answering with the owned filter's own lookup code
//! over little-endian words ([`LeWords`]). Opening one checks what
//! `from_bytes` checks but the checksum, in time independent of the size;
//! the counts of set cells are computed when first asked for.

use std::sync::OnceLock;

use approxset_core::format::{LeWords, Reader, Writer, verify_checksum};
use approxset_core::{Digest, Result, Value};

use crate::bits::{BitVec, bit, count_ones};
use crate::bloom::Bloom;
use crate::cell_traits::{CellsRead, ViewCells, sealed};
use crate::counters::{Counters, count_nibbles, counter};
use crate::layout::{Blocked, Classic, Layout, Partitioned, SplitBlock};
use crate::words::check_words;

/// A view of a saved [`BloomFilter`](crate::BloomFilter): see
/// [`Bloom::view`].
pub type BloomFilterView<'a> = Bloom<Classic, BitsView<'a>>;
/// A view of a saved [`PartitionedBloomFilter`](crate::PartitionedBloomFilter).
pub type PartitionedBloomFilterView<'a> = Bloom<Partitioned, BitsView<'a>>;
/// A view of a saved [`BlockedBloomFilter`](crate::BlockedBloomFilter) (or
/// [`AtomicBloomFilter`](crate::AtomicBloomFilter), whose file it is).
pub type BlockedBloomFilterView<'a> = Bloom<Blocked, BitsView<'a>>;
/// A view of a saved [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter).
pub type SplitBlockBloomFilterView<'a> = Bloom<SplitBlock, BitsView<'a>>;
/// A view of a saved [`CountingBloomFilter`](crate::CountingBloomFilter).
pub type CountingBloomFilterView<'a> = Bloom<Classic, CountersView<'a>>;

/// The bits of a saved Bloom filter, read where they lie: the cells of a
/// view ([`BloomFilterView`] and the other bit layouts).
#[derive(Clone)]
pub struct BitsView<'a> {
    file: &'a [u8],
    words: LeWords<'a>,
    len: u64,
    /// Counted when first asked for (O(size)), as a loaded filter does.
    ones: OnceLock<u64>,
}

impl sealed::Sealed for BitsView<'_> {}

impl<'a> BitsView<'a> {
    /// `len` bits from a reader opened on a serialized filter: exactly
    /// ⌈len/64⌉ words, the bits past `len` clear (one word read).
    pub(crate) fn read(r: &mut Reader<'a>, len: u64) -> Result<Self> {
        let words = r.le_words(len.div_ceil(64), "bits")?;
        check_words(&words, len, 64, "bits")?;
        Ok(BitsView {
            file: r.bytes(),
            words,
            len,
            ones: OnceLock::new(),
        })
    }

    fn count_ones(&self) -> u64 {
        *self.ones.get_or_init(|| count_ones(&self.words))
    }
}

impl std::fmt::Debug for BitsView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitsView")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<L: Layout> CellsRead<L> for BitsView<'_> {
    const NAME: &'static str = <BitVec as CellsRead<L>>::NAME;
    const TAG: u8 = <BitVec as CellsRead<L>>::TAG;
    const PER_WORD: u64 = <BitVec as CellsRead<L>>::PER_WORD;
    const WHAT: &'static str = <BitVec as CellsRead<L>>::WHAT;

    fn write_words(&self, w: &mut Writer) {
        w.le_words(self.words);
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        self.count_ones()
    }
    fn memory_bytes(&self) -> usize {
        self.words.bytes().len()
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        bit(&self.words, index)
    }
    #[inline]
    fn prefetch(&self, index: u64) {
        let bytes = self.words.bytes();
        let byte = (index >> 3) as usize;
        match byte.checked_div(L::BLOCK_BYTES) {
            // The byte `is_set` reads.
            None => crate::bits::prefetch(&bytes[byte]),
            // Both ends of the key's block: where the bytes lie (in a file
            // the payload starts 8 bytes past a line), a block may
            // straddle two cache lines.
            Some(block) => {
                let start = block * L::BLOCK_BYTES;
                crate::bits::prefetch(&bytes[start]);
                crate::bits::prefetch(&bytes[start + L::BLOCK_BYTES - 1]);
            }
        }
    }
    #[inline(always)]
    fn block_contains(&self, hashes: u32, digest: Digest) -> Option<bool> {
        L::block_contains(&self.words, self.len, hashes, digest)
    }
    #[inline(always)]
    fn block_contains_all(&self, digests: &[Digest], out: &mut Vec<bool>) -> bool {
        L::block_contains_all(&self.words, digests, out)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![("ones", self.count_ones().into())]
    }
}

impl<'a, L: Layout> ViewCells<'a, L> for BitsView<'a> {
    type Owned = BitVec;
    fn file(&self) -> &'a [u8] {
        self.file
    }
}

/// The 4-bit counters of a saved counting filter, read where they lie:
/// the cells of a [`CountingBloomFilterView`].
#[derive(Clone)]
pub struct CountersView<'a> {
    file: &'a [u8],
    words: LeWords<'a>,
    len: u64,
    /// (non-zero, saturated), counted when first asked for (O(size)).
    counts: OnceLock<(u64, u64)>,
}

impl sealed::Sealed for CountersView<'_> {}

impl<'a> CountersView<'a> {
    /// `len` counters from a reader opened on a serialized filter: exactly
    /// ⌈len/16⌉ words, the counters past `len` zero (one word read).
    pub(crate) fn read(r: &mut Reader<'a>, len: u64) -> Result<Self> {
        let words = r.le_words(len.div_ceil(16), "counters")?;
        check_words(&words, len, 16, "counters")?;
        Ok(CountersView {
            file: r.bytes(),
            words,
            len,
            counts: OnceLock::new(),
        })
    }

    fn counts(&self) -> (u64, u64) {
        *self.counts.get_or_init(|| count_nibbles(&self.words))
    }
}

impl std::fmt::Debug for CountersView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountersView")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl CellsRead<Classic> for CountersView<'_> {
    const NAME: &'static str = <Counters as CellsRead<Classic>>::NAME;
    const TAG: u8 = <Counters as CellsRead<Classic>>::TAG;
    const PER_WORD: u64 = <Counters as CellsRead<Classic>>::PER_WORD;
    const WHAT: &'static str = <Counters as CellsRead<Classic>>::WHAT;

    fn write_words(&self, w: &mut Writer) {
        w.le_words(self.words);
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        self.counts().0
    }
    fn memory_bytes(&self) -> usize {
        self.words.bytes().len()
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        counter(&self.words, index) != 0
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        let (nonzero, saturated) = self.counts();
        vec![("nonzero", nonzero.into()), ("saturated", saturated.into())]
    }
}

impl<'a> ViewCells<'a, Classic> for CountersView<'a> {
    type Owned = Counters;
    fn file(&self) -> &'a [u8] {
        self.file
    }
}

/// What only a view does: check its checksum, give its bytes, copy itself
/// into an owned filter.
impl<'a, L: Layout, V: ViewCells<'a, L>> Bloom<L, V> {
    /// Checks the checksum of the viewed bytes (reading each once), which
    /// [`view`](Bloom::view) leaves out: call it once on bytes from
    /// elsewhere (`docs/format.md`, "Views", says what each checks).
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    /// let f = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
    /// let mut bytes = f.to_bytes()?;
    /// bytes[100] ^= 1; // a payload bit: the view opens, verify finds it
    /// assert!(BloomFilter::view(&bytes)?.verify().is_err());
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ChecksumMismatch`](approxset_core::Error::ChecksumMismatch).
    pub fn verify(&self) -> Result<()> {
        verify_checksum(self.cells.file())
    }

    /// The serialized filter the view reads, as it was given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.cells.file()
    }

    /// An owned filter with the view's cells (a copy), which takes inserts
    /// (and removes, for the counting filter). The checksum is not checked
    /// ([`verify`](Self::verify) first for bytes from elsewhere).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`](approxset_core::Error::AllocationFailed)
    /// when the copy cannot be had.
    pub fn into_owned(self) -> Result<Bloom<L, V::Owned>> {
        Bloom::parse(Reader::open_variant_unverified(
            self.cells.file(),
            <V as CellsRead<L>>::TAG,
        )?)
    }
}

approxset_core::impl_membership!(
    borrowed ['a, L: Layout] Bloom<L, BitsView<'a>>,
    variant = L::NAME,
    batch
);
approxset_core::impl_membership!(
    borrowed ['a] Bloom<Classic, CountersView<'a>>,
    variant = "counting",
    batch
);
