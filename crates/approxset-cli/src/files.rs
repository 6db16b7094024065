//! Files: reading inputs (a path or `-` for standard input), loading saved
//! filters with errors that name the file, and writing files whole or not
//! at all (a temporary file in the same directory, then a rename).

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use approxset::{ApproxSet, Deletable};

use crate::CliError;

/// The path that stands for standard input.
pub(crate) const STDIN: &str = "-";

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

/// Reads the saved filter `path`.
///
/// # Errors
/// A failure naming the file when it cannot be read.
pub(crate) fn read_filter(path: &Path) -> Result<Vec<u8>, CliError> {
    fs::read(path).map_err(|e| CliError::io(format_args!("cannot read '{}'", path.display()), &e))
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

/// Reads and loads the saved filter `path` as one that can delete.
///
/// # Errors
/// A failure naming the file when it is unreadable or not a valid filter,
/// and one naming the variant when it cannot delete.
pub(crate) fn load_deletable_filter(
    path: &Path,
) -> Result<Box<dyn Deletable + Send + Sync>, CliError> {
    let bytes = read_filter(path)?;
    approxset::load_deletable(&bytes).map_err(|e| match e {
        approxset::Error::DeleteUnsupported { .. } => {
            CliError::failure(format!("{e}: '{}' is unchanged", path.display()))
        }
        _ => load_error(path, &e),
    })
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

/// Creates a new temporary file next to `path`, named after it and this
/// process; returns it and its path.
fn create_temporary(path: &Path) -> io::Result<(File, PathBuf)> {
    let dir = directory_of(path);
    let name = path
        .file_name()
        .map_or_else(|| OsString::from("approxset"), |n| n.to_os_string());
    let mut last = None;
    for attempt in 0..100u32 {
        let mut temp_name = OsString::from(".");
        temp_name.push(&name);
        temp_name.push(format!(".{}.{attempt}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        match File::create_new(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
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
    let (file, temp) = create_temporary(&target).map_err(|e| fail(&e))?;
    drop(file);
    let _ = fs::remove_file(temp);
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
    let target = resolve(path);
    let fail =
        |e: &io::Error| CliError::io(format_args!("cannot write {what} '{}'", path.display()), e);
    let (mut file, temp) = create_temporary(&target).map_err(|e| fail(&e))?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(&target) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(fail(&e));
    }
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

    /// A scratch directory removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("approxset-cli-unit-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn atomic_writes_replace_and_leave_no_temporary() {
        let scratch = Scratch::new("atomic");
        let path = scratch.0.join("out.bin");
        write_atomically(&path, b"one", "filter").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        write_atomically(&path, b"two", "filter").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(entries(&scratch.0), ["out.bin"]);
    }

    #[test]
    fn checks_do_not_create_the_file() {
        let scratch = Scratch::new("check");
        let path = scratch.0.join("plot.svg");
        check_writable(&path, "plot").unwrap();
        assert!(entries(&scratch.0).is_empty());
        let e = check_writable(&scratch.0, "plot").unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let missing = scratch.0.join("no-such-dir").join("plot.svg");
        let e = check_writable(&missing, "plot").unwrap_err();
        assert!(e.to_string().starts_with("cannot write plot"), "{e}");
        assert!(write_atomically(&missing, b"x", "plot").is_err());
    }

    #[test]
    fn names_in_messages() {
        assert_eq!(describe(Path::new("-")), "standard input");
        assert_eq!(describe(Path::new("a.txt")), "'a.txt'");
        assert_eq!(directory_of(Path::new("a.txt")), Path::new("."));
        assert_eq!(directory_of(Path::new("d/a.txt")), Path::new("d"));
    }
}
