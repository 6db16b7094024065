//! The filter behind a Python `Filter`: a value that batch calls read and
//! write with the GIL released, under a read-write lock, and that a call
//! holding the GIL reaches with no lock at all while nothing else can.
//!
//! A read-write lock costs two atomic read-modify-writes a call, which a
//! one-key call from a Python loop pays on top of the interpreter's own
//! work. So a one-key call takes the lock only while some other use of the
//! filter is under way ([`GilCell::attached`], [`GilCell::attached_mut`]).
//! Timed against the build that locked every call (`bench.py --kinds int
//! --variants classic,blocked --hash xxh3 --repeat 5`, two runs of each
//! build alternating, the 2-core Xeon VM; docs/guide.md, "Speed against
//! rbloom"): the classic filter's `add` went from 63.8 and 67.9 ns to 53.7
//! and 56.4, `in` of a member from 57.2 and 67.6 to 55.2 and 55.9, of a
//! non-member from 47.0 and 49.2 to 43.1 and 45.4.

use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use pyo3::prelude::*;

/// Whether holding the GIL keeps every other thread out of Python: false
/// on an interpreter whose GIL is disabled (`sys._is_gil_enabled()`),
/// where every call locks. Set once, when the module is imported.
static GIL_EXCLUDES: AtomicBool = AtomicBool::new(false);

/// Reads, once at import, whether the interpreter's GIL is enabled.
///
/// # Errors
/// Python's, from importing `sys` or calling `_is_gil_enabled`.
pub(crate) fn init(py: Python<'_>) -> PyResult<()> {
    let sys = py.import("sys")?;
    let enabled = match sys.getattr("_is_gil_enabled") {
        Ok(f) => f.call0()?.is_truthy()?,
        // Before 3.13 the GIL is always there.
        Err(_) => true,
    };
    GIL_EXCLUDES.store(enabled, Ordering::Release);
    Ok(())
}

/// A value shared by the calls on one Python object (see the module's
/// comment).
///
/// Every access is either through a guard of `lock`, counted in `users`
/// from before the lock is taken until after its last use, or in
/// [`attached`](Self::attached)/[`attached_mut`](Self::attached_mut) on a
/// thread that holds the GIL while `users` is 0. A batch call that
/// releases the GIL counts itself in `users` ([`batch`](Self::batch))
/// before it releases it and until it has it back, so that no thread
/// without the GIL ever takes the lock while `users` is 0.
pub(crate) struct GilCell<T> {
    lock: RwLock<()>,
    value: UnsafeCell<T>,
    users: AtomicUsize,
}

// SAFETY: `value` is reached only as the type's comment says: shared
// references under the read lock, a unique one under the write lock, and
// from `attached`/`attached_mut` only where no guard exists and none can be
// taken until they return (see `attached_mut`). So the accesses of two
// threads are ordered as a `RwLock<T>`'s are, which is `Sync` for `T: Send
// + Sync`.
#[allow(unsafe_code)]
unsafe impl<T: Send + Sync> Sync for GilCell<T> {}

impl<T> GilCell<T> {
    pub(crate) fn new(value: T) -> Self {
        GilCell {
            lock: RwLock::new(()),
            value: UnsafeCell::new(value),
            users: AtomicUsize::new(0),
        }
    }

    /// The value, shared, under the read lock.
    #[allow(unsafe_code)]
    pub(crate) fn read(&self) -> Read<'_, T> {
        let _user = self.user();
        // A panic cannot happen while the lock is held; if it did, the
        // filter itself is still consistent (every operation that fails
        // changes nothing).
        let lock = self.lock.read().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the read lock is held for the reference's life (the
        // guard's), and every writer takes the write lock or finds `users`
        // at 0, which it is not until `_user` is dropped, after the lock.
        let value = unsafe { &*self.value.get() };
        Read {
            value,
            _lock: lock,
            _user,
        }
    }

    /// The value, alone, under the write lock.
    #[allow(unsafe_code)]
    pub(crate) fn write(&self) -> Write<'_, T> {
        let _user = self.user();
        let lock = self.lock.write().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: as in `read`, with the write lock: no other guard exists,
        // and `attached` calls find `users` above 0 until `_user` drops.
        let value = unsafe { &mut *self.value.get() };
        Write {
            value,
            _lock: lock,
            _user,
        }
    }

    /// Counts a batch call, from now (the GIL held) until the marker drops
    /// (the GIL held again): the calls that may take the lock without the
    /// GIL.
    pub(crate) fn batch(&self, _py: Python<'_>) -> User<'_> {
        self.user()
    }

    fn user(&self) -> User<'_> {
        // Acquire-release: the count's changes are ordered with the
        // accesses they announce and end.
        self.users.fetch_add(1, Ordering::AcqRel);
        User(&self.users)
    }

    /// `f` of the value, shared: without the lock when no guard or batch
    /// call exists, else under the read lock.
    ///
    /// # Safety
    /// `f` runs no Python code (and so cannot let the GIL go), as for
    /// [`attached_mut`](Self::attached_mut).
    #[allow(unsafe_code)]
    pub(crate) unsafe fn attached<R>(&self, py: Python<'_>, f: impl FnOnce(&T) -> R) -> R {
        match self.alone(py) {
            // SAFETY: as in `attached_mut`; a shared reference is the
            // lesser case.
            Some(value) => f(unsafe { &*value }),
            None => f(&self.read()),
        }
    }

    /// `f` of the value, alone: without the lock when no guard or batch
    /// call exists, else under the write lock.
    ///
    /// # Safety
    /// `f` runs no Python code: a thread that holds the GIL and does not
    /// let it go keeps every other thread from starting a call on this
    /// value, and from taking a guard (only batch calls take one without
    /// the GIL, and they are counted from before they release it); running
    /// Python code could let it go to one that does.
    #[allow(unsafe_code)]
    pub(crate) unsafe fn attached_mut<R>(&self, py: Python<'_>, f: impl FnOnce(&mut T) -> R) -> R {
        match self.alone(py) {
            // SAFETY: `alone` found no user; one can only start on a thread
            // that holds the GIL, which is this one until `f` returns (the
            // caller's promise). Its Acquire load orders every earlier
            // user's accesses (ended by a Release decrement) before these.
            Some(value) => f(unsafe { &mut *value }),
            None => f(&mut self.write()),
        }
    }

    /// The value's address when this thread, holding the GIL, is the only
    /// one that can reach it.
    fn alone(&self, _py: Python<'_>) -> Option<*mut T> {
        let alone = GIL_EXCLUDES.load(Ordering::Acquire) && self.users.load(Ordering::Acquire) == 0;
        alone.then(|| self.value.get())
    }
}

impl<T> fmt::Debug for GilCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GilCell")
            .field("users", &self.users.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// One use of a [`GilCell`] under way; ends when dropped.
pub(crate) struct User<'a>(&'a AtomicUsize);

impl Drop for User<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The value of a [`GilCell`], shared under its read lock.
pub(crate) struct Read<'a, T> {
    value: &'a T,
    // Fields drop in order: the lock before the count.
    _lock: RwLockReadGuard<'a, ()>,
    _user: User<'a>,
}

impl<T> Deref for Read<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

/// The value of a [`GilCell`], alone under its write lock.
pub(crate) struct Write<'a, T> {
    value: &'a mut T,
    // As in `Read`: the lock, then the count.
    _lock: RwLockWriteGuard<'a, ()>,
    _user: User<'a>,
}

impl<T> Deref for Write<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for Write<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}
