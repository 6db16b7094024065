//! A view of a saved cuckoo filter: its table read from the saved bytes
//! where they lie, answered by the filter's own lookup.

use approxset_core::format::{LeWords, Reader, tag, verify_checksum};
use approxset_core::{Digest, HashKey, Result};

use crate::filter::CuckooFilter;
use crate::filter::contains_in;
use crate::kick::Victim;
use crate::persist::{Saved, check_count};
use crate::table::{Table, with_width};

/// A read-only view of a saved [`CuckooFilter`]: it answers from the bytes
/// where they lie (a `Vec`, a memory map, a slice of a larger file; any
/// alignment), with the filter's own lookup. Open it with
/// [`CuckooFilter::view`].
///
/// ```
/// # extern crate approxset_cuckoo as approxset;
/// use approxset::CuckooFilter;
/// let mut f = CuckooFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
/// f.insert("alice")?;
/// let bytes = f.to_bytes()?;
/// let view = CuckooFilter::view(&bytes)?;
/// assert!(view.contains("alice"));
/// let mut owned = view.into_owned()?; // a copy, which removes
/// assert!(owned.remove("alice").is_removed());
/// # Ok::<(), approxset_cuckoo::Error>(())
/// ```
#[derive(Clone)]
pub struct CuckooFilterView<'a> {
    file: &'a [u8],
    table: Table<LeWords<'a>>,
    victim: Option<Victim>,
    /// The kick generator's state, kept to write the filter back as saved.
    rng: u64,
    key: HashKey,
    len: usize,
    capacity: usize,
    fp_rate: f64,
}

impl CuckooFilter {
    /// A read-only view of bytes written by [`to_bytes`](Self::to_bytes),
    /// answering from them where they lie: every check of
    /// [`from_bytes`](Self::from_bytes) but the two that read the whole
    /// table (the checksum, and that `len` counts the stored
    /// fingerprints), which [`CuckooFilterView::verify`] makes. A view of
    /// forged bytes may answer wrongly, but never panics or reads out of
    /// bounds.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), except
    /// [`Error::ChecksumMismatch`](approxset_core::Error::ChecksumMismatch)
    /// and a count of stored fingerprints that differs from `len`.
    pub fn view(bytes: &[u8]) -> Result<CuckooFilterView<'_>> {
        let r = Reader::open_variant_unverified(bytes, tag::CUCKOO)?;
        let saved = Saved::read(r, |r, count| r.le_words(count, "slots"))?;
        Ok(CuckooFilterView {
            file: bytes,
            table: saved.table,
            victim: saved.victim,
            rng: saved.rng,
            key: saved.key,
            len: saved.len,
            capacity: saved.capacity,
            fp_rate: saved.fp_rate,
        })
    }

    /// [`view`](Self::view), then [`verify`](CuckooFilterView::verify):
    /// every check of [`from_bytes`](Self::from_bytes), for bytes from
    /// elsewhere.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    pub fn view_verified(bytes: &[u8]) -> Result<CuckooFilterView<'_>> {
        Reader::open_variant(bytes, tag::CUCKOO)?;
        let view = Self::view(bytes)?;
        view.verify()?;
        Ok(view)
    }
}

impl<'a> CuckooFilterView<'a> {
    approxset_core::key_methods!(contains);

    /// Whether a precomputed digest may be present.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        with_width!(self.table.bits(), W => contains_in::<W, _>(&self.table, self.victim, digest))
    }

    /// The checks [`CuckooFilter::view`] leaves out, which read the whole
    /// table: the checksum, and that `len` counts the stored fingerprints.
    ///
    /// # Errors
    /// [`Error::ChecksumMismatch`](approxset_core::Error::ChecksumMismatch),
    /// [`Error::Corrupt`](approxset_core::Error::Corrupt) for the count.
    pub fn verify(&self) -> Result<()> {
        verify_checksum(self.file)?;
        check_count(&self.table, self.victim, self.len)
    }

    /// The serialized filter the view reads, as it was given.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.file
    }

    /// An owned filter with the view's fingerprints (a copy), which takes
    /// inserts and removes; every check but the checksum is made.
    ///
    /// # Errors
    /// [`Error::Corrupt`](approxset_core::Error::Corrupt) when `len` does
    /// not count the stored fingerprints;
    /// [`Error::AllocationFailed`](approxset_core::Error::AllocationFailed).
    pub fn into_owned(self) -> Result<CuckooFilter> {
        CuckooFilter::parse(Reader::open_variant_unverified(self.file, tag::CUCKOO)?)
    }

    approxset_core::bookkeeping_methods!(
        len = "Fingerprints stored, as the saved filter records it (trusted by \
               `view`, checked by `verify`)."
    );

    crate::filter::stats_methods!();

    /// The viewed filter in the binary format, written as the filter
    /// writes itself: the bytes of the file it was saved to.
    ///
    /// # Errors
    /// None; the `Result` is the trait's signature.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(Saved {
            table: &self.table,
            victim: self.victim,
            rng: self.rng,
            key: self.key,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
        .write())
    }
}

impl std::fmt::Debug for CuckooFilterView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CuckooFilterView")
            .field("fingerprint_bits", &self.table.bits())
            .field("buckets", &self.table.buckets())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("fp_rate", &self.fp_rate)
            .finish_non_exhaustive()
    }
}

approxset_core::impl_membership!(borrowed ['a] CuckooFilterView<'a>, variant = "cuckoo");
