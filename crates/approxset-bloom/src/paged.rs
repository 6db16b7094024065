//! Bloom filters read page by page from a version-4 file
//! ([`Pages`](approxset_core::format::Pages)): the owned filter's lookups
//! over words that come from checked pages, so a lookup reads only the
//! pages it touches and only bytes that are the bytes written. What
//! `approxset query` answers from (`docs/design.md`, "Damaged files").

use std::sync::Arc;

use approxset_core::format::{PagedWords, Pages, Reader, Words, Writer};
use approxset_core::{Result, Value};

use crate::bits::{BitVec, bit};
use crate::bloom::Bloom;
use crate::cell_traits::{CellsRead, sealed};
use crate::counters::{Counters, counter};
use crate::layout::{Classic, Layout};
use crate::words::check_words;

/// The bits of a saved Bloom filter read through checked pages.
#[derive(Clone, Debug)]
pub struct PagedBits {
    words: PagedWords,
    len: u64,
}

/// The 4-bit counters of a saved counting filter read through checked
/// pages.
#[derive(Clone, Debug)]
pub struct PagedCounters {
    words: PagedWords,
    len: u64,
}

impl sealed::Sealed for PagedBits {}
impl sealed::Sealed for PagedCounters {}

/// Reads `len` cells of `per_word` to a word through `pages`, checked as
/// a view checks them (the last word read).
fn paged_words(
    r: &mut Reader<'_>,
    len: u64,
    per_word: u64,
    what: &str,
    pages: &Arc<Pages>,
) -> Result<PagedWords> {
    let words = r.paged_words(len.div_ceil(per_word), what, pages)?;
    check_words(&words, len, per_word, what)?;
    match pages.error() {
        Some(e) => Err(e),
        None => Ok(words),
    }
}

impl<L: Layout> CellsRead<L> for PagedBits {
    const NAME: &'static str = <BitVec as CellsRead<L>>::NAME;
    const TAG: u8 = <BitVec as CellsRead<L>>::TAG;
    const PER_WORD: u64 = 64;
    const WHAT: &'static str = "bits";

    fn write_words(&self, w: &mut Writer) {
        w.words_from(&self.words);
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        crate::bits::count_ones(&self.words)
    }
    fn memory_bytes(&self) -> usize {
        self.words.word_count() * 8
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        bit(&self.words, index)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![("ones", CellsRead::<L>::nonzero(self).into())]
    }
}

impl CellsRead<Classic> for PagedCounters {
    const NAME: &'static str = <Counters as CellsRead<Classic>>::NAME;
    const TAG: u8 = <Counters as CellsRead<Classic>>::TAG;
    const PER_WORD: u64 = 16;
    const WHAT: &'static str = "counters";

    fn write_words(&self, w: &mut Writer) {
        w.words_from(&self.words);
    }
    fn cell_count(&self) -> u64 {
        self.len
    }
    fn nonzero(&self) -> u64 {
        crate::counters::count_nibbles(&self.words).0
    }
    fn memory_bytes(&self) -> usize {
        self.words.word_count() * 8
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        counter(&self.words, index) != 0
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        let (nonzero, saturated) = crate::counters::count_nibbles(&self.words);
        vec![("nonzero", nonzero.into()), ("saturated", saturated.into())]
    }
}

impl<L: Layout> Bloom<L, BitVec> {
    /// The filter saved in the version-4 file that `pages` reads, its
    /// lookups reading the bits page by page, each page checked against
    /// the page table when first read. Every check of
    /// [`view`](Self::view) is made; a lookup that meets a page that
    /// cannot be read or is not as written records it in `pages`
    /// ([`Pages::error`]), and its answer must then be discarded.
    ///
    /// # Errors
    /// As [`view`](Self::view), and as [`Pages::page`].
    pub fn open_paged(pages: &Arc<Pages>) -> Result<Bloom<L, PagedBits>> {
        let mut r = Reader::open_variant_paged(pages, <BitVec as CellsRead<L>>::TAG)?;
        let key = r.key();
        let p = Bloom::<L, PagedBits>::read_params(&mut r)?;
        let words = paged_words(&mut r, p.cells, 64, "bits", pages)?;
        r.finish()?;
        Ok(Bloom::from_parts(
            p,
            PagedBits {
                words,
                len: p.cells,
            },
            key,
        ))
    }
}

impl Bloom<Classic, Counters> {
    /// The counting filter saved in the version-4 file that `pages` reads,
    /// as [`Bloom::<L, BitVec>::open_paged`](Bloom::open_paged) opens a
    /// Bloom filter.
    ///
    /// # Errors
    /// As [`view`](Self::view), and as [`Pages::page`].
    pub fn open_paged(pages: &Arc<Pages>) -> Result<Bloom<Classic, PagedCounters>> {
        let mut r = Reader::open_variant_paged(pages, <Counters as CellsRead<Classic>>::TAG)?;
        let key = r.key();
        let p = Bloom::<Classic, PagedCounters>::read_params(&mut r)?;
        let words = paged_words(&mut r, p.cells, 16, "counters", pages)?;
        r.finish()?;
        Ok(Bloom::from_parts(
            p,
            PagedCounters {
                words,
                len: p.cells,
            },
            key,
        ))
    }
}
