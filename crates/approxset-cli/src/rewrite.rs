//! Changing a saved filter in place, as `add` and `remove` do: a quick
//! check of the file before the keys are read, then one locked
//! read-modify-write ([`update`]): lock, load, change, write, unlock.
//!
//! While the lock of the filter file is held (`files::lock`) no other
//! writer can load or replace it, so two commands changing one file take
//! turns and neither loses the other's update. The new file is written
//! whole and renamed over the old one (`files::write_atomically`), so
//! readers, which take no lock, see the old filter or the new one. A change
//! that fails writes nothing, and a change that leaves the filter's bytes
//! as they were does not rewrite the file.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use approxset::{ApproxSet, Deletable, Variant};

use crate::error::CliError;
use crate::files;

/// What a command needs of the filter it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Any variant (`add`).
    Any,
    /// A variant that can delete (`remove`).
    Delete,
}

/// The file a command changes, opened under its lock: the file and its
/// length. Loaders read it once, in bounded chunks where the variant allows
/// (`approxset::load_streamed`), so no copy of the file is held.
pub(crate) struct Opened<'a> {
    pub(crate) path: &'a Path,
    pub(crate) file: File,
    pub(crate) len: u64,
}

impl Opened<'_> {
    /// The whole file, for a loader that needs its bytes.
    ///
    /// # Errors
    /// A failure naming the file when it cannot be read.
    pub(crate) fn bytes(&self) -> Result<Vec<u8>, CliError> {
        let meta = self
            .file
            .metadata()
            .map_err(|e| files::cannot_read(self.path, &e))?;
        files::read_opened(self.path, &self.file, &meta, files::StreamLimit::default())
    }
}

/// Loads any filter from the opened file, streamed.
///
/// # Errors
/// A failure naming the file when it is not a valid filter.
pub(crate) fn load_any(file: &Opened<'_>) -> Result<Box<dyn ApproxSet + Send + Sync>, CliError> {
    approxset::load_streamed(&file.file, file.len).map_err(|e| match e {
        approxset::Error::StaticFilter { variant } => static_refusal(file.path, variant),
        _ => files::file_error(file.path, &e),
    })
}

/// The error of `add` or `remove` on a static filter, which takes neither:
/// one line saying why and what to do instead.
pub(crate) fn static_refusal(path: &Path, variant: &str) -> CliError {
    CliError::failure(format!(
        "cannot change '{}': {variant} filters are static: rebuild from all keys with \
         `approxset build`",
        path.display()
    ))
}

/// The error of `remove` on a filter of `variant`, which cannot delete.
fn cannot_delete(path: &Path, variant: &'static str) -> CliError {
    if variant.parse::<Variant>().is_ok_and(Variant::is_static) {
        return static_refusal(path, variant);
    }
    let e = approxset::Error::DeleteUnsupported { variant };
    CliError::failure(format!("{e}: '{}' is unchanged", path.display()))
}

/// Loads a filter that can delete from the opened file, streamed.
///
/// # Errors
/// A failure naming the file when it is not a valid filter, and one
/// naming the variant when it cannot delete.
pub(crate) fn load_deletable(
    file: &Opened<'_>,
) -> Result<Box<dyn Deletable + Send + Sync>, CliError> {
    approxset::load_deletable_streamed(&file.file, file.len).map_err(|e| match e {
        approxset::Error::DeleteUnsupported { variant } => cannot_delete(file.path, variant),
        _ => files::file_error(file.path, &e),
    })
}

/// A quick check, before a command reads its keys and takes the lock, that
/// `path` looks like a filter it can change: a regular file (not a FIFO or
/// a device, which are refused without being opened) whose header names a
/// variant (one that can delete, for [`Need::Delete`]). Only the header is
/// read: the file is parsed once, by the locked load, which decides.
///
/// # Errors
/// A failure naming the file when it cannot be read, its header is not a
/// filter's, or it names a variant the command cannot change.
pub(crate) fn check(path: &Path, need: Need) -> Result<(), CliError> {
    // A FIFO or a device cannot be rewritten in place, and a FIFO read here
    // would leave nothing for the locked load to read (it would wait).
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(CliError::failure(format!(
            "cannot change '{}': it is not a regular file (a FIFO or a device); add and \
             remove rewrite a filter file in place",
            path.display()
        )));
    }
    let (mut file, meta) = files::open_filter_file(path)?;
    if meta.is_dir() {
        return Err(files::cannot_read(
            path,
            &std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory"),
        ));
    }
    let mut head = [0u8; 16];
    let got = file
        .by_ref()
        .take(16)
        .read(&mut head)
        .map_err(|e| files::cannot_read(path, &e))?;
    let header =
        approxset::format::Header::parse(&head[..got]).map_err(|e| files::load_error(path, &e))?;
    let variant: Variant = header
        .variant()
        .and_then(|name| name.parse().ok())
        .ok_or_else(|| {
            files::load_error(
                path,
                &approxset::Error::UnknownVariant { tag: header.tag() },
            )
        })?;
    if variant.is_static() {
        return Err(static_refusal(path, variant.name()));
    }
    if need == Need::Delete && !variant.supports_delete() {
        return Err(cannot_delete(path, variant.name()));
    }
    Ok(())
}

