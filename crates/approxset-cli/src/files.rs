//! Files: reading inputs (a path or `-` for standard input), loading saved
//! filters with errors that name the file, and writing files whole or not
//! at all (a temporary file in the same directory, then a rename).
//!
//! Reading. A saved filter is read header first ([`read_filter`]): a
//! regular file up to its size, anything else (a FIFO, a device,
//! `<(command)`) up to `--stream-limit` ([`StreamLimit`], 16 GiB by
//! default), so a stream that announces more is refused after 16 bytes and
//! memory grows only with the bytes that arrive.
//!
//! Concurrency. Commands that rewrite a filter file (`build`, `add`,
//! `remove`) serialize on an exclusive lock ([`File::lock`]) of a sibling
//! lock file, `.NAME.lock` next to the filter `NAME` (next to the file a
//! symbolic link points at). A writer removes the lock file when it is done,
//! while it still holds the lock, so none stays beside the filter; a writer
//! that waited on the removed file finds, once it has the lock, that the
//! name no longer names the file it locked, and starts over on the name's
//! new file, so every writer that holds a lock holds the one the name names
//! (Unix; elsewhere the lock file stays). It is
//! opened without following a symbolic link and without blocking, and must
//! be a regular file: a link, a FIFO or a device there is refused with an
//! error, never followed, created through, or waited on. `add` and
//! `remove` hold the lock from loading the filter to the rename of the new
//! file (`rewrite`), so no writer loses another's update; `build` takes it
//! only for the rename. A writer waits for the lock, it does not fail.
//! Readers (`query`, `info`) take no lock: the rename is atomic, so they
//! see the old file or the new one, never a mix. They never map a file:
//! `query` reads a version-4 file page by page with positioned reads
//! ([`open_paged`]), checking each page against the file's page table
//! before using it, and everything else whole ([`read_filter`]), checked
//! whole; a rename leaves the opened file intact, so a reader that opened
//! the old file keeps answering from it, and a file changed or truncated
//! in place by another program is an error, never a wrong answer or a
//! signal.
//!
//! Temporary files, `.NAME.PID.N.tmp` next to `NAME`, are registered while
//! they exist and removed on every error path, on unwinding, and (on Unix)
//! when SIGINT, SIGTERM or SIGHUP arrives: a thread waiting for those
//! signals removes them and exits with 128 + the signal's number (130 for
//! SIGINT, 143 for SIGTERM). A signal that arrives once the command's file
//! has been renamed into place does not undo that success: the command
//! finishes its report and exits 0 (a second signal ends it with 128 + N).
//! Every command writes at most one file, as its last step.
//!
//! Stale temporary files. A process killed outright (SIGKILL, a crash, a
//! power cut) leaves its temporary file behind, as large as the file it
//! was writing. Before it creates a temporary file for `NAME`, every
//! writer removes the stale ones: each `.NAME.PID.N.tmp` whose lock
//! ([`File::lock`] on the temporary file itself) it can take. This is safe
//! with any number of processes at once, because
//! - a writer holds the lock of its temporary file from before it writes a
//!   byte until after the rename (or removal), and the operating system
//!   releases it only when the writer is gone;
//! - a writer claims a new file it created by locking it and then checking
//!   that its name still names the inode it locked; if a cleaner removed
//!   the file in the instant between creating and locking, the check fails
//!   and the writer moves on to the next name;
//! - a cleaner removes a file only while it holds that file's lock and
//!   after checking that the name still names the inode it locked, so it
//!   can only ever remove a file no live writer has claimed.
//!
//! Two cleaners at once take turns on each file's lock. The cleaning is
//! Unix only (elsewhere an open file cannot be removed anyway).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use approxset::paged::PagedFilter;
use approxset::{ApproxSet, Membership};

use crate::{CliError, output};

/// The path that stands for standard input.
pub(crate) const STDIN: &str = "-";

