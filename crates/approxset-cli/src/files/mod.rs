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

mod lock;
mod paths;
mod read;
mod temporary;
mod write;

pub(crate) use lock::*;
pub(crate) use read::*;
pub(crate) use write::*;

/// A saved filter of `variant` holding `items` keys `{prefix}{i}`: its bytes.
#[cfg(test)]
pub(crate) fn saved(variant: approxset::Variant, prefix: &str, items: usize) -> Vec<u8> {
    let mut f = variant.builder().seed(4).build(items, 0.01).unwrap();
    for i in 0..1000 {
        f.insert(&format!("{prefix}-{i}")).unwrap();
    }
    f.to_bytes().unwrap()
}
