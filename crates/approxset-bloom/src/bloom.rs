//! The Bloom filter core shared by the classic, partitioned and counting
//! filters: cells, `k`, the hash key and the bookkeeping, generic over the
//! [`Layout`] that places positions and the [`Cells`] that store them.

use approxset_core::Key;
use std::fmt;
use std::marker::PhantomData;

use approxset_core::sizing::{BloomParams, Plan};
use approxset_core::{ApproxSet, BuildOptions, Digest, Error, HashKey, ProbeScheme, Result, Value};

use crate::bits::BitVec;
use crate::cell_traits::{Cells, CellsRead, Combine};
use crate::counters::Counters;
use crate::layout::{BATCH_CHUNK, Classic, Layout, all_probes};

/// A Bloom filter with layout `L` over cells `C`: use the aliases
/// [`BloomFilter`](crate::BloomFilter) (classic),
/// [`PartitionedBloomFilter`](crate::PartitionedBloomFilter),
/// [`BlockedBloomFilter`](crate::BlockedBloomFilter),
/// [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter) and
/// [`CountingBloomFilter`](crate::CountingBloomFilter) (4-bit counters).
///
/// It never forgets: once inserted, an item is found until
/// [`clear`](Self::clear) (or, for the counting filter, until it is
/// removed as often as it was inserted).
pub struct Bloom<L: Layout, C: CellsRead<L> = BitVec> {
    pub(crate) cells: C,
    pub(crate) hashes: u32,
    pub(crate) scheme: ProbeScheme,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
    pub(crate) layout: PhantomData<L>,
}

impl<L: Layout, C: Cells<L>> Bloom<L, C> {
    /// A filter for `expected_items` items at false-positive rate `fp_rate`,
    /// with a random hash key. Shorthand for
    /// `with_fp_rate(fp_rate).expected_items(expected_items)`.
    ///
    /// # Errors
    /// As [`Builder::expected_items`](crate::builder::Builder::expected_items).
    pub fn new(expected_items: usize, fp_rate: f64) -> Result<Self> {
        Self::with_fp_rate(fp_rate).expected_items(expected_items)
    }

    /// What a filter for `expected_items` items at `fp_rate` takes (cells,
    /// bytes, `k`, expected rate), computed without building it.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    /// let plan = BloomFilter::plan(1_000_000, 0.01)?;
    /// assert_eq!(plan.probes(), 7);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Builder::expected_items`](crate::builder::Builder::expected_items), except that nothing is allocated.
    pub fn plan(expected_items: usize, fp_rate: f64) -> Result<Plan> {
        let params = L::params(expected_items, fp_rate)?;
        let cells = params.bits();
        Ok(Plan::new(
            expected_items,
            u128::from(cells) * u128::from(64 / C::PER_WORD),
            u128::from(cells.div_ceil(C::PER_WORD)) * 8,
            params.hashes(),
            L::fp_rate(cells, expected_items as u64, params.hashes()),
        ))
    }

    approxset_core::key_methods!(insert_only);

    /// Inserts a precomputed digest (see [`HashKey::digest`]); returns
    /// `Ok(true)` when a cell changed (the item was certainly new).
    ///
    /// # Errors
    /// None: a Bloom filter always has room. The `Result` is the trait's
    /// signature ([`ApproxSet::insert_digest`](approxset_core::ApproxSet::insert_digest)),
    /// so that `f.insert(k)?` means one thing on every filter.
    #[inline]
    pub fn insert_digest(&mut self, digest: Digest) -> Result<bool> {
        Ok(self.add_digest(digest))
    }

    /// Inserts a precomputed digest; whether a cell changed.
    #[inline]
    pub(crate) fn add_digest(&mut self, digest: Digest) -> bool {
        let changed = match self.cells.block_insert(self.hashes, digest) {
            Some(changed) => changed,
            None => self.cells.add_all(self.positions(digest)),
        };
        self.len = self.len.saturating_add(1);
        changed
    }

