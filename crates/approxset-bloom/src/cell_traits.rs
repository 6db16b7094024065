//! The traits of a [`Bloom`](crate::Bloom) filter's cell storage: what the
//! filter's hashing, sizing, persistence and bookkeeping are written over.

use approxset_core::format::{Reader, Writer};
use approxset_core::{Digest, Result, Value};

use crate::layout::Layout;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// The read side of a Bloom filter's cell storage: what a lookup and the
/// filter's metadata need. [`Cells`] (owned, mutable storage) extends it;
/// the views of saved bytes ([`BitsView`](crate::cells::BitsView),
/// [`CountersView`](crate::cells::CountersView)) implement it
/// alone. Sealed.
///
/// The methods are the filter's internals, hidden from the docs.
pub trait CellsRead<L: Layout>: sealed::Sealed + Send + Sync {
    /// The variant name of a filter with this storage and layout.
    const NAME: &'static str;
    /// The variant tag of the binary format.
    const TAG: u8;
    /// Cells per 64-bit word of the payload.
    #[doc(hidden)]
    const PER_WORD: u64;
    /// What the cells are called in errors (`bits`, `counters`).
    #[doc(hidden)]
    const WHAT: &'static str;

    /// Appends the storage words to a serialized filter.
    #[doc(hidden)]
    fn write_words(&self, w: &mut Writer);
    /// Number of cells.
    #[doc(hidden)]
    fn cell_count(&self) -> u64;
    /// Cells that are set (bits) or above zero (counters).
    #[doc(hidden)]
    fn nonzero(&self) -> u64;
    /// Bytes of storage.
    #[doc(hidden)]
    fn memory_bytes(&self) -> usize;
    /// Whether cell `index` is set.
    #[doc(hidden)]
    fn is_set(&self, index: u64) -> bool;
    /// Hints that cell `index` will be read soon (a batched lookup's first
    /// pass); nothing by default.
    #[doc(hidden)]
    #[inline]
    fn prefetch(&self, _index: u64) {}
    /// Whether `digest` may be present, when the layout tests a key's block
    /// at once on these cells ([`Layout::block_contains`]); `None`: test the
    /// positions one by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_contains(&self, _hashes: u32, _digest: Digest) -> Option<bool> {
        None
    }
    /// Appends to `out` whether each of `digests` may be present, when the
    /// layout tests blocks at once on these cells
    /// ([`Layout::block_contains_all`]); `false`, with nothing appended:
    /// look them up one by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_contains_all(&self, _digests: &[Digest], _out: &mut Vec<bool>) -> bool {
        false
    }
    /// The storage's own counts, by name, for `parameters`.
    #[doc(hidden)]
    fn describe(&self) -> Vec<(&'static str, Value)>;
    /// Inserts made through `&self` (atomic storage), not yet in the
    /// filter's `len` field.
    #[doc(hidden)]
    fn shared_len(&self) -> usize {
        0
    }
}

/// Owned cell storage for a Bloom filter of layout `L`. Sealed: bits for
/// every layout, counters for the classic layout (the counting filter),
/// atomic words for the blocked layout.
///
/// The methods are the filter's internals, hidden from the docs.
pub trait Cells<L: Layout>: CellsRead<L> + Clone + PartialEq + 'static {
    /// The storage of a view of a saved filter with these cells: the same
    /// lookups, over the saved bytes where they lie.
    type View<'a>: ViewCells<'a, L>;

    /// `len` empty cells, within `max_bytes`.
    #[doc(hidden)]
    fn zeros(len: u64, max_bytes: Option<usize>) -> Result<Self>;
    /// `len` cells read from a serialized filter, validated.
    #[doc(hidden)]
    fn read(r: &mut Reader<'_>, len: u64) -> Result<Self>;
    /// `len` cells of a serialized filter borrowed where they lie, checked
    /// as [`read`](Self::read) checks them in time independent of `len`.
    #[doc(hidden)]
    fn view<'a>(r: &mut Reader<'a>, len: u64) -> Result<Self::View<'a>>;
    /// Records an item at cell `index`; `true` when the cell was empty.
    #[doc(hidden)]
    fn add(&mut self, index: u64) -> bool;
    /// Records an item at every one of `positions`, in order, as
    /// [`add`](Self::add) on each would (counters count a position given
    /// twice twice); `true` when any cell was empty. Bits override it to
    /// set a key's bits in one pass.
    #[doc(hidden)]
    #[inline]
    fn add_all(&mut self, positions: impl Iterator<Item = u64>) -> bool {
        positions.fold(false, |changed, pos| self.add(pos) | changed)
    }
    /// Records `digest` with `hashes` probes (whether a cell changed), when
    /// the layout sets a key's block at once on these cells
    /// ([`Layout::block_insert`]); `None`, with nothing done: set the
    /// positions one by one.
    #[doc(hidden)]
    #[inline(always)]
    fn block_insert(&mut self, _hashes: u32, _digest: Digest) -> Option<bool> {
        None
    }
    /// Empties every cell.
    #[doc(hidden)]
    fn clear(&mut self);
    /// Whether two filters of this storage combine cell by cell
    /// ([`combine`](Self::combine)): bits do; counters and atomic words do
    /// not (yet).
    #[doc(hidden)]
    const COMBINES: bool = false;
    /// Combines `other` (of the same length) into these cells: OR for a
    /// union, AND for an intersection. Called only when
    /// [`COMBINES`](Self::COMBINES); changes nothing otherwise.
    #[doc(hidden)]
    fn combine(&mut self, _other: &Self, _op: Combine) {}
}

/// The cell storage of a view: saved cells borrowed from the bytes of a
/// whole serialized filter, which it keeps for
/// [`verify`](crate::Bloom::verify) and
/// [`into_owned`](crate::Bloom::into_owned). Sealed.
pub trait ViewCells<'a, L: Layout>: CellsRead<L> + Clone {
    /// The owned storage a copy of the view has.
    type Owned: Cells<L>;
    /// The whole serialized filter the cells are part of.
    #[doc(hidden)]
    fn file(&self) -> &'a [u8];
}

/// How [`Cells::combine`] merges two filters' cells.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Set where either is set.
    Union,
    /// Set where both are set.
    Intersection,
}
