//! Saving and loading: the filter in the binary format of
//! `approxset_core::format` (tag 8, version 3), and the checks a loaded
//! filter passes.

use approxset_core::format::{Reader, tag};
use approxset_core::static_filter::{Saved, SavedHead};
use approxset_core::{Error, HashKey, Result};

use crate::BinaryFuseFilter;
use crate::filter::BinaryFuseFilterView;
use crate::fingerprint::{Cells, CellsView};
use crate::layout::Layout;

/// The first format version with the fuse tag.
pub(crate) const FORMAT_VERSION: u16 = 3;

/// Persistence in the binary format of `approxset_core::format`.
impl BinaryFuseFilter {
    approxset_core::static_view_methods!(
        filter,
        BinaryFuseFilterView,
        tag = tag::FUSE,
        head = ("fuse", FORMAT_VERSION, ["fingerprint bits", "reserved"]),
        read = read,
        errors = "The envelope errors of `approxset_core::format::Reader::open`, \
            [`Error::WrongVariant`], and [`Error::Corrupt`] for a version before 3, a \
            width other than 8, 16, 32, a nonzero reserved field, a segment length that \
            is not a power of two up to 2¹⁸, no segments, an array length other than \
            `(c + 2)·L` or past 2³² − 1 cells, more keys than cells, or a payload of the \
            wrong size.",
        cells = |saved| Cells::from_le(saved.layout, saved.fields[0], saved.payload)?,
        CellsView::new(saved.layout, saved.fields[0], saved.payload)?,
    );
}

impl<'a> BinaryFuseFilterView<'a> {
    approxset_core::static_view_methods!(view, BinaryFuseFilter, cells = |v| v.cells.to_cells());
}

/// `to_bytes` of the filter and of its view.
macro_rules! to_bytes {
    () => {
        /// The filter in the versioned binary format (see
        /// `docs/format.md`): six parameters, then the fingerprints
        /// little-endian, zero-padded to whole 8-byte words (a view writes
        /// the bytes of the filter it reads, with a checksum of its own).
        ///
        /// # Errors
        /// None: every filter serializes. The `Result` is the trait's
        /// signature.
        pub fn to_bytes(&self) -> Result<Vec<u8>> {
            let bits = self.fingerprint_bits();
            let cells = self.cells.to_le();
            Ok(write(
                self.key,
                self.seed,
                self.layout,
                self.len,
                bits,
                &cells,
            ))
        }
    };
}

impl BinaryFuseFilter {
    to_bytes!();
}

impl BinaryFuseFilterView<'_> {
    to_bytes!();
}

/// The fields past the head, checked with the head's (width, reserved
/// field, segments, array length, keys) and the fingerprints' bytes: the
/// one home of the checks of loading and viewing.
fn read(head: SavedHead, mut r: Reader<'_>) -> Result<Saved<'_, Layout>> {
    let [bits, reserved] = head.fields;
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
    let bytes = array_len * u64::from(bits / 8);
    head.finish(r, layout, len as usize, bytes, "fingerprints")
}

/// The saved form of a filter of these fields and cells (`cells` its
/// `bits`-bit fingerprints, little-endian).
fn write(key: HashKey, seed: u64, layout: Layout, len: usize, bits: u32, cells: &[u8]) -> Vec<u8> {
    let mut w = SavedHead {
        key,
        fields: [bits, 0],
        seed,
    }
    .writer(tag::FUSE, FORMAT_VERSION, cells.len() + 48);
    w.u32(layout.segment_length())
        .u32(layout.segment_count())
        .u64(layout.array_len_u64())
        .u64(len as u64)
        .bytes_padded(cells);
    w.finish()
}
