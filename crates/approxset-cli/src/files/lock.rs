//! The lock of a filter file: `.NAME.lock` beside it, taken by every
//! writer and removed by the last holder (see the module `files`).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

#[cfg(unix)]
use super::paths::names;
use super::paths::{open_regular, resolve, sibling};
use crate::error::CliError;

/// The lock file of the filter file `path`: `.NAME.lock` next to the file
/// that `path` names (or that a symbolic link `path` points at).
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    sibling(&resolve(path), ".lock")
}

/// An exclusive lock on a filter file (on its lock file), held until
/// dropped; dropping it removes the lock file (while still holding it), so
/// no `.NAME.lock` stays beside the filter.
#[derive(Debug)]
pub(crate) struct WriteLock {
    /// The open lock file; closing it releases the lock.
    file: File,
    /// Its path.
    path: PathBuf,
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Safe with any number of writers: a writer that opened this inode
        // and waits for its lock finds, once it has it, that the name no
        // longer names it, and starts over on the name's new file (`lock`).
        // Unix only: elsewhere an open file cannot be removed.
        #[cfg(unix)]
        if names(&self.path, &self.file) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Takes the exclusive lock of the filter file `path`, waiting while
/// another command holds it. The lock file is created if need be (never
/// through a symbolic link) and removed when the lock is dropped; it must
/// be a regular file. A lock taken on a file the previous holder removed
/// meanwhile is let go and taken again on the name's new file.
///
/// # Errors
/// A failure naming the file and its lock file when the lock file cannot be
/// opened or locked, or is not a regular file (`what` says what the file
/// is, e.g. `filter`).
pub(crate) fn lock(path: &Path, what: &str) -> Result<WriteLock, CliError> {
    let lock = lock_path(path);
    let fail = |e: &io::Error| {
        CliError::io(
            format_args!(
                "cannot lock {what} '{}' (lock file '{}')",
                path.display(),
                lock.display()
            ),
            e,
        )
    };
    loop {
        let file = open_regular(
            &lock,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )
        .or_else(|e| {
            // A lock file made by another user may be read-only to us; a
            // shared descriptor locks as well.
            if e.kind() != io::ErrorKind::PermissionDenied {
                return Err(e);
            }
            match open_regular(&lock, OpenOptions::new().read(true)) {
                Err(missing) if missing.kind() == io::ErrorKind::NotFound => Err(e),
                opened => opened,
            }
        })
        .map_err(|e| fail(&e))?;
        match file.lock() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(fail(&e)),
        }
        // The writer before us may have removed the file we waited on (as
        // it releases the lock): then the lock is the name's new file's.
        #[cfg(unix)]
        if !names(&lock, &file) {
            continue;
        }
        return Ok(WriteLock { file, path: lock });
    }
}

#[cfg(test)]
mod tests {
    use std::fs::{self, File, OpenOptions};
    use std::path::Path;

    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn a_held_lock_keeps_other_writers_out() {
        let scratch = Scratch::new("lock");
        let path = scratch.0.join("f.bin");
        assert_eq!(lock_path(&path), scratch.0.join(".f.bin.lock"));
        assert_eq!(lock_path(Path::new("f.bin")), Path::new("./.f.bin.lock"));
        let held = lock(&path, "filter").unwrap();
        // Another open file description of the lock file cannot lock it.
        let other = File::open(lock_path(&path)).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(fs::TryLockError::WouldBlock)
        ));
        drop(held);
        other.try_lock().unwrap();
        other.unlock().unwrap();
        // The lock file is gone with the lock; the filter itself was never
        // created.
        assert!(scratch.entries().is_empty(), "{:?}", scratch.entries());
        let e = lock(&scratch.0.join("no-such-dir").join("f.bin"), "filter").unwrap_err();
        assert!(e.to_string().starts_with("cannot lock filter"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_writer_that_waited_on_a_removed_lock_file_holds_the_new_one() {
        let scratch = Scratch::new("lock-waiter");
        let path = scratch.0.join("f.bin");
        for _ in 0..20 {
            let held = lock(&path, "filter").unwrap();
            let (locked, has_lock) = std::sync::mpsc::channel();
            let (release, released) = std::sync::mpsc::channel::<()>();
            let waiter = {
                let path = path.clone();
                std::thread::spawn(move || {
                    let lock = lock(&path, "filter").unwrap();
                    locked.send(()).unwrap();
                    released.recv().unwrap();
                    drop(lock);
                })
            };
            // Whether the waiter opened the old file (removed as `held` is
            // dropped) or the new one, it ends up holding the lock of the
            // file the name names: a third writer cannot take it.
            drop(held);
            has_lock.recv().unwrap();
            let third = File::open(lock_path(&path)).unwrap();
            assert!(matches!(
                third.try_lock(),
                Err(fs::TryLockError::WouldBlock)
            ));
            release.send(()).unwrap();
            waiter.join().unwrap();
            assert!(scratch.entries().is_empty(), "{:?}", scratch.entries());
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_and_its_target_share_one_lock() {
        let scratch = Scratch::new("lock-link");
        let target = scratch.0.join("real.bin");
        fs::write(&target, b"x").unwrap();
        let link = scratch.0.join("link.bin");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(
            lock_path(&link).canonicalize().ok(),
            None,
            "not created yet"
        );
        let _held = lock(&link, "filter").unwrap();
        assert_eq!(
            lock_path(&link).canonicalize().unwrap(),
            lock_path(&target).canonicalize().unwrap()
        );
    }

    #[cfg(unix)]
    #[test]
    fn lock_files_must_be_regular_files() {
        let scratch = Scratch::new("lock-kinds");
        // A dangling link: neither followed nor its target created.
        let target = scratch.0.join("elsewhere");
        std::os::unix::fs::symlink(&target, scratch.0.join(".a.bin.lock")).unwrap();
        let e = lock(&scratch.0.join("a.bin"), "filter").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("it is a symbolic link, not a regular file"),
            "{e}"
        );
        assert!(fs::symlink_metadata(&target).is_err());
        // A directory.
        fs::create_dir(scratch.0.join(".b.bin.lock")).unwrap();
        let e = lock(&scratch.0.join("b.bin"), "filter").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("it is a directory, not a regular file"),
            "{e}"
        );
        // A device, opened without blocking and refused.
        let e = open_regular(Path::new("/dev/null"), OpenOptions::new().read(true)).unwrap_err();
        assert_eq!(e.to_string(), "it is a device, not a regular file");
    }
}
