//! Temporary files: named, registered while they exist, removed on errors,
//! unwinding and signals, and the stale ones of killed writers removed
//! (see the module `files`).

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

#[cfg(unix)]
use super::paths::names;
use super::paths::{base_name, directory_of, open_regular, sibling};

/// The temporary files this process is writing, so that a signal can
/// remove them (see [`cleanup_on_signals`]), and whether a file has been
/// renamed into place.
#[derive(Debug)]
pub(super) struct Registry {
    /// The temporary files that exist.
    live: Vec<PathBuf>,
    /// Whether this run has renamed its file into place: its work is done.
    replaced: bool,
}

/// The registry of this process.
pub(super) static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    replaced: false,
});

/// The registry of temporary files, even after a panic elsewhere.
pub(super) fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes every temporary file in `live` (ignoring those already gone) and
/// empties it; returns how many there were.
pub(super) fn remove_all(live: &mut Vec<PathBuf>) -> usize {
    let count = live.len();
    for path in live.drain(..) {
        let _ = fs::remove_file(path);
    }
    count
}

/// What the signal thread does with a signal, given the registry: exit
/// (removing every temporary file) unless this run's file is already in
/// place with no write in progress and no signal was deferred before.
pub(super) fn defers_signal(registry: &Registry, deferred_before: bool) -> bool {
    registry.replaced && registry.live.is_empty() && !deferred_before
}

/// Starts, once, a thread that waits for SIGINT, SIGTERM or SIGHUP, removes
/// every registered temporary file and exits with 128 + the signal number;
/// once the run's file is renamed into place, the first signal is let pass
/// (the run has succeeded and finishes its report). Before the first
/// temporary file the signals keep their default action.
#[cfg(unix)]
pub(super) fn cleanup_on_signals() {
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
pub(super) fn cleanup_on_signals() {}

/// Names tried for a temporary file, `.NAME.PID.0.tmp` to `.NAME.PID.99.tmp`.
pub(super) const TEMPORARY_NAMES: u32 = 100;

/// The temporary file number `attempt` of this process for `path`.
pub(super) fn temporary_name(path: &Path, attempt: u32) -> PathBuf {
    sibling(path, &format!(".{}.{attempt}.tmp", std::process::id()))
}

/// Whether `entry` is named as a temporary file of the file `name` is:
/// `.NAME.PID.N.tmp`, with PID and N decimal numbers. The two numbers make
/// the name unambiguous: it cannot be the temporary file of another name.
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) fn is_temporary_of(name: &OsStr, entry: &OsStr) -> bool {
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

/// Claims the new temporary file `file`, created at `path`: takes its lock
/// (waiting for a cleaner that may hold it for an instant) and checks that
/// `path` still names it. `false` when a cleaner removed it first. Where
/// the file system has no locks the file is used unlocked: a cleaner
/// cannot take its lock either, so it never removes it.
#[cfg(unix)]
pub(super) fn claim(file: &File, path: &Path) -> bool {
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
pub(super) fn claim(_: &File, _: &Path) -> bool {
    true
}

/// Removes the stale temporary files of `path`, left by writers that are
/// gone (killed outright): each `.NAME.PID.N.tmp` next to it whose lock can
/// be taken, since a live writer holds its own (see the module doc).
/// Best effort: a file that cannot be removed stays.
#[cfg(unix)]
pub(super) fn remove_stale(path: &Path) {
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
pub(super) fn remove_stale(_: &Path) {}

/// A temporary file next to a file being written, open and locked (its
/// lock tells other writers it is in use): registered while it exists, and
/// removed when dropped unless renamed into place ([`replace`](Self::replace)).
#[derive(Debug)]
pub(super) struct Temporary {
    pub(super) path: PathBuf,
    pub(super) file: File,
    pub(super) kept: bool,
}

impl Temporary {
    /// Removes the stale temporary files of `path`, then creates a new one
    /// named after it and this process (`.NAME.PID.N.tmp`), open for
    /// writing and locked.
    ///
    /// # Errors
    /// The first error creating it; when every name is taken, an error
    /// that says so.
    pub(super) fn create(path: &Path) -> io::Result<Temporary> {
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
    pub(super) fn replace(mut self, target: &Path) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use std::fs::{self, File};
    use std::path::{Path, PathBuf};

    use super::super::write::*;
    use super::*;
    use crate::scratch::Scratch;

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
}
