//! Saving and loading: the filter in the binary format of
//! `approxset_core::format` (tag 11, version 3), and the checks a loaded
//! filter passes.

use approxset_core::format::{Reader, tag};
use approxset_core::static_filter::{Saved, SavedHead};
use approxset_core::{Error, HashKey, Result};

use crate::RibbonFilter;
use crate::filter::RibbonFilterView;
use crate::layout::{COEFFICIENT_BITS, Layout};
use crate::ribbon::SolutionBytes;

/// The first format version with the Ribbon tag.
pub(crate) const FORMAT_VERSION: u16 = 3;

/// Persistence in the binary format of `approxset_core::format`.
impl RibbonFilter {
    approxset_core::static_view_methods!(
        filter,
        RibbonFilterView,
        tag = tag::RIBBON,
        head = (
            "ribbon",
            FORMAT_VERSION,
            ["coefficient bits", "lower columns"]
        ),
        read = read,
        errors = "The envelope errors of `approxset_core::format::Reader::open`, \
            [`Error::WrongVariant`], and [`Error::Corrupt`] for a version before 3, \
            coefficient rows other than 128 bits, more than 2³² − 1 blocks, blocks of \
            more than 32 columns, an upper start past the blocks, columns in an empty \
            filter, more keys than slots, keys without blocks or blocks without keys, or \
            a payload of the wrong size.",
        solution = |saved| SolutionBytes(saved.payload).words(),
        SolutionBytes(saved.payload),
    );
}

impl<'a> RibbonFilterView<'a> {
    approxset_core::static_view_methods!(view, RibbonFilter, solution = |v| v.solution.words(),);
}

/// `to_bytes` of the filter and of its view, over the solution's
/// little-endian bytes (`$bytes`, from `$solution`, the `solution` field).
macro_rules! to_bytes {
    ($solution:ident => $bytes:expr) => {
        /// The filter in the versioned binary format (see
        /// `docs/format.md`): five parameters, then the solution's 128-bit
        /// words little-endian (a view writes the bytes of the filter it
        /// reads, with a checksum of its own).
        ///
        /// # Errors
        /// None: every filter serializes. The `Result` is the trait's
        /// signature.
        pub fn to_bytes(&self) -> Result<Vec<u8>> {
            let $solution = &self.solution;
            Ok(write(self.key, self.seed, self.layout, self.len, $bytes))
        }
    };
}

impl RibbonFilter {
    to_bytes!(s => &solution_le(s));
}

impl RibbonFilterView<'_> {
    to_bytes!(s => s.0);
}

/// The solution's words as little-endian bytes.
fn solution_le(words: &[u128]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The layout, keys and solution bytes past the head, every field checked
/// against the others (for `from_bytes` and `view` alike).
fn read(head: SavedHead, mut r: Reader<'_>) -> Result<Saved<'_, Layout>> {
    let [coefficient_bits, lower] = head.fields;
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
    head.finish(r, layout, len as usize, layout.words_u64() * 16, "solution")
}

/// The saved form of a filter of these fields and solution (`solution`
/// its 128-bit words, little-endian).
fn write(key: HashKey, seed: u64, layout: Layout, len: usize, solution: &[u8]) -> Vec<u8> {
    let fields = [COEFFICIENT_BITS, layout.lower_columns()];
    let mut w =
        SavedHead { key, fields, seed }.writer(tag::RIBBON, FORMAT_VERSION, solution.len() + 40);
    w.u64(layout.blocks() as u64)
        .u64(layout.upper_start() as u64)
        .u64(len as u64)
        .bytes_padded(solution);
    w.finish()
}
