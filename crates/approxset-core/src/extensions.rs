//! The generic extensions of the filter traits: [`MembershipExt`],
//! [`ApproxSetExt`] and [`DeletableExt`], implemented for every filter,
//! trait objects included.

use crate::batch::{by_chunks, insert_by_chunks};
use crate::error::Result;
use crate::hash::Digest;
use crate::key::Key;
use crate::outcome::{Count, Removal};
use crate::traits::{ApproxSet, Deletable, Membership};

/// The generic lookups of every [`Membership`], trait objects included.
pub trait MembershipExt: Membership {
    /// The digest of `item` under this filter's key (its [`Key`] bytes).
    #[inline]
    fn digest<K: Key + ?Sized>(&self, item: &K) -> Digest {
        self.hash_key().digest(item)
    }

    /// Whether `item` may be in the set.
    #[inline]
    fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
        self.contains_digest(self.digest(item))
    }

    /// Answers [`contains`](Self::contains) for every item: `out` is
    /// cleared, then gets one answer per item, in order. The items are
    /// hashed a chunk at a time and looked up with
    /// [`Membership::contains_digests`], which the Bloom filters make faster
    /// than a loop of `contains` on filters larger than the cache.
    ///
    /// `items` holds keys or references to keys: `&[u64]`, `&[&str]`,
    /// `&[String]`, `&[&[u8]]` (a reference is the same key as what it
    /// points to).
    ///
    /// ```
    /// # use approxset_core::prelude::*;
    /// # use approxset_core::{Digest, HashKey, Result};
    /// # #[derive(Debug, Default)]
    /// # struct Exact(std::collections::HashSet<u128>, HashKey);
    /// # impl approxset_core::Membership for Exact {
    /// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains(&d.to_u128()) }
    /// #     fn hash_key(&self) -> HashKey { self.1 }
    /// #     fn len(&self) -> usize { self.0.len() }
    /// #     fn capacity(&self) -> usize { usize::MAX }
    /// #     fn fp_rate(&self) -> f64 { 0.0 }
    /// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
    /// #     fn memory_bytes(&self) -> usize { self.0.len() * 16 }
    /// #     fn variant(&self) -> &'static str { "exact" }
    /// # }
    /// # impl approxset_core::ApproxSet for Exact {
    /// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> { Ok(self.0.insert(d.to_u128())) }
    /// #     fn clear(&mut self) { self.0.clear() }
    /// # }
    /// let mut set = Exact::default();
    /// set.insert("alice")?;
    /// let mut out = Vec::new();
    /// set.contains_batch(&["alice", "bob", "alice"], &mut out);
    /// assert_eq!(out, [true, false, true]);
    /// # Ok::<(), approxset_core::Error>(())
    /// ```
    fn contains_batch<K: Key>(&self, items: &[K], out: &mut Vec<bool>) {
        by_chunks(self.hash_key(), items, out, |digests, answers| {
            self.contains_digests(digests, answers)
        });
    }

    /// Whether a byte string may be in the set: the same key as
    /// `contains(bytes)`.
    #[inline]
    fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.contains_digest(self.hash_key().digest_bytes(bytes))
    }

    /// Writes the filter in the binary format (see [`Membership::to_bytes`]).
    ///
    /// # Errors
    /// As [`Membership::to_bytes`], and [`Error::Io`](crate::Error::Io).
    fn write_to<W: std::io::Write>(&self, mut writer: W) -> Result<()> {
        let bytes = self.to_bytes()?;
        writer.write_all(&bytes)?;
        Ok(())
    }
}

impl<S: Membership + ?Sized> MembershipExt for S {}