    /// Inserts every digest, in order: the filter is then the one that
    /// [`insert_digest`](Self::insert_digest) on each would have built.
    /// The positions of a chunk of keys are prefetched before they are set,
    /// so their cache misses overlap (`docs/design.md`, "Batched lookups").
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    ///
    /// let mut f = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(1_000)?;
    /// let digests: Vec<_> = (0..100u32).map(|i| f.hash_key().digest(&i)).collect();
    /// f.insert_digests(&digests)?;
    /// assert!(digests.iter().all(|&d| f.contains_digest(d)));
    /// assert_eq!(f.len(), 100);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// None, as [`insert_digest`](Self::insert_digest).
    pub fn insert_digests(&mut self, digests: &[Digest]) -> Result<()> {
        let lines = if L::ONE_LINE { 1 } else { self.hashes as usize };
        for chunk in digests.chunks(BATCH_CHUNK) {
            self.prefetch(chunk, lines);
            for &digest in chunk {
                self.add_digest(digest);
            }
        }
        Ok(())
    }

    /// The cell storage, mutably; the caller keeps `len` in step.
    pub(crate) fn cells_and_len_mut(&mut self) -> (&mut C, &mut usize) {
        (&mut self.cells, &mut self.len)
    }

    /// Removes every item, keeping the size and the key.
    pub fn clear(&mut self) {
        self.cells.clear();
        self.len = 0;
    }
}

/// Lookups and metadata: everything that reads the cells, for a filter
/// and a view of a saved one alike.
impl<L: Layout, C: CellsRead<L>> Bloom<L, C> {
    approxset_core::key_methods!(contains);

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        match self.cells.block_contains(self.hashes, digest) {
            Some(answer) => answer,
            None => all_probes(self.positions(digest), |pos| self.cells.is_set(pos)),
        }
    }

    /// The `k` cell positions of `digest`.
    #[inline]
    pub(crate) fn positions(&self, digest: Digest) -> impl Iterator<Item = u64> + use<L, C> {
        L::positions(self.cells.cell_count(), self.hashes, self.scheme, digest)
    }

    /// The cell storage.
    pub(crate) fn cells(&self) -> &C {
        &self.cells
    }

    /// The number of hash functions `k`.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// How the filter places its probes: [`ProbeScheme::Mixed`] for every
    /// classic, partitioned and counting filter built by this release;
    /// [`ProbeScheme::DoubleHashing`] for one loaded from a version-1 file
    /// (and, unused, for the blocked and split-block layouts).
    pub fn probe_scheme(&self) -> ProbeScheme {
        self.scheme
    }

    approxset_core::bookkeeping_methods!(
        len = "The number of inserts accepted (through `&self` too, for the atomic \
               filter), less the removes that succeeded (counting filter): \
               [`Membership::len`](approxset_core::Membership::len). A repeated item counts \
               each time; after a `union` it is the sum of both counts and after an \
               `intersect` the smaller one. For distinct items use `estimated_items`.",
        len_from = len_with_shared
    );

    /// `len` with the inserts made through `&self`.
    fn len_with_shared(&self) -> usize {
        self.len.saturating_add(self.cells.shared_len())
    }

    /// The fraction of cells set (bits set, counters above zero), `X / m`:
    /// ½ at the optimum.
    pub fn fill_ratio(&self) -> f64 {
        self.cells.nonzero() as f64 / self.cells.cell_count() as f64
    }

    /// The number of items the filter was sized for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The false-positive rate from the current fill, by the layout's own
    /// model: (X/m)^k for the classic and partitioned layouts (and the
    /// counting filter); for the blocked and split-block layouts, their
    /// Poisson mixture over block loads
    /// ([`fp_rate_blocked`](approxset_core::sizing::fp_rate_blocked),
    /// [`fp_rate_split_block`](approxset_core::sizing::fp_rate_split_block))
    /// at [`estimated_items`](Self::estimated_items) keys (`docs/design.md`,
    /// "API rules").
    pub fn estimated_fp_rate(&self) -> f64 {
        crate::estimate::fp_rate::<L>(self.cells.cell_count(), self.hashes, self.cells.nonzero())
    }

    /// The number of distinct items estimated from the fill X/m, by the
    /// layout's model: −(m/k)·ln(1 − X/m) (Swamidass and Baldi) for the
    /// classic and partitioned layouts, −(m/512)·ln(1 − X/m)/(1 − (1 −
    /// 1/512)^k) for the blocked one, −(m/256)·ln(1 − X/m)/(8/256) for the
    /// split-block one. Infinite when every cell is set.
    pub fn estimated_items(&self) -> f64 {
        crate::estimate::items::<L>(self.cells.cell_count(), self.hashes, self.cells.nonzero())
    }

    /// Bytes of cell storage.
    pub fn memory_bytes(&self) -> usize {
        self.cells.memory_bytes()
    }

    /// The parameters by name: the cells (`bits` or `counters`), `hashes`,
    /// and the cells set (`ones` or `nonzero`); see
    /// [`Membership::parameters`](approxset_core::Membership::parameters).
    pub fn parameters(&self) -> Vec<(&'static str, Value)> {
        let mut out = vec![
            (C::WHAT, self.cells.cell_count().into()),
            ("hashes", self.hashes.into()),
        ];
        out.extend(self.cells.describe());
        out
    }
}

