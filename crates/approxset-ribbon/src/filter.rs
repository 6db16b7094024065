//! The Ribbon filter: its type, its lookups and its accessors.

use std::fmt;

use approxset_core::{Digest, HashKey, Value};

use crate::layout::{COEFFICIENT_BITS, Layout};
use crate::ribbon::{SolutionBytes, contains, ribbon_hash};

/// A Ribbon filter (Dillinger and Walzer, 2021; RocksDB's
/// `Standard128Ribbon`): a static filter for a set of keys known up front,
/// sized for any false-positive rate within a few percent of the bound
/// `log₂(1/p)` bits per key.
///
/// Each key is a linear equation over GF(2) with 128 consecutive unknowns
/// of `r` or `r + 1` bits; the filter stores a solution of all of them, and
/// a lookup checks the key's equation. It takes about 7.0 bits per key at
/// 1 % and 10.5 at 0.1 % (a binary fuse filter 9.0 and 18.0, a classic
/// Bloom filter 9.6 and 14.4): see `docs/design.md`, "Ribbon filter".
///
/// ```
/// # extern crate approxset_ribbon as approxset;
/// use approxset::RibbonFilter;
///
/// let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
/// let filter = RibbonFilter::build(&keys, 0.01)?;
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// assert!(filter.bits_per_key() < 7.5);
/// let false_positives = (0..10_000).filter(|i| filter.contains(&format!("other-{i}"))).count();
/// assert!(false_positives < 150);
/// # Ok::<(), approxset_ribbon::Error>(())
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
pub struct RibbonFilter {
    pub(crate) solution: Box<[u128]>,
    pub(crate) layout: Layout,
    pub(crate) seed: u64,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
}

approxset_core::static_filter_view!(
    RibbonFilterView of RibbonFilter in "approxset_ribbon",
    solution: SolutionBytes<'a>,
    layout: Layout,
);

/// The lookups and accessors of the filter and of its view, written once
/// over their common fields (`solution`, `layout`, `seed`, `key`, `len`).
macro_rules! ribbon_methods {
    ($solution:ident => $read:expr) => {
        approxset_core::key_methods!(contains);

        /// Whether a precomputed digest (see [`HashKey::digest`]) may be
        /// present.
        #[inline(always)]
        pub fn contains_digest(&self, digest: Digest) -> bool {
            let $solution = &self.solution;
            contains($read, &self.layout, ribbon_hash(digest.h1(), self.seed))
        }

        /// [`contains_digest`](Self::contains_digest) of every digest, into
        /// `out` (cleared first).
        pub fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
            out.clear();
            out.reserve(digests.len());
            let $solution = &self.solution;
            let (solution, layout, seed) = ($read, &self.layout, self.seed);
            out.extend(
                digests
                    .iter()
                    .map(|d| contains(solution, layout, ribbon_hash(d.h1(), seed))),
            );
        }

        approxset_core::static_filter_methods!(
            seed = "The construction seed that solved (stored in the file; distinct from the hash key)."
        );

        /// The false-positive rate it gives: `2⁻ʳ` for keys whose equation
        /// starts in a lower block, `2⁻⁽ʳ⁺¹⁾` in an upper one, weighted by
        /// their shares; at most the target it was built for (which is not
        /// stored), and 0 when empty.
        pub fn fp_rate(&self) -> f64 {
            self.layout.expected_fp()
        }

        /// Bytes of the solution: 16 per column of every block.
        pub fn memory_bytes(&self) -> usize {
            self.layout.words() * 16
        }

        /// Blocks of 128 slots.
        pub fn blocks(&self) -> usize {
            self.layout.blocks()
        }

        /// Slots of the solution, `128·blocks`.
        pub fn slots(&self) -> usize {
            self.layout.slots()
        }

        /// Columns `r` of the lower blocks (the upper ones have `r + 1`).
        pub fn lower_columns(&self) -> u32 {
            self.layout.lower_columns()
        }

        /// The first block with `r + 1` columns (`blocks` when none has).
        pub fn upper_start(&self) -> usize {
            self.layout.upper_start()
        }

        /// Bits of the coefficient rows, 128.
        pub fn coefficient_bits(&self) -> u32 {
            COEFFICIENT_BITS
        }

        /// The parameters by name: `coefficient_bits`, `blocks`, `slots`,
        /// `lower_columns`, `upper_start`, `bits_per_slot` and `seed`.
        pub fn parameters(&self) -> Vec<(&'static str, Value)> {
            vec![
                ("coefficient_bits", COEFFICIENT_BITS.into()),
                ("blocks", self.blocks().into()),
                ("slots", self.slots().into()),
                ("lower_columns", self.lower_columns().into()),
                ("upper_start", self.upper_start().into()),
                ("bits_per_slot", self.layout.columns_per_slot().into()),
                ("seed", self.seed.into()),
            ]
        }

        /// The name of the variant, `"ribbon"`.
        pub fn variant(&self) -> &'static str {
            "ribbon"
        }
    };
}

impl RibbonFilter {
    ribbon_methods!(s => &s[..]);
}

impl RibbonFilterView<'_> {
    ribbon_methods!(s => s);
}

/// The `Debug` of the filter and of its view, by name.
macro_rules! ribbon_debug {
    ($ty:ty, $name:expr) => {
        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct($name)
                    .field("blocks", &self.blocks())
                    .field("lower_columns", &self.lower_columns())
                    .field("upper_start", &self.upper_start())
                    .field("len", &self.len)
                    .field("seed", &self.seed)
                    .finish_non_exhaustive()
            }
        }
    };
}
ribbon_debug!(RibbonFilter, "RibbonFilter");
ribbon_debug!(RibbonFilterView<'_>, "RibbonFilterView");

approxset_core::impl_membership!([] RibbonFilter, variant = "ribbon", batch);
approxset_core::impl_membership!(borrowed ['a] RibbonFilterView<'a>, variant = "ribbon", batch);
