//! The binary fuse filter: its type, its lookups and its accessors.

use std::fmt;

use approxset_core::{Digest, HashKey, Value};

use crate::fingerprint::{Cells, CellsView};
use crate::layout::{Layout, fuse_hash};

/// A binary fuse filter (Graf and Lemire, 2022): the smallest filter of
/// approxset, for a set of keys known up front (one filter per SSTable or
/// Parquet row group), built once and never inserted into again.
///
/// Each key is an `f`-bit fingerprint (8, 16 or 32 bits, the narrowest
/// whose rate 2⁻ᶠ meets the target) spread over three cells of an array of
/// about `1.125·n` cells, so that the XOR of the three is the key's
/// fingerprint; a lookup reads the three cells and compares. It takes
/// about `1.125·f` bits per key (9.0 at 0.39 %), where a classic Bloom
/// filter takes `1.44·log₂(1/p)` (11.5 at 0.39 %).
///
/// ```
/// # extern crate approxset_fuse as approxset;
/// use approxset::BinaryFuseFilter;
///
/// let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
/// let filter = BinaryFuseFilter::build(&keys, 0.01)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert_eq!(filter.fingerprint_bits(), 8);
/// let false_positives = (0..10_000).filter(|i| filter.contains(&format!("other-{i}"))).count();
/// assert!(false_positives < 100);
/// # Ok::<(), approxset_fuse::Error>(())
/// ```
///
/// # Guarantees
///
/// - **No false negatives**: every key it was built from is found.
/// - **A set**: repeated keys are stored once; [`len`](Self::len) counts
///   distinct keys.
/// - **Static**: there is no `insert`, `remove` or `clear`; build a new
///   filter from every key instead.
#[derive(Clone, PartialEq)]
pub struct BinaryFuseFilter {
    pub(crate) cells: Cells,
    pub(crate) layout: Layout,
    pub(crate) seed: u64,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
}

approxset_core::static_filter_view!(
    BinaryFuseFilterView of BinaryFuseFilter in "approxset_fuse",
    cells: CellsView<'a>,
    layout: Layout,
);

/// The lookups and accessors of the filter and of its view, written once
/// over their common fields (`cells`, the fingerprint table checked
/// against its layout, with `contains`, `contains_all`, `bits` and
/// `memory_bytes`; `layout`, `seed`, `key`, `len`).
macro_rules! fuse_methods {
    () => {
        approxset_core::key_methods!(contains);

        /// Whether a precomputed digest (see [`HashKey::digest`]) may be
        /// present. Only the digest's first half ([`Digest::h1`]) is read,
        /// so a caller keeping many digests for binary fuse filters alone
        /// may keep their first halves (8 bytes a key, not 16) and look up
        /// `Digest::new(h1, 0)`: the same answer.
        // Always inlined: some thirty instructions, which a caller's loop
        // (a benchmark's, an SSTable probe's) otherwise pays a call on.
        #[inline(always)]
        pub fn contains_digest(&self, digest: Digest) -> bool {
            self.cells.contains(fuse_hash(digest.h1(), self.seed))
        }

        /// [`contains_digest`](Self::contains_digest) of every digest, into
        /// `out` (cleared first).
        pub fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
            out.clear();
            out.reserve(digests.len());
            self.cells.contains_all(self.seed, digests, out);
        }

        approxset_core::static_filter_methods!(
            seed = "The construction seed that peeled (stored in the file; distinct from the hash key)."
        );

        /// The false-positive rate it gives, 2⁻ᶠ for `f`-bit fingerprints: at
        /// most the target it was built for (which is not stored).
        pub fn fp_rate(&self) -> f64 {
            (-f64::from(self.fingerprint_bits())).exp2()
        }

        /// Bytes of the fingerprint array: `(c + 2)·L` cells of `f / 8` bytes.
        pub fn memory_bytes(&self) -> usize {
            self.cells.memory_bytes()
        }

        /// Fingerprint width `f` in bits: 8, 16 or 32.
        pub fn fingerprint_bits(&self) -> u32 {
            self.cells.bits()
        }

        /// Segment length `L` in cells (a power of two).
        pub fn segment_length(&self) -> u32 {
            self.layout.segment_length()
        }

        /// Segment count `c`: a key's first cell is in one of `c` segments, its
        /// others in the two after it.
        pub fn segment_count(&self) -> u32 {
            self.layout.segment_count()
        }

        /// Cells of the array, `(c + 2)·L`.
        pub fn array_len(&self) -> usize {
            self.layout.array_len()
        }

        /// The parameters by name: `fingerprint_bits`, `segment_length`,
        /// `segment_count`, `array_length` and `seed`.
        pub fn parameters(&self) -> Vec<(&'static str, Value)> {
            vec![
                ("fingerprint_bits", self.fingerprint_bits().into()),
                ("segment_length", self.segment_length().into()),
                ("segment_count", self.segment_count().into()),
                ("array_length", self.array_len().into()),
                ("seed", self.seed.into()),
            ]
        }

        /// The name of the variant, `"fuse"`.
        pub fn variant(&self) -> &'static str {
            "fuse"
        }
    };
}

impl BinaryFuseFilter {
    fuse_methods!();
}

impl BinaryFuseFilterView<'_> {
    fuse_methods!();
}

/// The `Debug` of the filter and of its view, by name.
macro_rules! fuse_debug {
    ($ty:ty, $name:expr) => {
        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct($name)
                    .field("fingerprint_bits", &self.fingerprint_bits())
                    .field("segment_length", &self.segment_length())
                    .field("segment_count", &self.segment_count())
                    .field("array_len", &self.array_len())
                    .field("len", &self.len)
                    .field("seed", &self.seed)
                    .finish_non_exhaustive()
            }
        }
    };
}
fuse_debug!(BinaryFuseFilter, "BinaryFuseFilter");
fuse_debug!(BinaryFuseFilterView<'_>, "BinaryFuseFilterView");

approxset_core::impl_membership!([] BinaryFuseFilter, variant = "fuse", batch);
approxset_core::impl_membership!(borrowed ['a] BinaryFuseFilterView<'a>, variant = "fuse", batch);