/// The generic inserts of every [`ApproxSet`], trait objects included (the
/// lookups are in [`MembershipExt`]).
pub trait ApproxSetExt: ApproxSet {
    /// Inserts `item`; see [`ApproxSet::insert_digest`].
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digest`].
    #[inline]
    fn insert<K: Key + ?Sized>(&mut self, item: &K) -> Result<bool> {
        let digest = self.hash_key().digest(item);
        self.insert_digest(digest)
    }

    /// Inserts every item, in order (see [`insert`](Self::insert)): hashed a
    /// chunk at a time and handed to [`ApproxSet::insert_digests`].
    ///
    /// ```
    /// # extern crate approxset_core as approxset;
    /// use approxset::prelude::*;
    /// # use approxset_core::{Digest, HashKey, Result};
    /// # #[derive(Debug, Default)]
    /// # struct Exact(std::collections::HashSet<u128>, HashKey);
    /// # impl approxset_core::Membership for Exact {
    /// #     fn contains_digest(&self, d: Digest) -> bool { self.0.contains(&d.to_u128()) }
    /// #     fn hash_key(&self) -> HashKey { self.1 }
    /// #     fn len(&self) -> usize { self.0.len() }
    /// #     fn capacity(&self) -> usize { usize::MAX }
    /// #     fn fp_rate(&self) -> f64 { 0.0 }
    /// #     fn estimated_fp_rate(&self) -> f64 { 0.0 }
    /// #     fn memory_bytes(&self) -> usize { self.0.len() * 16 }
    /// #     fn variant(&self) -> &'static str { "exact" }
    /// # }
    /// # impl approxset_core::ApproxSet for Exact {
    /// #     fn insert_digest(&mut self, d: Digest) -> Result<bool> { Ok(self.0.insert(d.to_u128())) }
    /// #     fn clear(&mut self) { self.0.clear() }
    /// # }
    /// let mut set = Exact::default();
    /// set.insert_batch(&["alice", "bob"])?;
    /// assert!(set.contains("bob"));
    /// # Ok::<(), approxset_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digests`]: the first error stops the batch,
    /// and the items before it stay inserted.
    fn insert_batch<K: Key>(&mut self, items: &[K]) -> Result<()> {
        insert_by_chunks(self.hash_key(), items, |digests| {
            self.insert_digests(digests)
        })
    }

