//! Writing a file whole or not at all: a temporary file beside it, then a
//! rename, under the file's lock where other writers may be at work.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use approxset::Membership;

use super::lock::lock;
use super::paths::{directory_of, resolve};
use super::temporary::Temporary;
use crate::error::CliError;

/// Checks before a long run that `path` can be written, without creating it:
/// it is not a directory, and a file can be created in its directory.
///
/// # Errors
/// A failure naming the file (`what` says what it is, e.g. `plot`).
pub(crate) fn check_writable(path: &Path, what: &str) -> Result<(), CliError> {
    let fail =
        |e: &io::Error| CliError::io(format_args!("cannot write {what} '{}'", path.display()), e);
    let target = resolve(path);
    if target.is_dir() {
        return Err(fail(&io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        )));
    }
    drop(Temporary::create(&target).map_err(|e| fail(&e))?);
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: into a temporary file in
/// the same directory, flushed to disk, then renamed over `path`. A failure
/// at any step leaves `path` as it was (absent, or the old content) and
/// removes the temporary file. An existing file keeps its permissions; a
/// symbolic link keeps pointing at the (replaced) file.
///
/// # Errors
/// A failure naming the file (`what` says what it is, e.g. `filter`).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8], what: &str) -> Result<(), CliError> {
    write_whole(path, what, false, |file| {
        file.write_all(bytes)?;
        Ok(true)
    })
    .map(drop)
}

/// [`write_atomically`] for a filter file other commands may rewrite at the
/// same time: the temporary file is written first, then the lock of `path`
/// is taken (waiting for any other writer) and held for the rename.
///
/// # Errors
/// As [`write_atomically`] and [`lock`].
pub(crate) fn replace_locked(path: &Path, bytes: &[u8], what: &str) -> Result<(), CliError> {
    write_whole(path, what, true, |file| {
        file.write_all(bytes)?;
        Ok(true)
    })
    .map(drop)
}

/// Saves `filter` to `path` as [`write_atomically`] writes bytes, but page
/// by page ([`Membership::write_into`]): no copy of the filter is made in
/// memory. With `lock_for_rename` the lock of `path` is taken (waiting for
/// any other writer) and held for the rename. With `unless_same`, a file
/// already holding exactly these bytes is left as it is (compared as they
/// are written, a page at a time). Returns the bytes of the saved filter.
///
/// # Errors
/// A failure naming the file, and as [`lock`].
pub(crate) fn save_filter(
    path: &Path,
    filter: &(impl Membership + ?Sized),
    lock_for_rename: bool,
    unless_same: bool,
) -> Result<u64, CliError> {
    let old = if unless_same {
        File::open(path).ok()
    } else {
        None
    };
    let mut len = 0;
    write_whole(path, "filter", lock_for_rename, |file| {
        let mut sink = Compared {
            out: io::BufWriter::with_capacity(1 << 16, file),
            old: old.as_ref(),
            pos: 0,
            same: old.is_some(),
            scratch: Vec::new(),
        };
        filter.write_into(&mut sink).map_err(|e| match e {
            approxset::Error::Io { kind, message } => io::Error::new(kind, message),
            e => io::Error::other(format!("cannot save the filter: {e}")),
        })?;
        sink.out.flush()?;
        len = sink.pos;
        let same = sink.same
            && old
                .as_ref()
                .and_then(|f| f.metadata().ok())
                .is_some_and(|m| m.len() == sink.pos);
        Ok(!same)
    })?;
    Ok(len)
}

/// A sink that writes to `out` and compares what it writes with the bytes
/// of `old` at the same offsets.
pub(super) struct Compared<'a, W: Write> {
    out: W,
    old: Option<&'a File>,
    pos: u64,
    same: bool,
    scratch: Vec<u8>,
}

impl<W: Write> Write for Compared<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write_all(buf)?;
        if self.same
            && let Some(old) = self.old
        {
            self.scratch.resize(buf.len(), 0);
            self.same =
                approxset::format::PageRead::read_exact_at(old, &mut self.scratch, self.pos)
                    .is_ok()
                    && self.scratch == buf;
        }
        self.pos += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes `path` whole or not at all with `fill`, which writes the
/// temporary file and says whether to rename it into place (`false`: drop
/// it, leaving `path` as it is); the lock of `path` is taken for the rename
/// when `lock_for_rename`. Returns whether `path` was replaced.
pub(super) fn write_whole(
    path: &Path,
    what: &str,
    lock_for_rename: bool,
    fill: impl FnOnce(&mut File) -> io::Result<bool>,
) -> Result<bool, CliError> {
    let target = resolve(path);
    let fail =
        |e: &io::Error| CliError::io(format_args!("cannot write {what} '{}'", path.display()), e);
    let mut temp = Temporary::create(&target).map_err(|e| fail(&e))?;
    let written = (|| {
        if !fill(&mut temp.file)? {
            return Ok(false);
        }
        if let Ok(meta) = fs::metadata(&target) {
            temp.file.set_permissions(meta.permissions())?;
        }
        temp.file.sync_all()?;
        Ok(true)
    })();
    // On any error, or when nothing changed, `temp` is dropped, which
    // removes the file.
    if !written.map_err(|e| fail(&e))? {
        return Ok(false);
    }
    let held = if lock_for_rename {
        Some(lock(path, what)?)
    } else {
        None
    };
    temp.replace(&target).map_err(|e| fail(&e))?;
    drop(held);
    // Make the rename itself durable where a directory can be synced.
    #[cfg(unix)]
    if let Ok(dir) = File::open(directory_of(&target)) {
        let _ = dir.sync_all();
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::lock::*;
    use super::super::saved;
    use super::*;
    use crate::scratch::Scratch;

    #[test]
    fn atomic_writes_replace_and_leave_no_temporary() {
        let scratch = Scratch::new("atomic");
        let path = scratch.0.join("out.bin");
        write_atomically(&path, b"one", "filter").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        write_atomically(&path, b"two", "filter").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(scratch.entries(), ["out.bin"]);
    }

    #[test]
    fn checks_do_not_create_the_file() {
        let scratch = Scratch::new("check");
        let path = scratch.0.join("plot.svg");
        check_writable(&path, "plot").unwrap();
        assert!(scratch.entries().is_empty());
        let e = check_writable(&scratch.0, "plot").unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let missing = scratch.0.join("no-such-dir").join("plot.svg");
        let e = check_writable(&missing, "plot").unwrap_err();
        assert!(e.to_string().starts_with("cannot write plot"), "{e}");
        assert!(write_atomically(&missing, b"x", "plot").is_err());
    }

    #[test]
    fn a_replacement_under_the_lock_waits_for_it() {
        let scratch = Scratch::new("replace-locked");
        let path = scratch.0.join("f.bin");
        let held = lock(&path, "filter").unwrap();
        let new = saved(approxset::Variant::Classic, "new", 100);
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let f = approxset::load(&saved(approxset::Variant::Classic, "new", 100)).unwrap();
                save_filter(&path, &*f, true, false).unwrap()
            })
        };
        // The writer cannot rename while the lock is held: its temporary
        // file appears, whole, and stays until the lock is released.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !scratch
            .entries()
            .iter()
            .any(|e| e.ends_with(".tmp") && fs::read(scratch.0.join(e)).is_ok_and(|b| b == new))
        {
            assert!(std::time::Instant::now() < deadline, "no temporary file");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!path.exists());
        drop(held);
        assert_eq!(writer.join().unwrap(), new.len() as u64);
        assert_eq!(fs::read(&path).unwrap(), new);
        assert_eq!(scratch.entries(), ["f.bin"]);
    }
}