/// Changes the saved filter `path` under its lock: takes the lock (waiting
/// for any other writer), opens the file, loads it with `load` (once),
/// calls `change` on the filter, and, when the filter's bytes differ from
/// the file's, writes them page by page and renames them into place; then
/// releases the lock and returns what `change` returned. No copy of the
/// file is held beside the filter.
///
/// # Errors
/// The first error of locking, reading, `load`, `change`, saving or
/// writing. When `change` fails, nothing is written and the file stays as
/// it was (whatever `change` did to the loaded filter is dropped).
pub(crate) fn update<F, T>(
    path: &Path,
    load: impl FnOnce(&Opened<'_>) -> Result<Box<F>, CliError>,
    change: impl FnOnce(&mut F) -> Result<T, CliError>,
) -> Result<T, CliError>
where
    F: ApproxSet + ?Sized,
{
    let lock = files::lock(path, "filter")?;
    let (file, meta) = files::open_filter_file(path)?;
    if !meta.is_file() {
        // Swapped in since `check`.
        return check(path, Need::Any).and_then(|()| {
            Err(CliError::failure(format!(
                "cannot change '{}': it is not a regular file",
                path.display()
            )))
        });
    }
    let opened = Opened {
        path,
        file,
        len: meta.len(),
    };
    let mut filter = load(&opened)?;
    drop(opened);
    let result = change(&mut *filter)?;
    files::save_filter(path, &*filter, false, true)?;
    drop(lock);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    use crate::scratch::Scratch;

    /// A counting filter holding `keys`, saved to `path`; its bytes.
    fn save(path: &Path, keys: &[&str]) -> Vec<u8> {
        let mut f = Variant::Counting
            .builder()
            .seed(3)
            .build(100, 0.01)
            .unwrap();
        for key in keys {
            f.insert(*key).unwrap();
        }
        let bytes = f.to_bytes().unwrap();
        fs::write(path, &bytes).unwrap();
        bytes
    }

    #[test]
    fn a_change_is_made_under_the_lock_and_written() {
        let scratch = Scratch::new("change");
        let path = scratch.0.join("f.bin");
        save(&path, &["a", "b"]);
        let removed = update(&path, load_deletable, |filter| {
            // Another writer cannot take the lock meanwhile.
            let other = File::open(files::lock_path(&path)).unwrap();
            assert!(matches!(
                other.try_lock(),
                Err(fs::TryLockError::WouldBlock)
            ));
            Ok(filter.remove("a"))
        })
        .unwrap();
        assert!(removed.is_removed());
        let g = approxset::load(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(g.len(), 1);
        assert!(g.contains("b"));
        // The lock is free again: its file is gone.
        assert_eq!(scratch.entries(), ["f.bin"]);
    }

    #[test]
    fn a_failed_or_empty_change_writes_nothing() {
        let scratch = Scratch::new("failed");
        let path = scratch.0.join("f.bin");
        let before = save(&path, &["a"]);
        let e = update(&path, load_any, |filter| {
            filter.insert("b").unwrap();
            Err::<(), _>(CliError::failure("refused"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "refused");
        assert_eq!(fs::read(&path).unwrap(), before);
        // Nothing changed: the file is not rewritten (same inode on Unix).
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            || fs::metadata(&path).unwrap().ino()
        };
        #[cfg(unix)]
        let first = inode();
        let removal = update(&path, load_deletable, |filter| Ok(filter.remove("zz"))).unwrap();
        assert_eq!(removal, approxset::Removal::Absent);
        assert_eq!(fs::read(&path).unwrap(), before);
        #[cfg(unix)]
        assert_eq!(inode(), first);
        assert_eq!(scratch.entries(), ["f.bin"]);
    }

    #[test]
    fn checks_name_what_is_wrong() {
        let scratch = Scratch::new("check");
        let path = scratch.0.join("f.bin");
        let missing = scratch.0.join("missing.bin");
        let e = check(&missing, Need::Any).unwrap_err();
        assert!(e.to_string().contains("missing.bin"), "{e}");
        save(&path, &["a"]);
        check(&path, Need::Any).unwrap();
        check(&path, Need::Delete).unwrap();
        let mut classic = Variant::Classic.builder().seed(3).build(10, 0.01).unwrap();
        classic.insert("a").unwrap();
        fs::write(&path, classic.to_bytes().unwrap()).unwrap();
        check(&path, Need::Any).unwrap();
        let e = check(&path, Need::Delete).unwrap_err();
        assert!(e.to_string().contains("cannot delete"), "{e}");
        fs::write(&path, b"not a filter at all, but long enough").unwrap();
        assert!(check(&path, Need::Any).is_err());
    }
}
