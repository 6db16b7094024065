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

use crate::{CliError, files};

/// What a command needs of the filter it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Any variant (`add`).
    Any,
    /// A variant that can delete (`remove`).
    Delete,
}

/// Loads any filter from the `bytes` of the file `path`.
///
/// # Errors
/// A failure naming the file when the bytes are not a valid filter.
pub(crate) fn load_any(
    path: &Path,
    bytes: &[u8],
) -> Result<Box<dyn ApproxSet + Send + Sync>, CliError> {
    approxset::load(bytes).map_err(|e| match e {
        approxset::Error::StaticFilter { variant } => static_refusal(path, variant),
        _ => files::load_error(path, &e),
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

/// Whether the variant named `name` is static.
fn is_static(name: &str) -> bool {
    name.parse::<Variant>().is_ok_and(Variant::is_static)
}

/// Loads a filter that can delete from the `bytes` of the file `path`.
///
/// # Errors
/// A failure naming the file when the bytes are not a valid filter, and
/// one naming the variant when it cannot delete.
pub(crate) fn load_deletable(
    path: &Path,
    bytes: &[u8],
) -> Result<Box<dyn Deletable + Send + Sync>, CliError> {
    approxset::load_deletable(bytes).map_err(|e| match e {
        approxset::Error::DeleteUnsupported { variant } if is_static(variant) => {
            static_refusal(path, variant)
        }
        approxset::Error::DeleteUnsupported { .. } => {
            CliError::failure(format!("{e}: '{}' is unchanged", path.display()))
        }
        _ => files::load_error(path, &e),
    })
}

/// A quick check, before a command reads its keys and takes the lock, that
/// `path` looks like a filter it can change: a regular file (not a FIFO or
/// a device, which are refused without being opened) whose header names a
/// variant (one that can delete, for [`Need::Delete`]). Anything else is
/// loaded in full to report the same error the locked load would. The
/// locked load still decides.
///
/// # Errors
/// As [`files::read_filter`], [`load_any`] and [`load_deletable`].
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
    let mut head = [0u8; approxset::format::HEADER_LEN];
    let variant = File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .ok()
        .and_then(|()| approxset::format::Header::parse(&head).ok())
        .and_then(|header| header.variant()?.parse::<Variant>().ok());
    if let Some(variant) = variant {
        if variant.is_static() {
            return Err(static_refusal(path, variant.name()));
        }
        if need == Need::Any || variant.supports_delete() {
            return Ok(());
        }
    }
    let bytes = files::read_filter(path, files::StreamLimit::default())?;
    match need {
        Need::Any => load_any(path, &bytes).map(drop),
        Need::Delete => load_deletable(path, &bytes).map(drop),
    }
}

/// Changes the saved filter `path` under its lock: takes the lock (waiting
/// for any other writer), reads the file, loads it with `load`, calls
/// `change` on the filter, and, when the filter's bytes differ from the
/// file's, writes them whole and renames them into place; then releases
/// the lock and returns what `change` returned.
///
/// # Errors
/// The first error of locking, reading, `load`, `change`, saving or
/// writing. When `change` fails, nothing is written and the file stays as
/// it was (whatever `change` did to the loaded filter is dropped).
pub(crate) fn update<F, T>(
    path: &Path,
    load: impl FnOnce(&Path, &[u8]) -> Result<Box<F>, CliError>,
    change: impl FnOnce(&mut F) -> Result<T, CliError>,
) -> Result<T, CliError>
where
    F: ApproxSet + ?Sized,
{
    let lock = files::lock(path, "filter")?;
    // A regular file (`check` refused anything else) is read up to its
    // size; the default limit covers one swapped in since.
    let old = files::read_filter(path, files::StreamLimit::default())?;
    let mut filter = load(path, &old)?;
    // The file's bytes are not needed past the load: the new ones are
    // compared with the file as they are written.
    drop(old);
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
        assert_eq!(scratch.entries(), [".f.bin.lock", "f.bin"]);
        // The lock is free again.
        File::open(files::lock_path(&path))
            .unwrap()
            .try_lock()
            .unwrap();
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
        assert_eq!(scratch.entries(), [".f.bin.lock", "f.bin"]);
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
