//! The paths beside a file (its directory, its sibling files, the target
//! of a link) and opening a path only when it is a regular file: the floor
//! the lock and the temporary files stand on.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self};
use std::path::{Path, PathBuf};

/// The directory a file `path` goes into (`.` for a bare file name).
pub(super) fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Where writing `path` really goes: the target of a symbolic link, so that
/// replacing the file keeps the link; `path` itself otherwise.
pub(super) fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// The name the sibling files of `path` are named after (`approxset` when
/// it has none).
pub(super) fn base_name(path: &Path) -> &OsStr {
    path.file_name().unwrap_or_else(|| "approxset".as_ref())
}

/// `.{name}{suffix}` next to `path`.
pub(super) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(base_name(path));
    name.push(suffix);
    directory_of(path).join(name)
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
pub(super) fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
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
pub(super) fn not_regular(meta: &fs::Metadata) -> io::Error {
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
pub(super) fn special_kind(kind: fs::FileType) -> Option<&'static str> {
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
pub(super) fn special_kind(_: fs::FileType) -> Option<&'static str> {
    None
}

/// Whether `path` still names the inode `file` has open.
#[cfg(unix)]
pub(super) fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
        _ => false,
    }
}