/// The default of `--stream-limit`: 16 GiB.
pub(crate) const DEFAULT_STREAM_LIMIT: u64 = 16 << 30;

/// `--stream-limit`: the most bytes read from a filter file that is not a
/// regular file. Flattened into the commands that read a filter file.
#[derive(Clone, Copy, Debug, clap::Args)]
pub(crate) struct StreamLimit {
    /// The most bytes read from a FILTER that is not a regular file (a
    /// FIFO, a device, `<(command)`), in bytes or with a binary unit (KiB,
    /// MiB, GiB, TiB). The filter's header is checked as soon as its first
    /// 16 bytes arrive, and one announcing more than this is refused then;
    /// memory grows only with the bytes received. A regular file is read
    /// up to its size, whatever this says.
    #[arg(
        long = "stream-limit",
        value_name = "BYTES",
        default_value = "16GiB",
        value_parser = parse_bytes
    )]
    pub(crate) bytes: u64,
}

impl Default for StreamLimit {
    fn default() -> Self {
        StreamLimit {
            bytes: DEFAULT_STREAM_LIMIT,
        }
    }
}

/// Parses a size: a number of bytes, or one with a binary unit (`B`, `KiB`,
/// `MiB`, `GiB`, `TiB`, or just `K`, `M`, `G`, `T`; case is ignored).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let bad =
        || format!("expected a number of bytes such as 1048576, 512MiB or 16GiB, got '{text}'");
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let shift = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return Err(bad()),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{text}' is more bytes than can be counted"))
}

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
/// than the file holds (a regular file) or than `limit` (anything else),
/// with the library's bounded read, whose memory grows only with the bytes
/// received. So `/dev/zero` fails after 16 bytes instead of filling
/// memory, and so does a FIFO announcing more than `limit`.
///
/// # Errors
/// A failure naming the file when it cannot be read or is not a filter, or
/// (not a regular file) announces more than `limit`.
pub(crate) fn read_filter(path: &Path, limit: StreamLimit) -> Result<Vec<u8>, CliError> {
    let (file, meta) = open_filter_file(path)?;
    read_opened(path, &file, &meta, limit)
}

/// The error of a filter file `path` that cannot be read.
pub(crate) fn cannot_read(path: &Path, e: &io::Error) -> CliError {
    CliError::io(format_args!("cannot read '{}'", path.display()), e)
}

/// `path` opened for reading, with its metadata.
pub(crate) fn open_filter_file(path: &Path) -> Result<(File, fs::Metadata), CliError> {
    let file = File::open(path).map_err(|e| cannot_read(path, &e))?;
    let meta = file.metadata().map_err(|e| cannot_read(path, &e))?;
    Ok((file, meta))
}

/// [`read_filter`] of the opened `file` (with its metadata `meta`).
pub(crate) fn read_opened(
    path: &Path,
    file: &File,
    meta: &fs::Metadata,
    limit: StreamLimit,
) -> Result<Vec<u8>, CliError> {
    let cannot_read = |e: &io::Error| cannot_read(path, e);
    if meta.is_dir() {
        return Err(cannot_read(&io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        )));
    }
    let regular = meta.is_file();
    let max = if regular { meta.len() } else { limit.bytes };
    match approxset::format::read_all_limited(file, max) {
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
        Err(approxset::Error::TooLarge { needed, .. }) => Err(CliError::failure(format!(
            "cannot load '{}': its header announces {needed} bytes, more than --stream-limit \
             allows for a file that is not a regular file ({}); nothing more was read",
            path.display(),
            output::bytes_exact(limit.bytes)
        ))),
        Err(e) => Err(load_error(path, &e)),
    }
}

/// The error of a filter file that does not load: always a failure (exit
/// code 1), whatever the library's error, since the file is the problem.
pub(crate) fn load_error(path: &Path, error: &approxset::Error) -> CliError {
    CliError::failure(format!(
        "cannot load '{}': {}",
        path.display(),
        cli_wording(error)
    ))
}

