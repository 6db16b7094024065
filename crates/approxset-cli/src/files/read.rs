//! Reading: inputs (a path, or `-` for standard input) and saved filters,
//! with errors that name the file (see the module `files`).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use approxset::paged::PagedFilter;
use approxset::{ApproxSet, Membership};

use crate::error::CliError;
use crate::output;

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
pub(super) fn parse_bytes(text: &str) -> Result<u64, String> {
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
/// inserts (for `merge`): a regular file streamed into the filter's words
/// (`approxset::load_streamed`, no copy of the file held), anything else
/// read whole as [`read_filter`] reads it, within `limit`.
///
/// # Errors
/// A failure naming the file: unreadable, not a valid filter, or a static
/// filter.
pub(crate) fn load_insertable(
    path: &Path,
    limit: StreamLimit,
) -> Result<Box<dyn ApproxSet + Send + Sync>, CliError> {
    let (file, meta) = open_filter_file(path)?;
    if !meta.is_file() {
        let bytes = read_opened(path, &file, &meta, limit)?;
        return approxset::load(&bytes).map_err(|e| load_error(path, &e));
    }
    approxset::load_streamed(&file, meta.len()).map_err(|e| file_error(path, &e))
}

/// The error of a library load that read the file `path` itself: a read
/// that failed (the file shrank, a disk error) says it could not be read,
/// anything else that the file does not load.
pub(crate) fn file_error(path: &Path, error: &approxset::Error) -> CliError {
    match error {
        approxset::Error::Io { kind, message } => {
            cannot_read(path, &io::Error::new(*kind, message.clone()))
        }
        _ => load_error(path, error),
    }
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

#[cfg(test)]
mod tests {
    use std::fs::{self, OpenOptions};
    use std::path::Path;

    use super::super::paths::*;
    use super::super::saved;
    use super::super::write::*;
    use super::*;
    use crate::scratch::Scratch;

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

    #[test]
    fn names_in_messages() {
        assert_eq!(describe(Path::new("-")), "standard input");
        assert_eq!(describe(Path::new("a.txt")), "'a.txt'");
        assert_eq!(directory_of(Path::new("a.txt")), Path::new("."));
        assert_eq!(directory_of(Path::new("d/a.txt")), Path::new("d"));
    }
}
