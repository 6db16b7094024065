//! A saved filter answered page by page from a file (format version 4):
//! each lookup reads the pages it touches through positioned reads, and
//! checks each against the file's page table before using a byte. What
//! `approxset query` answers from; `docs/design.md`, "Damaged files", says
//! why and what each way of opening a file checks.

use std::sync::Arc;

use approxset_core::format::{Header, PAGED_VERSION, PageRead, Pages, tag};
use approxset_core::{Digest, HashKey};

use crate::{
    BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter, Error,
    PartitionedBloomFilter, Result, SplitBlockBloomFilter,
};

/// A saved filter whose lookups read and check only the pages they touch.
/// Every answer is computed from checked pages or not given at all: a page
/// that cannot be read (the file was truncated) or does not match its
/// checksum (the file was damaged or overwritten) makes that lookup, and
/// every one after it, an error.
///
/// ```
/// use approxset::{Variant, paged::PagedFilter};
/// let mut f = Variant::Classic.builder().seed(1).build(1000, 0.01)?;
/// f.insert("alice")?;
/// let bytes = f.to_bytes()?;
/// let total = bytes.len() as u64;
/// let paged = PagedFilter::open(Box::new(bytes), total)?;
/// assert!(paged.contains_bytes(b"alice")?);
/// # Ok::<(), approxset::Error>(())
/// ```
pub struct PagedFilter {
    pages: Arc<Pages>,
    key: HashKey,
    variant: &'static str,
    lookup: Box<dyn Fn(Digest) -> bool + Send + Sync>,
}

impl std::fmt::Debug for PagedFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PagedFilter")
            .field("variant", &self.variant)
            .field("pages", &self.pages)
            .finish_non_exhaustive()
    }
}

impl PagedFilter {
    /// Whether the saved filter whose first 16 bytes are `head` can be
    /// opened page by page: a version-4 file of a variant with one flat
    /// payload (classic, partitioned, blocked, split-block, counting,
    /// cuckoo).
    pub fn supports(head: &[u8]) -> bool {
        Header::parse(head).is_ok_and(|h| {
            h.version() >= PAGED_VERSION
                && h.variant()
                    .and_then(|name| name.parse::<crate::Variant>().ok())
                    .is_some_and(crate::Variant::is_streamed)
        })
    }

    /// Opens the saved filter of `total` bytes that `source` reads: its
    /// page table and first page are read and checked, and its parameters
    /// as a view checks them.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a file [`supports`](Self::supports)
    /// refuses; the envelope and parameter errors of a view; [`Error::Io`]
    /// and [`Error::ChecksumMismatch`] for pages that cannot be read or are
    /// not as written.
    pub fn open(source: Box<dyn PageRead>, total: u64) -> Result<Self> {
        let mut head = [0u8; 16];
        source.read_exact_at(&mut head, 0)?;
        let header = Header::parse(&head)?;
        if !Self::supports(&head) {
            return Err(Error::Unsupported {
                operation: "reading page by page",
                variant: header.variant().unwrap_or("unknown"),
            });
        }
        if header.total_len() != total {
            return Err(Error::Truncated {
                needed: header.total_len(),
                available: total,
            });
        }
        let pages = Arc::new(Pages::open(source, total)?);
        let (key, lookup) = Self::lookup(&pages, header.tag())?;
        Ok(PagedFilter {
            pages,
            key,
            variant: header.variant().unwrap_or("unknown"),
            lookup,
        })
    }

    /// The one dispatch on the variant tag: the filter's hash key and its
    /// lookup over the pages.
    #[allow(clippy::type_complexity)]
    fn lookup(
        pages: &Arc<Pages>,
        tag: u8,
    ) -> Result<(HashKey, Box<dyn Fn(Digest) -> bool + Send + Sync>)> {
        /// A Bloom filter `$filter` opened on the pages, boxed.
        macro_rules! bloom {
            ($filter:ty) => {{
                let f = <$filter>::open_paged(pages)?;
                (f.hash_key(), Box::new(move |d| f.contains_digest(d)))
            }};
        }
        Ok(match tag {
            tag::CLASSIC => bloom!(BloomFilter),
            tag::PARTITIONED => bloom!(PartitionedBloomFilter),
            tag::BLOCKED => bloom!(BlockedBloomFilter),
            tag::SPLIT_BLOCK => bloom!(SplitBlockBloomFilter),
            tag::COUNTING => bloom!(CountingBloomFilter),
            tag::CUCKOO => {
                let f = CuckooFilter::open_paged(pages)?;
                (f.hash_key(), Box::new(move |d| f.contains_digest(d)))
            }
            other => {
                return Err(Error::Unsupported {
                    operation: "reading page by page",
                    variant: tag::name(other).unwrap_or("unknown"),
                });
            }
        })
    }

    /// Whether `key`'s bytes may be present, answered from checked pages
    /// only.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::ChecksumMismatch`] when a page this lookup
    /// (or an earlier one) read cannot be read or is not as written.
    pub fn contains_bytes(&self, key: &[u8]) -> Result<bool> {
        self.contains_digest(self.key.digest_bytes(key))
    }

    /// Whether a precomputed digest may be present; see
    /// [`contains_bytes`](Self::contains_bytes).
    ///
    /// # Errors
    /// As [`contains_bytes`](Self::contains_bytes).
    pub fn contains_digest(&self, digest: Digest) -> Result<bool> {
        let answer = (self.lookup)(digest);
        match self.pages.error() {
            Some(e) => Err(e),
            None => Ok(answer),
        }
    }

    /// Reads and checks every page: the whole file verified.
    ///
    /// # Errors
    /// As [`Pages::page`].
    pub fn verify_all(&self) -> Result<()> {
        self.pages.verify_all()
    }

    /// The filter's hash key.
    pub fn hash_key(&self) -> HashKey {
        self.key
    }

    /// The variant's name.
    pub fn variant(&self) -> &'static str {
        self.variant
    }
}