/// A library error as the CLI says it: a message that names the library's
/// functions names the CLI's commands instead.
pub(crate) fn cli_wording(error: &approxset::Error) -> String {
    match error {
        approxset::Error::StaticFilter { variant } => format!(
            "the {variant} filter is static (built once from every key by `approxset build`, \
             it takes no inserts and merges with nothing): `approxset query` and `approxset \
             info` read it; to change it, build it again from all the keys"
        ),
        _ => error.to_string(),
    }
}

/// Reads and loads the saved filter `path`, of a variant that takes
/// inserts (for `merge`); see [`read_filter`] for `limit`.
///
/// # Errors
/// A failure naming the file: unreadable, not a valid filter, or a static
/// filter.
pub(crate) fn load_insertable(
    path: &Path,
    limit: StreamLimit,
) -> Result<Box<dyn ApproxSet + Send + Sync>, CliError> {
    let bytes = read_filter(path, limit)?;
    approxset::load(&bytes).map_err(|e| load_error(path, &e))
}

/// The saved filter `path` opened to be read page by page
/// ([`approxset::paged::PagedFilter`]): a regular file of format version 4
/// and a variant with one flat payload; `None` for anything else (read it
/// whole with [`read_filter`]).
///
/// # Errors
/// A failure naming the file when it cannot be opened or its page table or
/// first page is not as written.
pub(crate) fn open_paged(path: &Path) -> Result<Option<PagedFilter>, CliError> {
    // Told by the path first: a FIFO opened here would lose its writer
    // before the whole read that follows.
    if !fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let (file, meta) = open_filter_file(path)?;
    if !meta.is_file() || meta.len() < 16 {
        return Ok(None);
    }
    let mut head = [0u8; 16];
    approxset::format::PageRead::read_exact_at(&file, &mut head, 0)
        .map_err(|e| load_error(path, &e))?;
    if !PagedFilter::supports(&head) {
        return Ok(None);
    }
    PagedFilter::open(Box::new(file), meta.len())
        .map(Some)
        .map_err(|e| load_error(path, &e))
}

/// The error of a lookup in the filter file `path` that met a page that
/// cannot be read or is not as written.
pub(crate) fn damaged(path: &Path, error: &approxset::Error) -> CliError {
    CliError::failure(format!(
        "cannot answer from '{}': {error} (the file changed or is damaged)",
        path.display()
    ))
}

/// The filter in `bytes` (read whole from the file `path`), every check
/// of `approxset::load` made, the checksum included, as a read-only view:
/// the lookups read this copy. A variant that has no view is loaded.
///
/// # Errors
/// A failure naming the file when it is not a valid filter.
pub(crate) fn open_filter<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<Box<dyn Membership + Send + Sync + 'a>, CliError> {
    match approxset::view_verified(bytes) {
        Err(approxset::Error::Unsupported { .. }) => approxset::load_membership(bytes)
            .map(|f| -> Box<dyn Membership + Send + Sync + 'a> { f }),
        opened => opened,
    }
    .map_err(|e| load_error(path, &e))
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

/// The name the sibling files of `path` are named after (`approxset` when
/// it has none).
fn base_name(path: &Path) -> &OsStr {
    path.file_name().unwrap_or_else(|| "approxset".as_ref())
}

/// `.{name}{suffix}` next to `path`.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(base_name(path));
    name.push(suffix);
    directory_of(path).join(name)
}

/// The lock file of the filter file `path`: `.NAME.lock` next to the file
/// that `path` names (or that a symbolic link `path` points at).
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    sibling(&resolve(path), ".lock")
}

