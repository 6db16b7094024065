//! Files: reading inputs (a path or `-` for standard input), loading saved
//! filters with errors that name the file, and writing files whole or not
//! at all (a temporary file in the same directory, then a rename).
//!
//! Concurrency. Commands that rewrite a filter file (`build`, `add`,
//! `remove`) serialize on an exclusive lock ([`File::lock`]) of a sibling
//! lock file, `.NAME.lock` next to the filter `NAME` (next to the file a
//! symbolic link points at). The lock file is never renamed or deleted, so
//! every writer locks the same inode; it is left in place afterwards, since
//! deleting a lock file races with a writer that has just opened it. `add`
//! and `remove` hold the lock from loading the filter to the rename of the
//! new file (`rewrite`), so no writer loses another's update; `build` takes
//! it only for the rename. A writer waits for the lock, it does not fail.
//! Readers (`query`, `info`) take no lock: the rename is atomic, so they
//! see the old file or the new one, never a mix.
//!
//! Temporary files are registered while they exist and removed on every
//! error path, on unwinding, and (on Unix) when SIGINT, SIGTERM or SIGHUP
//! arrives: a thread waiting for those signals removes them and exits with
//! 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use approxset::ApproxSet;

use crate::CliError;

/// The path that stands for standard input.
pub(crate) const STDIN: &str = "-";

/// The most bytes read from a filter path that is not a regular file (a
/// device, a FIFO): no limit but the address space. Memory grows only with
/// the bytes that actually arrive, the header is checked as soon as its
/// first 16 bytes are in, and reading stops at the length it announces. A
/// regular file is read up to its size.
pub(crate) const STREAM_LIMIT: u64 = u64::MAX;

/// Whether `path` is `-`, standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// How a path is named in messages: `'words.txt'`, or `standard input`.
pub(crate) fn describe(path: &Path) -> String {
    if is_stdin(path) {
        "standard input".to_owned()
    } else {
        format!("'{}'", path.display())
    }
}

/// Reads all of `path`, or of standard input for `-`.
///
/// # Errors
/// A failure naming the file (`what` says what it is, e.g. `--input`).
pub(crate) fn read_input(path: &Path, what: &str) -> Result<Vec<u8>, CliError> {
    let result = if is_stdin(path) {
        let mut data = Vec::new();
        io::stdin().lock().read_to_end(&mut data).map(|_| data)
    } else {
        fs::read(path)
    };
    result.map_err(|e| CliError::io(format_args!("cannot read {what} {}", describe(path)), &e))
}

/// Reads the saved filter `path`: its header first, checked at once, then
/// exactly the length the header announces, refused when that is more
/// than the file holds (a regular file) or [`STREAM_LIMIT`] (anything else).
/// So `/dev/zero` fails after 16 bytes instead of filling memory.
///
/// # Errors
/// A failure naming the file when it cannot be read or is not a filter.
pub(crate) fn read_filter(path: &Path) -> Result<Vec<u8>, CliError> {
    let cannot_read =
        |e: &io::Error| CliError::io(format_args!("cannot read '{}'", path.display()), e);
    let file = File::open(path).map_err(|e| cannot_read(&e))?;
    let meta = file.metadata().map_err(|e| cannot_read(&e))?;
    if meta.is_dir() {
        return Err(cannot_read(&io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        )));
    }
    let regular = meta.is_file();
    let limit = if regular { meta.len() } else { STREAM_LIMIT };
    match approxset::format::read_all_limited(&file, limit) {
        Ok(bytes) if regular && (bytes.len() as u64) < meta.len() => Err(load_error(
            path,
            &approxset::Error::TrailingBytes {
                expected: bytes.len() as u64,
                found: meta.len(),
            },
        )),
        Ok(bytes) => Ok(bytes),
        Err(approxset::Error::Io { kind, message }) => {
            Err(cannot_read(&io::Error::new(kind, message)))
        }
        // A regular file shorter than its header says is truncated.
        Err(approxset::Error::TooLarge { needed, .. }) if regular => Err(load_error(
            path,
            &approxset::Error::Truncated {
                needed: u64::try_from(needed).unwrap_or(u64::MAX),
                available: meta.len(),
            },
        )),
        Err(e) => Err(load_error(path, &e)),
    }
}

/// The error of a filter file that does not load: always a failure (exit
/// code 1), whatever the library's error, since the file is the problem.
pub(crate) fn load_error(path: &Path, error: &approxset::Error) -> CliError {
    CliError::failure(format!("cannot load '{}': {error}", path.display()))
}