/// Bit-specific methods: the bit count and combining filters.
impl<L: Layout> Bloom<L> {
    /// The number of bits `m`.
    pub fn bits(&self) -> u64 {
        self.cells.len()
    }

    /// The number of bits set, `X`.
    pub fn count_ones(&self) -> u64 {
        self.cells.count_ones()
    }

    /// Checks that `other` has the same bits, hashes, probe scheme and key,
    /// so that the two can be combined.
    ///
    /// # Errors
    /// [`Error::Incompatible`] naming the first parameter that differs.
    pub fn check_compatible(&self, other: &Self) -> Result<()> {
        self.check_same(other)
    }

    /// Adds every item of `other` (bitwise OR): afterwards the filter answers
    /// `true` for everything either filter held. It is exactly the filter
    /// that inserting both sets would have built.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the two differ in bits, hashes or key;
    /// the filter is left unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_compatible(other)?;
        self.cells.union_with(&other.cells);
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// Keeps the bits set in both filters (bitwise AND): afterwards the
    /// filter answers `true` for every item both held, and its false-positive
    /// rate may be higher than a filter built from the intersection alone.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the two differ in bits, hashes or key;
    /// the filter is left unchanged.
    pub fn intersect(&mut self, other: &Self) -> Result<()> {
        self.check_compatible(other)?;
        self.cells.intersect_with(&other.cells);
        self.len = self.len.min(other.len);
        Ok(())
    }
}

/// Combining and converting through `dyn ApproxSet`.
impl<L: Layout, C: Cells<L>> Bloom<L, C> {
    /// The filter as a [`Deletable`](approxset_core::Deletable) when it is
    /// the counting filter (classic layout over counters), `None` for the
    /// other layouts and cells; see
    /// [`ApproxSet::as_deletable`].
    pub fn as_deletable(&self) -> Option<&dyn approxset_core::Deletable> {
        let any: &dyn std::any::Any = self;
        any.downcast_ref::<Bloom<Classic, Counters>>()
            .map(|f| f as &dyn approxset_core::Deletable)
    }

    /// The filter as a mutable [`Deletable`](approxset_core::Deletable);
    /// see [`as_deletable`](Self::as_deletable).
    pub fn as_deletable_mut(&mut self) -> Option<&mut dyn approxset_core::Deletable> {
        let any: &mut dyn std::any::Any = self;
        any.downcast_mut::<Bloom<Classic, Counters>>()
            .map(|f| f as &mut dyn approxset_core::Deletable)
    }

    /// The first parameter in which `other` differs: cells, hashes, probe
    /// scheme, hash function or key.
    fn check_same(&self, other: &Self) -> Result<()> {
        if self.cells.cell_count() != other.cells.cell_count() {
            return Err(Error::Incompatible {
                parameter: C::WHAT,
                detail: format!(
                    "{} vs {}",
                    self.cells.cell_count(),
                    other.cells.cell_count()
                ),
            });
        }
        if self.hashes != other.hashes {
            return Err(Error::Incompatible {
                parameter: "hashes",
                detail: format!("{} vs {}", self.hashes, other.hashes),
            });
        }
        if self.scheme != other.scheme {
            return Err(Error::Incompatible {
                parameter: "probe scheme",
                detail: format!(
                    "{:?} vs {:?} (a filter loaded from a version-1 file places its bits \
                     differently: rebuild it from its keys)",
                    self.scheme, other.scheme
                ),
            });
        }
        if self.key.function() != other.key.function() {
            return Err(Error::Incompatible {
                parameter: "hash function",
                detail: format!("{} vs {}", self.key.function(), other.key.function()),
            });
        }
        if self.key != other.key {
            return Err(Error::Incompatible {
                parameter: "hash key",
                detail: "the filters were built with different keys or seeds".into(),
            });
        }
        Ok(())
    }

