//! Saving and loading: the filter in the binary format of
//! `approxset_core::format` (tag 11, version 3), and the checks a loaded
//! filter passes.

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::{Error, HashKey, Result};

use crate::RibbonFilter;
use crate::filter::RibbonFilterView;
use crate::layout::{COEFFICIENT_BITS, Layout};
use crate::ribbon::SolutionBytes;

/// The first format version with the Ribbon tag.
pub(crate) const FORMAT_VERSION: u16 = 3;

/// Persistence in the binary format of `approxset_core::format`.
impl RibbonFilter {
    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// field checked against the others (so a loaded filter cannot panic
    /// or read out of bounds) and nothing larger than the input allocated.
    ///
    /// # Errors
    /// The envelope errors of `approxset_core::format::Reader::open`,
    /// [`Error::WrongVariant`], and [`Error::Corrupt`] for a version before
    /// 3, coefficient rows other than 128 bits, more than 2³² − 1 blocks,
    /// blocks of more than 32 columns, an upper start past the blocks,
    /// columns in an empty filter, more keys than slots, keys without
    /// blocks or blocks without keys, or a payload of the wrong size.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let saved = Saved::read(Reader::open_variant(bytes, tag::RIBBON)?)?;
        let solution = saved
            .payload
            .chunks_exact(16)
            .map(|c| {
                let mut b = [0u8; 16];
                b.copy_from_slice(c);
                u128::from_le_bytes(b)
            })
            .collect();
        Ok(RibbonFilter {
            solution,
            layout: saved.layout,
            seed: saved.seed,
            key: saved.key,
            len: saved.len,
        })
    }

    approxset_core::static_view_methods!(
        filter,
        RibbonFilterView,
        tag = tag::RIBBON,
        open = Self::open_view
    );

    /// The view of `bytes`, read by `r` (opened without its checksum).
    fn open_view<'a>(bytes: &'a [u8], r: Reader<'a>) -> Result<RibbonFilterView<'a>> {
        let saved = Saved::read(r)?;
        Ok(RibbonFilterView {
            file: bytes,
            solution: SolutionBytes(saved.payload),
            layout: saved.layout,
            seed: saved.seed,
            key: saved.key,
            len: saved.len,
        })
    }
}

impl<'a> RibbonFilterView<'a> {
    approxset_core::static_view_methods!(view);

    /// The owned filter of the same solution (a copy of the words).
    pub fn into_owned(self) -> RibbonFilter {
        use crate::ribbon::Solution;
        RibbonFilter {
            solution: (0..self.layout.words())
                .map(|i| self.solution.word(i))
                .collect(),
            layout: self.layout,
            seed: self.seed,
            key: self.key,
            len: self.len,
        }
    }
}

/// A saved filter's fields, every one checked against the others, and its
/// payload (the solution's bytes) where it lies.
struct Saved<'a> {
    key: HashKey,
    seed: u64,
    layout: Layout,
    len: usize,
    payload: &'a [u8],
}

impl<'a> Saved<'a> {
    /// Reads and checks the parameters and the payload's size from `r`,
    /// opened with or without its checksum; the one home of the checks of
    /// both [`RibbonFilter::from_bytes`] and [`RibbonFilter::view`].
    fn read(mut r: Reader<'a>) -> Result<Self> {
        if r.version() < FORMAT_VERSION {
            return Err(Error::corrupt(format!(
                "a ribbon filter in a version-{} file: the variant is new in version {FORMAT_VERSION}",
                r.version()
            )));
        }
        let key = r.key();
        let coefficient_bits = r.u32("coefficient bits")?;
        let lower = r.u32("lower columns")?;
        let seed = r.u64("seed")?;
        let blocks = r.u64("blocks")?;
        let upper_start = r.u64("upper start")?;
        let len = r.u64("len")?;
        if coefficient_bits != COEFFICIENT_BITS {
            return Err(Error::corrupt(format!(
                "coefficient rows of {coefficient_bits} bits, not {COEFFICIENT_BITS}"
            )));
        }
        let layout = Layout::new(blocks, lower, upper_start)?;
        // At most 2³² − 1 blocks of 128 slots: no overflow.
        let slots = blocks * u64::from(COEFFICIENT_BITS);
        if len > slots {
            return Err(Error::corrupt(format!(
                "{len} keys in {slots} slots: each key takes a slot of its own"
            )));
        }
        if (len == 0) != (blocks == 0) {
            return Err(Error::corrupt(format!(
                "{len} keys in {blocks} blocks: a filter has blocks exactly when it has keys"
            )));
        }
        // At most 2³² − 1 blocks of 33 words of 16 bytes: no overflow.
        let payload = r.bytes_padded(layout.words_u64() * 16, "solution")?;
        r.finish()?;
        Ok(Saved {
            key,
            seed,
            layout,
            len: len as usize,
            payload,
        })
    }
}

/// The saved form of a filter of these fields and solution (`solution`
/// its 128-bit words, little-endian).
pub(crate) fn write(
    key: HashKey,
    seed: u64,
    layout: Layout,
    len: usize,
    solution: &[u8],
) -> Vec<u8> {
    let mut w = Writer::new(tag::RIBBON, key, solution.len() + 40);
    w.require_version(FORMAT_VERSION)
        .u32(COEFFICIENT_BITS)
        .u32(layout.lower_columns())
        .u64(seed)
        .u64(layout.blocks() as u64)
        .u64(layout.upper_start() as u64)
        .u64(len as u64)
        .bytes_padded(solution);
    w.finish()
}
