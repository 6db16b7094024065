//! [`Version`]: the version counter of a seqlock, as in libcuckoo, for
//! tables whose entries a writer moves while lookups read them without a
//! lock (the shared cuckoo and quotient filters).
//!
//! Memory orderings. The data words are read and written with `Relaxed`
//! operations, and the version orders them. Writer ([`Version::begin`],
//! the stores, [`Version::end`]): `version = v + 1` (Relaxed), a `Release`
//! fence, the stores (Relaxed), then `version = v + 2` with `Release`.
//! Reader ([`Version::read`], after a first try of the loads alone whose
//! answer it keeps only when that answer needs no check, such as a
//! lookup's "present"): `v1 = version` with `Acquire`, the loads,
//! an `Acquire` fence, `v2 = version` (Relaxed); the answer stands when
//! `v1 == v2` and `v1` is even. If a load saw a store of the writer's, the
//! writer's release fence before that store synchronizes with the
//! reader's acquire fence after it, so the odd version written before the
//! fence is visible to the second read: `v2 != v1`. If the first read saw
//! an even version written after stores (`Release`, read with `Acquire`),
//! the loads see those stores or later ones. So an answer that stands was
//! read between two sections of writes.

use std::sync::atomic::{AtomicU64, Ordering, fence};

/// Even: no write under way; odd: the one writer (who holds the shard's
/// lock) is changing the words. See the module's comment for the
/// orderings.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::seqlock::Version;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let version = Version::new();
/// let word = AtomicU64::new(1);
/// let before = version.begin();
/// word.store(2, Ordering::Relaxed);
/// version.end(before);
/// assert_eq!(version.read(|| word.load(Ordering::Relaxed), |_| false), 2);
/// ```
#[derive(Debug, Default)]
pub struct Version(AtomicU64);

impl Version {
    /// Version 0: no write under way.
    pub const fn new() -> Self {
        Self(AtomicU64::new(0))
    }

    /// The writer's start: the version made odd, then a release fence, so
    /// every store after this call comes after the odd version. Returns
    /// the version before, for [`end`](Self::end). Only the one writer
    /// calls it (a load and a store, not a read-modify-write).
    #[inline(always)]
    pub fn begin(&self) -> u64 {
        let before = self.0.load(Ordering::Relaxed);
        self.0.store(before.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        before
    }

    /// The writer's end: the version made even again with `Release`
    /// (`before` is what [`begin`](Self::begin) returned).
    #[inline(always)]
    pub fn end(&self, before: u64) {
        self.0.store(before.wrapping_add(2), Ordering::Release);
    }

    /// What `read` returns, taken between two sections of writes; `done`
    /// says whether an answer stands without that check (a lookup's
    /// "present", which no move can make false).
    ///
    /// The first try reads the words alone, without the version: an answer
    /// `done` accepts is returned at once, so a lookup that finds its key
    /// touches no line the writers store to (the version's line moves to
    /// the writer's core on every section of writes, and reading it on
    /// every lookup made each reader on another core wait for it). Any
    /// other answer is taken again as [`read_checked`](Self::read_checked)
    /// takes it, so an answer not `done` needs two reads of the words when
    /// no write overlapped it.
    #[inline(always)]
    pub fn read<T: Copy>(&self, mut read: impl FnMut() -> T, done: impl Fn(T) -> bool) -> T {
        let first = read();
        if done(first) {
            return first;
        }
        self.checked(read, done)
    }

    /// What `read` returns, taken between two sections of writes, every
    /// answer checked (a count, which a move can make too small): one read
    /// of the words when no write overlapped it.
    #[inline(always)]
    pub fn read_checked<T: Copy>(&self, read: impl FnMut() -> T) -> T {
        self.checked(read, |_| false)
    }

    /// The checked reads of [`read`](Self::read): the version before the
    /// words, then again after an acquire fence, until the two agree and are
    /// even or `done` accepts the answer. A try that overlaps a write is
    /// repeated: the writer holds the lock and will finish; every 64th try
    /// yields the core to it in case it was taken off one.
    #[inline(always)]
    fn checked<T: Copy>(&self, mut read: impl FnMut() -> T, done: impl Fn(T) -> bool) -> T {
        let mut spins = 0u32;
        loop {
            let before = self.0.load(Ordering::Acquire);
            let answer = read();
            if done(answer) {
                return answer;
            }
            if before & 1 == 0 {
                fence(Ordering::Acquire);
                if self.0.load(Ordering::Relaxed) == before {
                    return answer;
                }
            }
            spins += 1;
            if spins % 64 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}