/// Reads and loads the saved filter `path` (any variant).
///
/// # Errors
/// A failure naming the file: unreadable, or not a valid filter.
pub(crate) fn load_filter(
    path: &Path,
) -> Result<(Box<dyn ApproxSet + Send + Sync>, Vec<u8>), CliError> {
    let bytes = read_filter(path)?;
    let filter = approxset::load(&bytes).map_err(|e| load_error(path, &e))?;
    Ok((filter, bytes))
}

/// The directory a file `path` goes into (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Where writing `path` really goes: the target of a symbolic link, so that
/// replacing the file keeps the link; `path` itself otherwise.
fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// `.{name}{suffix}` next to `path` (`approxset` when it has no name).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_else(|| "approxset".as_ref()));
    name.push(suffix);
    directory_of(path).join(name)
}

/// The lock file of the filter file `path`: `.NAME.lock` next to the file
/// that `path` names (or that a symbolic link `path` points at).
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    sibling(&resolve(path), ".lock")
}

/// An exclusive lock on a filter file (on its lock file), held until dropped.
#[derive(Debug)]
pub(crate) struct WriteLock {
    /// The open lock file; closing it releases the lock.
    _file: File,
}

/// Takes the exclusive lock of the filter file `path`, waiting while
/// another command holds it. The lock file is created if need be and left
/// in place.
///
/// # Errors
/// A failure naming the file and its lock file when the lock file cannot be
/// opened or locked (`what` says what the file is, e.g. `filter`).
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
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock)
        .or_else(|e| {
            // A lock file made by another user may be read-only to us; a
            // shared descriptor locks as well.
            if e.kind() == io::ErrorKind::PermissionDenied && lock.exists() {
                File::open(&lock)
            } else {
                Err(e)
            }
        })
        .map_err(|e| fail(&e))?;
    loop {
        match file.lock() {
            Ok(()) => return Ok(WriteLock { _file: file }),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(fail(&e)),
        }
    }
}

/// The temporary files this process is writing, so that a signal can
/// remove them (see [`cleanup_on_signals`]).
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry of temporary files, even after a panic elsewhere.
fn temporaries() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes every temporary file in `live` (ignoring those already gone) and
/// empties it; returns how many there were.
fn remove_all(live: &mut Vec<PathBuf>) -> usize {
    let count = live.len();
    for path in live.drain(..) {
        let _ = fs::remove_file(path);
    }
    count
}

/// Starts, once, a thread that waits for SIGINT, SIGTERM or SIGHUP, removes
/// every registered temporary file and exits with 128 + the signal number.
/// Before the first temporary file the signals keep their default action.
#[cfg(unix)]
fn cleanup_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        // Should the thread not start, dropping `signals` with the closure
        // restores the default actions.
        let _ = std::thread::Builder::new()
            .name("approxset-signals".to_owned())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    // Held until exit: no temporary is created or renamed
                    // meanwhile.
                    let mut live = temporaries();
                    remove_all(&mut live);
                    std::process::exit(128 + signal);
                }
            });
    });
}

/// Signals are not handled on this platform.
#[cfg(not(unix))]
fn cleanup_on_signals() {}

/// A temporary file next to a file being written: registered while it
/// exists, and removed when dropped unless [`kept`](Self::keep) after its
/// rename.
#[derive(Debug)]
struct Temporary {
    path: PathBuf,
    kept: bool,
}

