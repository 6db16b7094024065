//! The owned cells of the Bloom filters: [`BitVec`] (every layout) and
//! [`Counters`] (the classic layout of the counting filter) as [`Cells`].

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::{Digest, Result, Value};

use crate::bits::BitVec;
use crate::cell_traits::{Cells, CellsRead, Combine, sealed};
use crate::counters::Counters;
use crate::layout::{Classic, Layout};
use crate::view::{BitsView, CountersView};

impl sealed::Sealed for BitVec {}
impl sealed::Sealed for Counters {}

impl<L: Layout> CellsRead<L> for BitVec {
    const NAME: &'static str = L::NAME;
    const TAG: u8 = L::TAG;
    const PER_WORD: u64 = 64;
    const WHAT: &'static str = "bits";

    fn write_words(&self, w: &mut Writer) {
        w.words(self.words());
    }
    fn cell_count(&self) -> u64 {
        BitVec::len(self)
    }
    fn nonzero(&self) -> u64 {
        self.count_ones()
    }
    fn memory_bytes(&self) -> usize {
        BitVec::memory_bytes(self)
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        self.get(index)
    }
    #[inline]
    fn prefetch(&self, index: u64) {
        crate::bits::prefetch(&self.words()[(index >> 6) as usize]);
    }
    #[inline(always)]
    fn block_contains(&self, hashes: u32, digest: Digest) -> Option<bool> {
        L::block_contains(self.words(), self.len(), hashes, digest)
    }
    #[inline(always)]
    fn block_contains_all(&self, digests: &[Digest], out: &mut Vec<bool>) -> bool {
        L::block_contains_all(self.words(), digests, out)
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![("ones", self.count_ones().into())]
    }
}

impl<L: Layout> Cells<L> for BitVec {
    type View<'a> = BitsView<'a>;

    fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self> {
        BitVec::zeros(len, max_bytes)
    }
    fn read(r: &mut Reader<'_>, len: u64) -> Result<Self> {
        BitVec::read(r, len, "bits")
    }
    fn view<'a>(r: &mut Reader<'a>, len: u64) -> Result<BitsView<'a>> {
        BitsView::read(r, len)
    }
    #[inline]
    fn add(&mut self, index: u64) -> bool {
        self.set(index)
    }
    #[inline]
    fn add_all(&mut self, positions: impl Iterator<Item = u64>) -> bool {
        self.set_all(positions) > 0
    }
    #[inline(always)]
    fn block_insert(&mut self, hashes: u32, digest: Digest) -> Option<bool> {
        self.insert_block::<L>(hashes, digest)
    }
    fn clear(&mut self) {
        BitVec::clear(self)
    }
    const COMBINES: bool = true;
    fn combine(&mut self, other: &Self, op: Combine) {
        match op {
            Combine::Union => self.union_with(other),
            Combine::Intersection => self.intersect_with(other),
        }
    }
}

impl CellsRead<Classic> for Counters {
    const NAME: &'static str = "counting";
    const TAG: u8 = tag::COUNTING;
    const PER_WORD: u64 = 16;
    const WHAT: &'static str = "counters";

    fn write_words(&self, w: &mut Writer) {
        w.words(self.words());
    }
    fn cell_count(&self) -> u64 {
        Counters::len(self)
    }
    fn nonzero(&self) -> u64 {
        Counters::nonzero(self)
    }
    fn memory_bytes(&self) -> usize {
        Counters::memory_bytes(self)
    }
    #[inline]
    fn is_set(&self, index: u64) -> bool {
        self.get(index) != 0
    }
    fn describe(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("nonzero", self.nonzero().into()),
            ("saturated", self.saturated().into()),
        ]
    }
}

impl Cells<Classic> for Counters {
    type View<'a> = CountersView<'a>;

    fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self> {
        Counters::zeros(len, max_bytes)
    }
    fn read(r: &mut Reader<'_>, len: u64) -> Result<Self> {
        Counters::from_words(r.words(len.div_ceil(16), "counters")?, len)
    }
    fn view<'a>(r: &mut Reader<'a>, len: u64) -> Result<CountersView<'a>> {
        CountersView::read(r, len)
    }
    #[inline]
    fn add(&mut self, index: u64) -> bool {
        self.increment(index) == 0
    }
    fn clear(&mut self) {
        Counters::clear(self)
    }
}