    /// `other` as this filter's type, with the same parameters, when the
    /// cells can be combined by `op`.
    fn peer<'o>(&self, other: &'o dyn ApproxSet, op: &'static str) -> Result<&'o Self> {
        if !C::COMBINES {
            return Err(Error::Unsupported {
                operation: op,
                variant: C::NAME,
            });
        }
        let other = approxset_core::same_type(self, other)?;
        self.check_same(other)?;
        Ok(other)
    }

    /// [`union`](Bloom::union) with a filter chosen at run time; see
    /// [`ApproxSet::union_dyn`].
    ///
    /// # Errors
    /// [`Error::Unsupported`] for the counting and atomic filters;
    /// [`Error::Incompatible`] when `other` is another variant or differs in
    /// bits, hashes or key. The filter is then unchanged.
    pub fn union_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
        let other = self.peer(other, "union")?;
        self.cells.combine(&other.cells, Combine::Union);
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// [`intersect`](Bloom::intersect) with a filter chosen at run time;
    /// see [`ApproxSet::intersect_dyn`].
    ///
    /// # Errors
    /// As [`union_dyn`](Self::union_dyn).
    pub fn intersect_dyn(&mut self, other: &dyn ApproxSet) -> Result<()> {
        let other = self.peer(other, "intersection")?;
        self.cells.combine(&other.cells, Combine::Intersection);
        self.len = self.len.min(other.len);
        Ok(())
    }
}

impl<L: Layout, C: Cells<L>> Bloom<L, C> {
    /// An empty filter of `params` for the builders.
    pub(crate) fn empty(
        params: BloomParams,
        capacity: usize,
        fp_rate: f64,
        options: BuildOptions,
    ) -> Result<Self> {
        L::check(params.bits(), params.hashes())?;
        Ok(Bloom {
            cells: C::zeros(params.bits(), options.max_bytes_limit())?,
            hashes: params.hashes(),
            scheme: L::NEW_SCHEME,
            key: options.key_for(C::TAG)?,
            len: 0,
            capacity,
            fp_rate,
            layout: PhantomData,
        })
    }
}

impl<L: Layout, C: CellsRead<L> + Clone> Clone for Bloom<L, C> {
    fn clone(&self) -> Self {
        Bloom {
            cells: self.cells.clone(),
            hashes: self.hashes,
            scheme: self.scheme,
            key: self.key,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
            layout: PhantomData,
        }
    }
}

impl<L: Layout, C: Cells<L>> PartialEq for Bloom<L, C> {
    fn eq(&self, other: &Self) -> bool {
        self.cells == other.cells
            && self.hashes == other.hashes
            && self.scheme == other.scheme
            && self.key == other.key
            && self.len == other.len
            && self.capacity == other.capacity
            && self.fp_rate.to_bits() == other.fp_rate.to_bits()
    }
}

impl<L: Layout, C: CellsRead<L>> fmt::Debug for Bloom<L, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bloom")
            .field("variant", &C::NAME)
            .field(C::WHAT, &self.cells.cell_count())
            .field("hashes", &self.hashes)
            .field("nonzero", &self.cells.nonzero())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

impl<L: Layout, C: Cells<L>, T: Key> Extend<T> for Bloom<L, C> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.add_digest(self.hash_key().digest(&item));
        }
    }
}

approxset_core::impl_approx_set!(
    [L: Layout, C: Cells<L>] Bloom<L, C>,
    variant = C::NAME,
    batch,
    combine,
    deletable,
    streamed
);
