//! Saving and loading: the filter in the binary format of
//! `approxset_core::format` (tag 8, version 3), and the checks a loaded
//! filter passes.

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::{Error, Result};

use crate::BinaryFuseFilter;
use crate::fingerprint::Cells;
use crate::layout::Layout;

/// The first format version with the fuse tag.
pub(crate) const FORMAT_VERSION: u16 = 3;

/// Persistence in the binary format of `approxset_core::format`.
impl BinaryFuseFilter {
    /// The filter in the versioned binary format (see `docs/format.md`):
    /// six parameters, then the fingerprints little-endian, zero-padded to
    /// whole 8-byte words.
    ///
    /// # Errors
    /// None: every filter serializes. The `Result` is the trait's
    /// signature.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(tag::FUSE, self.key, self.memory_bytes() + 48);
        w.require_version(FORMAT_VERSION)
            .u32(self.fingerprint_bits())
            .u32(0)
            .u64(self.seed)
            .u32(self.layout.segment_length())
            .u32(self.layout.segment_count())
            .u64(self.layout.array_len_u64())
            .u64(self.len as u64)
            .bytes_padded(&self.cells.to_le());
        Ok(w.finish())
    }

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
        let mut r = Reader::open_variant(bytes, tag::FUSE)?;
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
        Ok(BinaryFuseFilter {
            cells: Cells::from_le(bits, payload),
            layout,
            seed,
            key,
            len: len as usize,
        })
    }

    approxset_core::stream_methods!();
}