/// Opens `path` as `options` say, and only if it is a regular file. On Unix
/// the last component is never followed when it is a symbolic link
/// (`O_NOFOLLOW`: with `create`, a dangling link's target is not created
/// either) and the open does not block (`O_NONBLOCK`: a FIFO or device
/// opens at once, to be refused; the flag changes nothing for a regular
/// file's reads, writes and locks). The constants come from `libc`, which
/// has the right values for each Unix. Then the open file itself is checked
/// (`fstat`), so nothing swapped in after a check of the name slips through.
///
/// # Errors
/// The open's error; a link, FIFO, device, directory or socket is an
/// `InvalidInput` error saying what it is.
fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW refuses a link with ELOOP (EMLINK on some BSDs), and
        // a directory does not open for writing: say what is there instead.
        match fs::symlink_metadata(path) {
            Ok(meta) if !meta.is_file() => not_regular(&meta),
            _ => e,
        }
    })?;
    let meta = file.metadata()?;
    if meta.is_file() {
        Ok(file)
    } else {
        Err(not_regular(&meta))
    }
}

/// The error of a file that is not a regular file, saying what it is.
fn not_regular(meta: &fs::Metadata) -> io::Error {
    let kind = meta.file_type();
    let what = if kind.is_symlink() {
        Some("a symbolic link")
    } else if kind.is_dir() {
        Some("a directory")
    } else {
        special_kind(kind)
    };
    let message = match what {
        Some(what) => format!("it is {what}, not a regular file"),
        None => "it is not a regular file".to_owned(),
    };
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// What a special file is: a FIFO, a socket or a device.
#[cfg(unix)]
fn special_kind(kind: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_block_device() || kind.is_char_device() {
        Some("a device")
    } else {
        None
    }
}

/// Special files are not told apart on this platform.
#[cfg(not(unix))]
fn special_kind(_: fs::FileType) -> Option<&'static str> {
    None
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
/// through a symbolic link) and left in place; it must be a regular file.
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

/// The temporary files this process is writing, so that a signal can
/// remove them (see [`cleanup_on_signals`]), and whether a file has been
/// renamed into place.
#[derive(Debug)]
struct Registry {
    /// The temporary files that exist.
    live: Vec<PathBuf>,
    /// Whether this run has renamed its file into place: its work is done.
    replaced: bool,
}

/// The registry of this process.
static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    replaced: false,
});

/// The registry of temporary files, even after a panic elsewhere.
fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
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

/// What the signal thread does with a signal, given the registry: exit
/// (removing every temporary file) unless this run's file is already in
/// place with no write in progress and no signal was deferred before.
fn defers_signal(registry: &Registry, deferred_before: bool) -> bool {
    registry.replaced && registry.live.is_empty() && !deferred_before
}

/// Starts, once, a thread that waits for SIGINT, SIGTERM or SIGHUP, removes
/// every registered temporary file and exits with 128 + the signal number;
/// once the run's file is renamed into place, the first signal is let pass
/// (the run has succeeded and finishes its report). Before the first
/// temporary file the signals keep their default action.
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
                let mut deferred = false;
                for signal in signals.forever() {
                    // Held until exit: no temporary is created or renamed
                    // meanwhile.
                    let mut registry = registry();
                    if defers_signal(&registry, deferred) {
                        deferred = true;
                        continue;
                    }
                    remove_all(&mut registry.live);
                    std::process::exit(128 + signal);
                }
            });
    });
}

/// Signals are not handled on this platform.
#[cfg(not(unix))]
fn cleanup_on_signals() {}

/// Names tried for a temporary file, `.NAME.PID.0.tmp` to `.NAME.PID.99.tmp`.
const TEMPORARY_NAMES: u32 = 100;

/// The temporary file number `attempt` of this process for `path`.
fn temporary_name(path: &Path, attempt: u32) -> PathBuf {
    sibling(path, &format!(".{}.{attempt}.tmp", std::process::id()))
}

