//! A view of a saved quotient filter: its tables read from the saved bytes
//! where they lie, answered by the filter's own lookup.

use approxset_core::format::{LeWords, Reader, tag, verify_checksum};
use approxset_core::{Count, Digest, HashKey, Result};

use crate::QuotientFilter;
use crate::filter::{find, holds};
use crate::persist::{Saved, from_saved};
use crate::sizing::Plan;
use crate::table::Table;

/// A read-only view of a saved [`QuotientFilter`]: it answers from the
/// bytes where they lie (any alignment), with the filter's own lookup.
/// Open it with [`QuotientFilter::view`].
///
/// ```
/// # extern crate approxset_quotient as approxset;
/// use approxset::QuotientFilter;
/// let mut f = QuotientFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
/// f.insert("alice")?;
/// let bytes = f.to_bytes()?;
/// let view = QuotientFilter::view(&bytes)?;
/// assert!(view.contains("alice"));
/// let mut owned = view.into_owned()?;
/// assert!(owned.remove("alice").is_removed());
/// # Ok::<(), approxset_quotient::Error>(())
/// ```
#[derive(Clone)]
pub struct QuotientFilterView<'a> {
    file: &'a [u8],
    tables: Vec<Table<LeWords<'a>>>,
    plan: Plan,
    key: HashKey,
    len: usize,
    capacity: usize,
    fp_rate: f64,
}

impl QuotientFilter {
    /// A read-only view of bytes written by [`to_bytes`](Self::to_bytes):
    /// every check of [`from_bytes`](Self::from_bytes) but the checksum
    /// (which [`QuotientFilterView::verify`] makes), with nothing copied.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), except
    /// [`Error::ChecksumMismatch`](approxset_core::Error::ChecksumMismatch).
    pub fn view(bytes: &[u8]) -> Result<QuotientFilterView<'_>> {
        let r = Reader::open_variant_unverified(bytes, tag::QUOTIENT)?;
        let saved = Saved::read(r, |r, n, what| r.le_words(n, what))?;
        Ok(from_saved!(QuotientFilterView { saved; file: bytes }))
    }

    /// [`view`](Self::view) with the checksum checked too.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    pub fn view_verified(bytes: &[u8]) -> Result<QuotientFilterView<'_>> {
        let view = Self::view(bytes)?;
        view.verify()?;
        Ok(view)
    }
}

impl<'a> QuotientFilterView<'a> {
    approxset_core::key_methods!(contains);

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        holds(&self.tables, digest)
    }

    /// An upper bound on the times a digest went in; see
    /// [`QuotientFilter::count_digest`].
    pub fn count_digest(&self, digest: Digest) -> Count {
        match find(&self.tables, digest) {
            None => Count::AtMost(0),
            Some((_, c)) => u32::try_from(c).map_or(Count::AtLeast(u32::MAX), Count::AtMost),
        }
    }

    /// The check [`QuotientFilter::view`] leaves out: the checksum.
    ///
    /// # Errors
    /// [`Error::ChecksumMismatch`](approxset_core::Error::ChecksumMismatch).
    pub fn verify(&self) -> Result<()> {
        verify_checksum(self.file)
    }

    /// The serialized filter the view reads, as it was given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.file
    }

    /// An owned filter with the view's tables (a copy), which takes
    /// inserts and removes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`](approxset_core::Error::AllocationFailed),
    /// and as [`QuotientFilter::view`].
    pub fn into_owned(self) -> Result<QuotientFilter> {
        QuotientFilter::parse(Reader::open_variant_unverified(self.file, tag::QUOTIENT)?)
    }

    chain_methods!(len = "Inserts accepted less removes that succeeded, as saved (checked).");
}

impl std::fmt::Debug for QuotientFilterView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotientFilterView")
            .field("tables", &self.tables.len())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

approxset_core::impl_membership!(borrowed ['a] QuotientFilterView<'a>, variant = "quotient");