impl Temporary {
    /// Creates a new temporary file next to `path`, named after it and this
    /// process (`.NAME.PID.N.tmp`); returns it open for writing.
    fn create(path: &Path) -> io::Result<(File, Temporary)> {
        cleanup_on_signals();
        // Created and registered under the registry's lock, so a signal
        // sees it either not yet created or registered.
        let mut live = temporaries();
        let mut last = None;
        for attempt in 0..100u32 {
            let temp = sibling(path, &format!(".{}.{attempt}.tmp", std::process::id()));
            match File::create_new(&temp) {
                Ok(file) => {
                    live.push(temp.clone());
                    return Ok((
                        file,
                        Temporary {
                            path: temp,
                            kept: false,
                        },
                    ));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
    }

    /// The file has been renamed into place: no longer a temporary.
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let mut live = temporaries();
        if let Some(at) = live.iter().position(|p| *p == self.path) {
            live.swap_remove(at);
        }
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

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
    let (file, temp) = Temporary::create(&target).map_err(|e| fail(&e))?;
    drop(file);
    drop(temp);
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
    write_whole(path, bytes, what, false)
}

/// [`write_atomically`] for a filter file other commands may rewrite at the
/// same time: the temporary file is written first, then the lock of `path`
/// is taken (waiting for any other writer) and held for the rename.
///
/// # Errors
/// As [`write_atomically`] and [`lock`].
pub(crate) fn replace_locked(path: &Path, bytes: &[u8], what: &str) -> Result<(), CliError> {
    write_whole(path, bytes, what, true)
}

/// [`write_atomically`], taking the lock of `path` before the rename when
/// `lock_for_rename`.
fn write_whole(
    path: &Path,
    bytes: &[u8],
    what: &str,
    lock_for_rename: bool,
) -> Result<(), CliError> {
    let target = resolve(path);
    let fail =
        |e: &io::Error| CliError::io(format_args!("cannot write {what} '{}'", path.display()), e);
    let (mut file, temp) = Temporary::create(&target).map_err(|e| fail(&e))?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(&target) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()
    })();
    drop(file);
    // On any error `temp` is dropped, which removes the file.
    written.map_err(|e| fail(&e))?;
    let held = if lock_for_rename {
        Some(lock(path, what)?)
    } else {
        None
    };
    fs::rename(&temp.path, &target).map_err(|e| fail(&e))?;
    temp.keep();
    drop(held);
    // Make the rename itself durable where a directory can be synced.
    #[cfg(unix)]
    if let Ok(dir) = File::open(directory_of(&target)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        // The lock file stays; the filter itself was never created.
        assert_eq!(scratch.entries(), [".f.bin.lock"]);
        let e = lock(&scratch.0.join("no-such-dir").join("f.bin"), "filter").unwrap_err();
        assert!(e.to_string().starts_with("cannot lock filter"), "{e}");
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

    #[test]
    fn temporaries_are_registered_until_renamed_or_dropped() {
        let scratch = Scratch::new("registry");
        let target = scratch.0.join("out.bin");
        let registered = |p: &Path| temporaries().iter().any(|q| q == p);

        // Dropped (every error path): removed and unregistered.
        let (file, temp) = Temporary::create(&target).unwrap();
        let path = temp.path.clone();
        assert!(path.exists() && registered(&path));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".out.bin.") && name.ends_with(".tmp"),
            "{name}"
        );
        drop(file);
        drop(temp);
        assert!(!path.exists() && !registered(&path));

        // Kept (renamed into place): unregistered, not removed.
        let (file, temp) = Temporary::create(&target).unwrap();
        drop(file);
        fs::rename(&temp.path, &target).unwrap();
        let path = temp.path.clone();
        temp.keep();
        assert!(!registered(&path) && target.exists());

        // What the signal handler does with the registered files.
        let (file, temp) = Temporary::create(&target).unwrap();
        drop(file);
        let mut live = vec![temp.path.clone(), scratch.0.join("already-gone.tmp")];
        assert_eq!(remove_all(&mut live), 2);
        assert!(live.is_empty() && !temp.path.exists());
        drop(temp); // the file is gone already: nothing to do
        assert_eq!(scratch.entries(), ["out.bin"]);
    }

    #[test]
    fn a_replacement_under_the_lock_waits_for_it() {
        let scratch = Scratch::new("replace-locked");
        let path = scratch.0.join("f.bin");
        let held = lock(&path, "filter").unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || replace_locked(&path, b"new", "filter").unwrap())
        };
        // The writer cannot rename while the lock is held: its temporary
        // file appears, whole, and stays until the lock is released.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !scratch
            .entries()
            .iter()
            .any(|e| e.ends_with(".tmp") && fs::read(scratch.0.join(e)).is_ok_and(|b| b == b"new"))
        {
            assert!(std::time::Instant::now() < deadline, "no temporary file");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!path.exists());
        drop(held);
        writer.join().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(scratch.entries(), [".f.bin.lock", "f.bin"]);
    }

    #[test]
    fn names_in_messages() {
        assert_eq!(describe(Path::new("-")), "standard input");
        assert_eq!(describe(Path::new("a.txt")), "'a.txt'");
        assert_eq!(directory_of(Path::new("a.txt")), Path::new("."));
        assert_eq!(directory_of(Path::new("d/a.txt")), Path::new("d"));
    }
}
