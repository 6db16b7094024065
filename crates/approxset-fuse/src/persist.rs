//! Saving and loading: the filter in the binary format of
//! `approxset_core::format` (tag 8, version 3), and the checks a loaded
//! filter passes.

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::{Error, HashKey, Result};

use crate::BinaryFuseFilter;
use crate::filter::BinaryFuseFilterView;
use crate::fingerprint::{Cells, CellsView};
use crate::layout::Layout;

/// The first format version with the fuse tag.
pub(crate) const FORMAT_VERSION: u16 = 3;

/// Persistence in the binary format of `approxset_core::format`.
impl BinaryFuseFilter {
    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// field checked against the others (so a loaded filter cannot panic
    /// or read out of bounds) and nothing larger than the input allocated.
    ///
    /// # Errors
    /// The envelope errors of `approxset_core::format::Reader::open`,
    /// [`Error::WrongVariant`], and [`Error::Corrupt`] for a version before
    /// 3, a width other than 8, 16, 32, a nonzero reserved field, a
    /// segment length that is not a power of two up to 2¹⁸, no segments,
    /// an array length other than `(c + 2)·L` or past 2³² − 1 cells, more
    /// keys than cells, or a payload of the wrong size.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let saved = Saved::read(Reader::open_variant(bytes, tag::FUSE)?)?;
        Ok(BinaryFuseFilter {
            cells: Cells::from_le(saved.bits, saved.payload),
            layout: saved.layout,
            seed: saved.seed,
            key: saved.key,
            len: saved.len,
        })
    }

    approxset_core::static_view_methods!(
        filter,
        BinaryFuseFilterView,
        tag = tag::FUSE,
        open = Self::open_view
    );

    /// The view of `bytes`, read by `r` (opened without its checksum).
    fn open_view<'a>(bytes: &'a [u8], r: Reader<'a>) -> Result<BinaryFuseFilterView<'a>> {
        let saved = Saved::read(r)?;
        Ok(BinaryFuseFilterView {
            file: bytes,
            cells: CellsView::new(saved.bits, saved.payload),
            layout: saved.layout,
            seed: saved.seed,
            key: saved.key,
            len: saved.len,
        })
    }
}

impl<'a> BinaryFuseFilterView<'a> {
    approxset_core::static_view_methods!(view);

    /// The owned filter of the same cells (a copy of the array).
    pub fn into_owned(self) -> BinaryFuseFilter {
        BinaryFuseFilter {
            cells: self.cells.to_cells(),
            layout: self.layout,
            seed: self.seed,
            key: self.key,
            len: self.len,
        }
    }
}

/// A saved filter's fields, every one checked against the others, and its
/// payload (the fingerprints' bytes) where it lies.
struct Saved<'a> {
    key: HashKey,
    bits: u32,
    seed: u64,
    layout: Layout,
    len: usize,
    payload: &'a [u8],
}

impl<'a> Saved<'a> {
    /// Reads and checks the parameters and the payload's size from `r`,
    /// opened with or without its checksum; the one home of the checks of
    /// both [`BinaryFuseFilter::from_bytes`] and [`BinaryFuseFilter::view`].
    fn read(mut r: Reader<'a>) -> Result<Self> {
        if r.version() < FORMAT_VERSION {
            return Err(Error::corrupt(format!(
                "a fuse filter in a version-{} file: the variant is new in version {FORMAT_VERSION}",
                r.version()
            )));
        }
        let key = r.key();
        let bits = r.u32("fingerprint bits")?;
        let reserved = r.u32("reserved")?;
        let seed = r.u64("seed")?;
        let segment_length = r.u32("segment length")?;
        let segment_count = r.u32("segment count")?;
        let array_len = r.u64("array length")?;
        let len = r.u64("len")?;
        if ![8, 16, 32].contains(&bits) {
            return Err(Error::corrupt(format!(
                "fingerprint width {bits} is not 8, 16 or 32"
            )));
        }
        if reserved != 0 {
            return Err(Error::corrupt(format!(
                "reserved field is {reserved}, not 0"
            )));
        }
        let layout = Layout::new(segment_length, segment_count)?;
        if array_len != layout.array_len_u64() {
            return Err(Error::corrupt(format!(
                "array length {array_len} is not ({segment_count} + 2) segments of {segment_length}"
            )));
        }
        if len > array_len {
            return Err(Error::corrupt(format!(
                "{len} keys in {array_len} cells: each key peels from a cell of its own"
            )));
        }
        // At most 2³² − 1 cells of 4 bytes: no overflow.
        let payload = r.bytes_padded(array_len * u64::from(bits / 8), "fingerprints")?;
        r.finish()?;
        Ok(Saved {
            key,
            bits,
            seed,
            layout,
            len: len as usize,
            payload,
        })
    }
}

/// The saved form of a filter of these fields and cells (`cells` its
/// `bits`-bit fingerprints, little-endian).
pub(crate) fn write(
    key: HashKey,
    seed: u64,
    layout: Layout,
    len: usize,
    bits: u32,
    cells: &[u8],
) -> Vec<u8> {
    let mut w = Writer::new(tag::FUSE, key, cells.len() + 48);
    w.require_version(FORMAT_VERSION)
        .u32(bits)
        .u32(0)
        .u64(seed)
        .u32(layout.segment_length())
        .u32(layout.segment_count())
        .u64(layout.array_len_u64())
        .u64(len as u64)
        .bytes_padded(cells);
    w.finish()
}