    /// Inserts a byte string: the same key as `insert(bytes)`, and as
    /// `insert("x")` for the bytes of `"x"`.
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digest`].
    #[inline]
    fn insert_bytes(&mut self, bytes: &[u8]) -> Result<bool> {
        let digest = self.hash_key().digest_bytes(bytes);
        self.insert_digest(digest)
    }

    /// Inserts `item` only when the filter does not already seem to hold
    /// it: `Ok(true)` when it was inserted; see
    /// [`ApproxSet::insert_digest_if_absent`].
    ///
    /// # Errors
    /// As [`ApproxSet::insert_digest`]; nothing changes on error.
    #[inline]
    fn insert_if_absent<K: Key + ?Sized>(&mut self, item: &K) -> Result<bool> {
        let digest = self.hash_key().digest(item);
        self.insert_digest_if_absent(digest)
    }
}

impl<S: ApproxSet + ?Sized> ApproxSetExt for S {}

/// The generic methods of every [`Deletable`], trait objects included.
pub trait DeletableExt: Deletable {
    /// Removes one copy of `item`; see [`Deletable::remove_digest`].
    #[inline]
    fn remove<K: Key + ?Sized>(&mut self, item: &K) -> Removal {
        let digest = self.hash_key().digest(item);
        self.remove_digest(digest)
    }

    /// Removes one copy of a byte string inserted by
    /// [`ApproxSetExt::insert_bytes`].
    #[inline]
    fn remove_bytes(&mut self, bytes: &[u8]) -> Removal {
        let digest = self.hash_key().digest_bytes(bytes);
        self.remove_digest(digest)
    }

    /// An upper bound on the times `item` went in; see
    /// [`Deletable::count_digest`].
    #[inline]
    fn count<K: Key + ?Sized>(&self, item: &K) -> Count {
        self.count_digest(self.hash_key().digest(item))
    }
}

impl<S: Deletable + ?Sized> DeletableExt for S {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKey;
    use std::collections::HashMap;

    /// An exact multiset behind the traits, to check the plumbing; a
    /// frozen one is read-only (it offers no [`ApproxSet`] through `dyn`).
    #[derive(Debug, Default)]
    struct Exact {
        counts: HashMap<u128, usize>,
        len: usize,
        frozen: bool,
        /// Calls of the overriding `contains_digests`.
        batches: std::sync::atomic::AtomicUsize,
    }

    impl Exact {
        /// A static exact set: built once from its keys, read-only.
        fn frozen<K: Key>(keys: &[K]) -> Exact {
            let mut set = Exact::default();
            for key in keys {
                set.insert(key).unwrap();
            }
            set.frozen = true;
            set
        }
    }

    impl Membership for Exact {
        fn contains_digest(&self, d: Digest) -> bool {
            self.counts.contains_key(&d.to_u128())
        }
        fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
            self.batches
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            out.clear();
            out.extend(digests.iter().map(|&d| self.contains_digest(d)));
        }
        fn hash_key(&self) -> HashKey {
            HashKey::from_seed(7)
        }
        fn len(&self) -> usize {
            self.len
        }
        fn capacity(&self) -> usize {
            if self.frozen { self.len } else { usize::MAX }
        }
        fn fp_rate(&self) -> f64 {
            0.0
        }
        fn estimated_fp_rate(&self) -> f64 {
            0.0
        }
        fn memory_bytes(&self) -> usize {
            self.counts.len() * 24
        }
        fn variant(&self) -> &'static str {
            if self.frozen { "frozen" } else { "exact" }
        }
        fn as_approx_set(&self) -> Option<&dyn ApproxSet> {
            (!self.frozen).then_some(self as &dyn ApproxSet)
        }
        fn as_approx_set_mut(&mut self) -> Option<&mut dyn ApproxSet> {
            if self.frozen { None } else { Some(self) }
        }
    }

    impl ApproxSet for Exact {
        fn insert_digest(&mut self, d: Digest) -> Result<bool> {
            let c = self.counts.entry(d.to_u128()).or_default();
            *c += 1;
            self.len += 1;
            Ok(*c == 1)
        }
        fn clear(&mut self) {
            self.counts.clear();
            self.len = 0;
        }
    }

    impl Deletable for Exact {
        fn remove_digest(&mut self, d: Digest) -> Removal {
            match self.counts.get_mut(&d.to_u128()) {
                None => Removal::Absent,
                Some(c) => {
                    *c -= 1;
                    if *c == 0 {
                        self.counts.remove(&d.to_u128());
                    }
                    self.len -= 1;
                    Removal::Removed
                }
            }
        }
        fn count_digest(&self, d: Digest) -> Count {
            Count::AtMost(self.counts.get(&d.to_u128()).map_or(0, |&c| c as u32))
        }
    }

    #[test]
    fn generic_methods_work_through_every_dyn_type() {
        let mut boxed: Box<dyn ApproxSet + Send + Sync> = Box::new(Exact::default());
        assert!(boxed.insert("alice").unwrap());
        assert!(!boxed.insert("alice").unwrap());
        assert!(boxed.contains("alice"));
        assert!(!boxed.contains("bob"));
        assert!(boxed.insert_bytes(b"carol").unwrap());
        assert!(boxed.contains_bytes(b"carol"));
        assert_eq!(boxed.len(), 3);

        let mut del: Box<dyn Deletable + Send + Sync> = Box::new(Exact::default());
        del.insert(&42u64).unwrap();
        del.insert(&42u64).unwrap();
        assert_eq!(del.count(&42u64), Count::AtMost(2));
        assert_eq!(del.remove(&42u64), Removal::Removed);
        assert!(del.contains(&42u64), "one copy left");
        assert_eq!(del.remove(&42u64), Removal::Removed);
        assert!(!del.contains(&42u64));
        assert_eq!(del.remove(&42u64), Removal::Absent, "nothing to remove");
        assert!(del.is_empty());
        assert_eq!(del.count(&42u64), Count::AtMost(0));
        // insert_if_absent through the box: once, then not again.
        assert!(del.insert_if_absent("k").unwrap());
        assert!(!del.insert_if_absent("k").unwrap());
        assert_eq!((del.len(), del.count("k")), (1, Count::AtMost(1)));

        let mut plain = Exact::default();
        let by_ref: &mut dyn Deletable = &mut plain;
        by_ref.insert_bytes(b"x").unwrap();
        assert_eq!(by_ref.count_digest(by_ref.digest(b"x")), Count::AtMost(1));
        assert!(by_ref.remove_bytes(b"x").is_removed());
        assert!(!by_ref.contains_bytes(b"x"));
    }

    #[test]
    fn extension_serves_generic_code_and_boxes() {
        fn fill<S: ApproxSet + ?Sized>(s: &mut S, n: u32) {
            for i in 0..n {
                s.insert(&i).unwrap();
            }
        }
        let mut boxed: Box<dyn ApproxSet> = Box::new(Exact::default());
        fill(&mut boxed, 10);
        assert_eq!(boxed.len(), 10);
        assert!((0..10u32).all(|i| boxed.contains(&i)));
        boxed.clear();
        assert!(boxed.is_empty());
        assert_eq!(boxed.variant(), "exact");
    }

    #[test]
    fn batches_reach_the_override_through_boxes_and_references() {
        let mut plain = Exact::default();
        for i in (0..1_000u32).step_by(3) {
            plain.insert(&i).unwrap();
        }
        let keys: Vec<u32> = (0..1_000).collect();
        let expected: Vec<bool> = keys.iter().map(|k| k % 3 == 0).collect();
        // (batch length, chunks of 256 it is hashed in)
        for (len, chunks) in [(0, 1), (1, 1), (256, 1), (257, 2), (1_000, 4)] {
            let before = *plain.batches.get_mut();
            let mut out = vec![true; 7];
            {
                let by_mut: &mut dyn ApproxSet = &mut plain;
                by_mut.contains_batch(&keys[..len], &mut out);
            }
            assert_eq!(out, expected[..len], "{len} keys");
            assert_eq!(*plain.batches.get_mut() - before, chunks, "{len} keys");
        }
        let boxed: Box<dyn ApproxSet> = Box::new(plain);
        let digests: Vec<Digest> = keys.iter().map(|k| boxed.digest(k)).collect();
        let mut out = Vec::new();
        // Generic code over the box: the forwarding impl must forward it.
        fn batch<S: ApproxSet + ?Sized>(s: &S, d: &[Digest], out: &mut Vec<bool>) {
            s.contains_digests(d, out);
        }
        batch(&boxed, &digests, &mut out);
        assert_eq!(out, expected);
        // 1 + 1 + 1 + 2 + 4 calls above, and this one.
        assert!(format!("{boxed:?}").ends_with("batches: 10 }"));
    }

    #[test]
    fn a_string_and_its_bytes_are_one_key() {
        let s = Exact::default();
        assert_eq!(s.digest("x"), s.hash_key().digest_bytes(b"x"));
        assert_eq!(s.digest("x"), s.digest(&"x"));
        assert_eq!(s.digest("x"), s.digest(b"x"));
    }

    #[test]
    fn a_read_only_filter_works_through_dyn_boxes_and_generic_code() {
        let frozen = Exact::frozen(&["alice", "bob"]);
        let by_ref: &dyn Membership = &frozen;
        assert!(by_ref.contains("alice") && by_ref.contains_bytes(b"bob"));
        assert!(!by_ref.contains("carol"));
        assert_eq!((by_ref.len(), by_ref.capacity()), (2, 2));
        assert!(by_ref.as_approx_set().is_none());

        fn known<S: Membership + ?Sized>(s: &S, keys: &[&str]) -> usize {
            keys.iter().filter(|k| s.contains(*k)).count()
        }
        assert_eq!(known(&frozen, &["alice", "carol", "bob"]), 2);
        assert_eq!(known(&&frozen, &["alice", "carol"]), 1);

        let mut boxed: Box<dyn Membership + Send + Sync> = Box::new(frozen);
        assert!(boxed.as_approx_set_mut().is_none(), "cannot insert");
        assert_eq!(known(&boxed, &["alice", "carol", "bob"]), 2);
        assert_eq!(boxed.variant(), "frozen");
        let mut out = vec![true; 3];
        boxed.contains_batch(&["carol", "bob"], &mut out);
        assert_eq!(out, [false, true]);
        assert!(
            format!("{boxed:?}").ends_with("batches: 1 }"),
            "the override"
        );
        let mut sink = Vec::new();
        assert!(matches!(
            boxed.write_to(&mut sink),
            Err(crate::Error::Unsupported { .. })
        ));
    }

    #[test]
    fn an_insertable_filter_converts_from_dyn_membership() {
        let mut boxed: Box<dyn Membership + Send + Sync> = Box::new(Exact::default());
        let set = boxed.as_approx_set_mut().expect("Exact takes inserts");
        assert!(set.insert("alice").unwrap());
        assert!(boxed.contains("alice"), "the insert reached the filter");
        assert!(boxed.as_approx_set().is_some_and(|s| s.contains("alice")));
        let mut plain = Exact::default();
        let by_mut: &mut dyn Membership = &mut plain;
        by_mut.as_approx_set_mut().unwrap().insert(&1u8).unwrap();
        assert!(plain.contains(&1u8));
    }

    /// With only the object-safe traits in scope, the trait objects still
    /// have the generic methods (they are inherent on them).
    mod with_only_the_traits {
        use crate::ApproxSet;

        #[test]
        fn boxes_need_no_extension_trait() {
            let mut boxed: Box<dyn ApproxSet> = Box::new(super::Exact::default());
            boxed.insert("alice").unwrap();
            assert!(boxed.contains("alice"));
            assert_eq!(boxed.len(), 1, "a method of the super-trait");
            let read: &dyn crate::Membership = &super::Exact::frozen(&["bob"]);
            assert!(read.contains("bob"));
            assert!(!read.is_empty());
        }
    }
}
