//! Scratch directories for tests: one per test and process, removed when
//! dropped. Shared by the unit tests (`mod scratch` in `main.rs`) and the
//! integration tests (`tests/cli.rs` includes this file by path).

#![allow(dead_code)] // each includer uses a part of it

use std::path::PathBuf;

/// A scratch directory unique to one test of this process, removed when
/// dropped. `.0` is its path.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    /// An empty directory for the test `test`.
    pub(crate) fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("approxset-cli-test-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A path in the directory.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The path as a `&str` argument.
    pub(crate) fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }

    /// The names in the directory, sorted.
    pub(crate) fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The names in the directory but the lock files (`.NAME.lock`) that
    /// commands writing a filter leave next to it, sorted.
    pub(crate) fn files(&self) -> Vec<String> {
        self.entries()
            .into_iter()
            .filter(|e| !(e.starts_with('.') && e.ends_with(".lock")))
            .collect()
    }

    /// Checks that no temporary file (`*.tmp`) is left in the directory.
    pub(crate) fn assert_no_temporaries(&self) {
        let temporaries: Vec<String> = self
            .entries()
            .into_iter()
            .filter(|e| e.ends_with(".tmp"))
            .collect();
        assert!(temporaries.is_empty(), "{temporaries:?}");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