/// Whether `entry` is named as a temporary file of the file `name` is:
/// `.NAME.PID.N.tmp`, with PID and N decimal numbers. The two numbers make
/// the name unambiguous: it cannot be the temporary file of another name.
#[cfg_attr(not(unix), allow(dead_code))]
fn is_temporary_of(name: &OsStr, entry: &OsStr) -> bool {
    let Some(middle) = entry
        .as_encoded_bytes()
        .strip_prefix(b".")
        .and_then(|rest| rest.strip_prefix(name.as_encoded_bytes()))
        .and_then(|rest| rest.strip_prefix(b"."))
        .and_then(|rest| rest.strip_suffix(b".tmp"))
    else {
        return false;
    };
    let number = |part: Option<&[u8]>| {
        part.is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
    };
    let mut parts = middle.split(|&b| b == b'.');
    number(parts.next()) && number(parts.next()) && parts.next().is_none()
}

/// Whether `path` still names the inode `file` has open.
#[cfg(unix)]
fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
        _ => false,
    }
}

/// Claims the new temporary file `file`, created at `path`: takes its lock
/// (waiting for a cleaner that may hold it for an instant) and checks that
/// `path` still names it. `false` when a cleaner removed it first. Where
/// the file system has no locks the file is used unlocked: a cleaner
/// cannot take its lock either, so it never removes it.
#[cfg(unix)]
fn claim(file: &File, path: &Path) -> bool {
    loop {
        match file.lock() {
            Ok(()) => return names(path, file),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}

/// Temporary files are not locked on this platform.
#[cfg(not(unix))]
fn claim(_: &File, _: &Path) -> bool {
    true
}

/// Removes the stale temporary files of `path`, left by writers that are
/// gone (killed outright): each `.NAME.PID.N.tmp` next to it whose lock can
/// be taken, since a live writer holds its own (see the module doc).
/// Best effort: a file that cannot be removed stays.
#[cfg(unix)]
fn remove_stale(path: &Path) {
    let name = base_name(path);
    let Ok(entries) = fs::read_dir(directory_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        if !is_temporary_of(name, &entry.file_name()) {
            continue;
        }
        let candidate = entry.path();
        // Not a link, a FIFO or a device: none of those is a temporary file.
        let Ok(file) = open_regular(&candidate, OpenOptions::new().read(true)) else {
            continue;
        };
        if file.try_lock().is_ok() && names(&candidate, &file) {
            let _ = fs::remove_file(&candidate);
        }
    }
}

/// Stale temporary files are not removed on this platform.
#[cfg(not(unix))]
fn remove_stale(_: &Path) {}

/// A temporary file next to a file being written, open and locked (its
/// lock tells other writers it is in use): registered while it exists, and
/// removed when dropped unless renamed into place ([`replace`](Self::replace)).
#[derive(Debug)]
struct Temporary {
    path: PathBuf,
    file: File,
    kept: bool,
}

impl Temporary {
    /// Removes the stale temporary files of `path`, then creates a new one
    /// named after it and this process (`.NAME.PID.N.tmp`), open for
    /// writing and locked.
    ///
    /// # Errors
    /// The first error creating it; when every name is taken, an error
    /// that says so.
    fn create(path: &Path) -> io::Result<Temporary> {
        cleanup_on_signals();
        remove_stale(path);
        // Created and registered under the registry's lock, so a signal
        // sees it either not yet created or registered.
        let mut registry = registry();
        for attempt in 0..TEMPORARY_NAMES {
            let temp = temporary_name(path, attempt);
            match File::create_new(&temp) {
                Ok(file) => {
                    if !claim(&file, &temp) {
                        // Removed by a cleaner before it was locked.
                        continue;
                    }
                    registry.live.push(temp.clone());
                    return Ok(Temporary {
                        path: temp,
                        file,
                        kept: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        let shown = |attempt| {
            temporary_name(path, attempt)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "every temporary file name is taken ('{}' to '{}' exist and are in use or \
                 cannot be removed)",
                shown(0),
                shown(TEMPORARY_NAMES - 1)
            ),
        ))
    }

    /// Renames the file over `target`; on success it is no longer a
    /// temporary file, and the run's file is in place (a signal now lets
    /// the run finish). Done under the registry's lock, so a signal sees
    /// the file either still temporary or renamed.
    ///
    /// # Errors
    /// The rename's error; the file is then removed when dropped.
    fn replace(mut self, target: &Path) -> io::Result<()> {
        let mut registry = registry();
        let renamed = fs::rename(&self.path, target);
        if renamed.is_ok() {
            registry.live.retain(|p| *p != self.path);
            registry.replaced = true;
            self.kept = true;
        }
        drop(registry);
        renamed
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        let mut registry = registry();
        if let Some(at) = registry.live.iter().position(|p| *p == self.path) {
            registry.live.swap_remove(at);
        }
        // Removed while still locked, then `file` closes (and unlocks).
        let _ = fs::remove_file(&self.path);
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
struct Compared<'a, W: Write> {
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
fn write_whole(
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

    /// A filter of `variant` holding `prefix-0` … `prefix-999`, saved.
    fn saved(variant: approxset::Variant, prefix: &str, items: usize) -> Vec<u8> {
        let mut f = variant.builder().seed(4).build(items, 0.01).unwrap();
        for i in 0..1000 {
            f.insert(&format!("{prefix}-{i}")).unwrap();
        }
        f.to_bytes().unwrap()
    }

    #[test]
    fn a_paged_filter_outlives_its_replacement() {
        let scratch = Scratch::new("paged");
        let path = scratch.0.join("f.bin");
        for variant in [approxset::Variant::Classic, approxset::Variant::Cuckoo] {
            let old = saved(variant, "old", 2_000);
            write_atomically(&path, &old, "filter").unwrap();
            let paged = open_paged(&path).unwrap().expect("a version-4 file");
            assert!(
                (0..1000).all(|i| paged.contains_bytes(format!("old-{i}").as_bytes()).unwrap())
            );
            // Replaced through the writers' path (temporary file, rename)
            // by another filter of another size.
            let new = saved(variant, "new", 50_000);
            write_atomically(&path, &new, "filter").unwrap();
            assert_eq!(fs::read(&path).unwrap(), new);
            // The open file is still the old one: the lookups answer as the
            // old filter, from pages not read before too.
            let missed = (0..1000)
                .filter(|i| !paged.contains_bytes(format!("new-{i}").as_bytes()).unwrap())
                .count();
            assert!(missed > 950, "{variant}: {missed} of the new keys absent");
            assert!(
                (0..1000).all(|i| paged.contains_bytes(format!("old-{i}").as_bytes()).unwrap())
            );
            // A new opening sees the new filter.
            let again = open_paged(&path).unwrap().unwrap();
            assert!(
                (0..1000).all(|i| again.contains_bytes(format!("new-{i}").as_bytes()).unwrap())
            );
        }
    }

    /// A file changed in place after it was opened: every lookup that
    /// reads a page written since is an error, never an answer; one
    /// truncated is an error too (a positioned read, not a signal).
    #[test]
    fn a_file_changed_in_place_is_an_error_not_an_answer() {
        let scratch = Scratch::new("in-place");
        let path = scratch.0.join("f.bin");
        for variant in [approxset::Variant::Blocked, approxset::Variant::Cuckoo] {
            let bytes = saved(variant, "k", 100_000);
            fs::write(&path, &bytes).unwrap();
            let paged = open_paged(&path).unwrap().unwrap();
            // Overwritten with zeros where it lies (as `dd conv=notrunc`).
            let file = OpenOptions::new().write(true).open(&path).unwrap();
            use std::os::unix::fs::FileExt;
            file.write_all_at(&vec![0u8; bytes.len() - 4096], 4096)
                .unwrap();
            let results: Vec<_> = (0..1000)
                .map(|i| paged.contains_bytes(format!("k-{i}").as_bytes()))
                .collect();
            // Pages read before the overwrite (the first, the last word's)
            // may still answer, rightly; no member is ever absent.
            assert!(
                results.iter().all(|r| matches!(r, Ok(true) | Err(_))),
                "{variant}: a member answered absent"
            );
            let failed = results.iter().filter(|r| r.is_err()).count();
            assert!(failed > 990, "{variant}: {failed} lookups failed");
            // Truncated under an opened reader.
            fs::write(&path, &bytes).unwrap();
            let paged = open_paged(&path).unwrap().unwrap();
            file.set_len(0).unwrap();
            let err = paged.contains_bytes(b"k-1").unwrap_err();
            assert!(matches!(err, approxset::Error::Io { .. }), "{err}");
            assert!(err.to_string().contains("shorter"), "{err}");
        }
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

    #[test]
    fn temporaries_are_registered_until_renamed_or_dropped() {
        let scratch = Scratch::new("registry");
        let target = scratch.0.join("out.bin");
        let registered = |p: &Path| registry().live.iter().any(|q| q == p);

        // Dropped (every error path): removed and unregistered.
        let temp = Temporary::create(&target).unwrap();
        let path = temp.path.clone();
        assert!(path.exists() && registered(&path));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".out.bin.") && name.ends_with(".tmp"),
            "{name}"
        );
        assert!(is_temporary_of("out.bin".as_ref(), name.as_ref()));
        drop(temp);
        assert!(!path.exists() && !registered(&path));

        // Renamed into place: unregistered, not removed.
        let temp = Temporary::create(&target).unwrap();
        let path = temp.path.clone();
        temp.replace(&target).unwrap();
        assert!(!registered(&path) && target.exists());

        // What the signal handler does with the registered files.
        let temp = Temporary::create(&target).unwrap();
        let mut live = vec![temp.path.clone(), scratch.0.join("already-gone.tmp")];
        assert_eq!(remove_all(&mut live), 2);
        assert!(live.is_empty() && !temp.path.exists());
        drop(temp); // the file is gone already: nothing to do
        assert_eq!(scratch.entries(), ["out.bin"]);
    }

    #[test]
    fn a_signal_after_the_rename_is_deferred_once() {
        let mut registry = Registry {
            live: Vec::new(),
            replaced: false,
        };
        // Nothing in place yet: the signal ends the run.
        assert!(!defers_signal(&registry, false));
        registry.live.push(PathBuf::from("x.tmp"));
        assert!(!defers_signal(&registry, false));
        // The file is in place and nothing is being written: the run
        // finishes, unless a signal was let pass already.
        registry.live.clear();
        registry.replaced = true;
        assert!(defers_signal(&registry, false));
        assert!(!defers_signal(&registry, true));
    }

    #[test]
    fn temporary_names_are_recognised_exactly() {
        let is = |name: &str, entry: &str| is_temporary_of(name.as_ref(), entry.as_ref());
        assert!(is("f.bin", ".f.bin.123.0.tmp"));
        assert!(is("f.bin", ".f.bin.1.99.tmp"));
        // Another file's temporaries, the lock file, and other shapes.
        assert!(!is("f", ".f.bin.123.0.tmp"));
        assert!(!is("f.bin", ".f.bin.5.123.0.tmp"));
        assert!(!is("f.bin", ".f.bin.lock"));
        assert!(!is("f.bin", ".f.bin.123.tmp"));
        assert!(!is("f.bin", ".f.bin.12a.0.tmp"));
        assert!(!is("f.bin", ".f.bin..0.tmp"));
        assert!(!is("f.bin", "f.bin.123.0.tmp"));
        assert!(!is("f.bin", ".f.bin.123.0.tmp.x"));
    }

    #[cfg(unix)]
    #[test]
    fn stale_temporaries_go_and_live_ones_stay() {
        let scratch = Scratch::new("stale");
        let target = scratch.0.join("f.bin");
        // Left by a writer that was killed: nobody holds their locks.
        for name in [".f.bin.4000000.0.tmp", ".f.bin.4000001.7.tmp"] {
            fs::write(scratch.0.join(name), vec![0u8; 4096]).unwrap();
        }
        // Not temporary files of f.bin, or not files: left alone.
        fs::write(scratch.0.join(".g.bin.4000000.0.tmp"), b"x").unwrap();
        fs::write(scratch.0.join(".f.bin.4000000.tmp"), b"x").unwrap();
        fs::create_dir(scratch.0.join(".f.bin.4000002.0.tmp")).unwrap();
        std::os::unix::fs::symlink("f.bin", scratch.0.join(".f.bin.4000003.0.tmp")).unwrap();
        // A live writer's, locked as this process's temporaries are.
        let live = scratch.0.join(".f.bin.4000004.0.tmp");
        let held = File::create_new(&live).unwrap();
        assert!(claim(&held, &live));
        // And this process's own, in use.
        let own = Temporary::create(&target).unwrap();
        let mine = own.path.clone();

        let next = Temporary::create(&target).unwrap();
        let mut left = scratch.entries();
        left.retain(|e| *e != next.path.file_name().unwrap().to_string_lossy());
        let mut expected = vec![
            ".f.bin.4000000.tmp".to_owned(),
            ".f.bin.4000002.0.tmp".to_owned(),
            ".f.bin.4000003.0.tmp".to_owned(),
            ".f.bin.4000004.0.tmp".to_owned(),
            ".g.bin.4000000.0.tmp".to_owned(),
            mine.file_name().unwrap().to_string_lossy().into_owned(),
        ];
        expected.sort();
        assert_eq!(left, expected);
        drop((own, next, held));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_removed_before_it_is_claimed_is_not_used() {
        let scratch = Scratch::new("claim");
        let path = scratch.0.join(".f.bin.1.0.tmp");
        let file = File::create_new(&path).unwrap();
        fs::remove_file(&path).unwrap();
        assert!(!claim(&file, &path));
    }

    #[test]
    fn taken_temporary_names_are_named_in_the_error() {
        let scratch = Scratch::new("taken");
        let target = scratch.0.join("f.bin");
        let held: Vec<Temporary> = (0..TEMPORARY_NAMES)
            .map(|_| Temporary::create(&target).unwrap())
            .collect();
        let e = Temporary::create(&target).unwrap_err();
        let pid = std::process::id();
        assert_eq!(
            e.to_string(),
            format!(
                "every temporary file name is taken ('.f.bin.{pid}.0.tmp' to \
                 '.f.bin.{pid}.99.tmp' exist and are in use or cannot be removed)"
            )
        );
        let e = write_atomically(&target, b"x", "filter").unwrap_err();
        assert!(e.to_string().starts_with("cannot write filter"), "{e}");
        assert!(
            e.to_string().contains("every temporary file name is taken"),
            "{e}"
        );
        drop(held);
        write_atomically(&target, b"x", "filter").unwrap();
        assert_eq!(scratch.entries(), ["f.bin"]);
    }

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_bytes("16GiB"), Ok(DEFAULT_STREAM_LIMIT));
        assert_eq!(parse_bytes("16g"), Ok(16 << 30));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("2KiB"), Ok(2048));
        assert_eq!(parse_bytes("1TiB"), Ok(1 << 40));
        assert_eq!(parse_bytes("7B"), Ok(7));
        for bad in ["", "GiB", "1.5GiB", "16GB", "-1", "99999999999TiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
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

    #[test]
    fn names_in_messages() {
        assert_eq!(describe(Path::new("-")), "standard input");
        assert_eq!(describe(Path::new("a.txt")), "'a.txt'");
        assert_eq!(directory_of(Path::new("a.txt")), Path::new("."));
        assert_eq!(directory_of(Path::new("d/a.txt")), Path::new("d"));
    }
}
