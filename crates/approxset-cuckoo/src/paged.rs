//! A cuckoo filter read page by page from a version-4 file
//! ([`Pages`](approxset_core::format::Pages)): the filter's own lookup
//! over slot words that come from checked pages (`docs/design.md`,
//! "Damaged files").

use std::sync::Arc;

use approxset_core::format::{PagedWords, Pages, Reader, tag};
use approxset_core::{Digest, HashKey, Result};

use crate::filter::CuckooFilter;
use crate::filter::contains_in;
use crate::kick::Victim;
use crate::persist::Saved;
use crate::table::{Table, with_width};

/// A saved [`CuckooFilter`] whose lookups read its table page by page,
/// each page checked when first read. Open it with
/// [`CuckooFilter::open_paged`].
#[derive(Clone)]
pub struct CuckooFilterPaged {
    table: Table<PagedWords>,
    victim: Option<Victim>,
    key: HashKey,
}

impl CuckooFilter {
    /// The filter saved in the version-4 file that `pages` reads, its
    /// lookups reading the table page by page. Every check of
    /// [`view`](Self::view) is made; a lookup that meets a page that cannot
    /// be read or is not as written records it in `pages`
    /// ([`Pages::error`]), and its answer must then be discarded.
    ///
    /// # Errors
    /// As [`view`](Self::view), and as [`Pages::page`].
    pub fn open_paged(pages: &Arc<Pages>) -> Result<CuckooFilterPaged> {
        let r = Reader::open_variant_paged(pages, tag::CUCKOO)?;
        let saved = Saved::read(r, |r, count| r.paged_words(count, "slots", pages))?;
        if let Some(e) = pages.error() {
            return Err(e);
        }
        Ok(CuckooFilterPaged {
            table: saved.table,
            victim: saved.victim,
            key: saved.key,
        })
    }
}

impl std::fmt::Debug for CuckooFilterPaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CuckooFilterPaged")
            .field("buckets", &self.table.buckets())
            .field("fingerprint_bits", &self.table.bits())
            .finish_non_exhaustive()
    }
}

impl CuckooFilterPaged {
    /// Whether a precomputed digest may be present.
    pub fn contains_digest(&self, digest: Digest) -> bool {
        with_width!(self.table.bits(), W => contains_in::<W, _>(&self.table, self.victim, digest))
    }

    /// The hash key keys are hashed with.
    pub fn hash_key(&self) -> HashKey {
        self.key
    }
}
