//! The one-key calls on a filter (`in`, `add`, `add_if_absent`,
//! `remove`, `discard`, `count`) reach it with the GIL held and without its
//! lock while no other use of it is under way (`cell.rs`). Each closure
//! handed to the cell is a call of the library, which runs no Python code.

use approxset::{Digest, Removal};
use pyo3::prelude::*;

use crate::Filter;
use crate::construct::Boxed;

impl Filter {
    /// The one-key lookup, with the GIL held (no lock while nothing else
    /// uses the filter).
    #[allow(unsafe_code)]
    pub(crate) fn contains_one(&self, py: Python<'_>, digest: Digest) -> bool {
        // SAFETY: a lookup of the library's runs no Python code.
        unsafe { self.inner.attached(py, |b| b.contains_digest(digest)) }
    }

    /// The one-key insert (`if_absent`: only when absent), with the GIL
    /// held; `None` for a static filter.
    #[allow(unsafe_code)]
    pub(crate) fn insert_one(
        &self,
        py: Python<'_>,
        digest: Digest,
        if_absent: bool,
    ) -> Option<approxset::Result<bool>> {
        let insert = |b: &mut Boxed| {
            let set = b.as_approx_set_mut()?;
            Some(if if_absent {
                set.insert_digest_if_absent(digest)
            } else {
                set.insert_digest(digest)
            })
        };
        // SAFETY: an insert of the library's runs no Python code.
        unsafe { self.inner.attached_mut(py, insert) }
    }

    /// The one-key remove, with the GIL held; `None` where the variant
    /// cannot delete.
    #[allow(unsafe_code)]
    pub(crate) fn remove_one(&self, py: Python<'_>, digest: Digest) -> Option<Removal> {
        let remove = |b: &mut Boxed| {
            let set = b.as_approx_set_mut()?.as_deletable_mut()?;
            Some(set.remove_digest(digest))
        };
        // SAFETY: a remove of the library's runs no Python code.
        unsafe { self.inner.attached_mut(py, remove) }
    }

    /// The one-key count, with the GIL held; `None` where the variant
    /// cannot delete.
    #[allow(unsafe_code)]
    pub(crate) fn count_one(&self, py: Python<'_>, digest: Digest) -> Option<u32> {
        let count = |b: &Boxed| {
            let set = b.as_approx_set()?.as_deletable()?;
            Some(set.count_digest(digest).value())
        };
        // SAFETY: a count of the library's runs no Python code.
        unsafe { self.inner.attached(py, count) }
    }
}
