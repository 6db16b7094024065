//! Batches hashed a chunk at a time: the shared loop of the batch lookups
//! and inserts.

use crate::hash::{Digest, HashKey};
use crate::key::Key;

/// Keys that [`MembershipExt::contains_batch`] and
/// [`ApproxSetExt::insert_batch`] hash before they look them up or insert
/// them: enough for the filter to overlap their cache misses, few enough that
/// their digests stay on the stack (4 KiB).
const BATCH_CHUNK: usize = 256;

/// The digests of `chunk` (at most `buf.len()` items) under `key`, in `buf`.
#[inline]
fn hash_chunk<'b, K: Key>(key: HashKey, chunk: &[K], buf: &'b mut [Digest]) -> &'b [Digest] {
    let digests = &mut buf[..chunk.len()];
    for (d, item) in digests.iter_mut().zip(chunk) {
        *d = key.digest(item);
    }
    digests
}

/// Hashes `items` under `key` a chunk at a time and hands each chunk's
/// digests to `insert`, in order, stopping at the first error.
#[inline]
pub(crate) fn insert_by_chunks<K: Key, E>(
    key: HashKey,
    items: &[K],
    mut insert: impl FnMut(&[Digest]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let mut buf = [Digest::new(0, 0); BATCH_CHUNK];
    for chunk in items.chunks(BATCH_CHUNK) {
        insert(hash_chunk(key, chunk, &mut buf))?;
    }
    Ok(())
}

/// Hashes `items` under `key` a chunk at a time and answers each chunk with
/// `lookup` (which clears its output), so that `out` is cleared and gets one
/// answer per item, in order. A batch of one chunk is answered straight
/// into `out`.
#[inline]
pub(crate) fn by_chunks<K: Key>(
    key: HashKey,
    items: &[K],
    out: &mut Vec<bool>,
    mut lookup: impl FnMut(&[Digest], &mut Vec<bool>),
) {
    let mut buf = [Digest::new(0, 0); BATCH_CHUNK];
    if items.len() <= BATCH_CHUNK {
        lookup(hash_chunk(key, items, &mut buf), out);
        return;
    }
    out.clear();
    out.reserve(items.len());
    let mut answers = Vec::with_capacity(BATCH_CHUNK);
    for chunk in items.chunks(BATCH_CHUNK) {
        lookup(hash_chunk(key, chunk, &mut buf), &mut answers);
        out.extend_from_slice(&answers);
    }
}
