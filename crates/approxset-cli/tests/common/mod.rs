//! Helpers shared by the CLI's end-to-end test files: running the binary
//! and reading its JSON.
#![allow(dead_code)]

use std::process::{Command, Output};

use serde_json::Value;

pub(crate) fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_approxset"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs with `--json`, checks success and a clean standard output, and
/// returns the parsed document.
pub(crate) fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    parsed(&run(&all), &format!("{args:?}"))
}

/// Checks that a run succeeded, else fails naming `what` and showing its
/// standard error.
pub(crate) fn succeeded(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Checks that a run succeeded (as [`succeeded`]) and returns its standard output parsed as one JSON
/// document.
pub(crate) fn parsed(out: &Output, what: &str) -> Value {
    succeeded(out, what);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Checks that a run failed with `code` and one `error:` line on standard
/// error containing each of `texts`, and printed nothing on standard output.
pub(crate) fn assert_fails(out: &Output, code: i32, texts: &[&str], what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{what}: {stderr}");
    assert!(out.stdout.is_empty(), "{what}: stdout not empty");
    assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    assert!(stderr.starts_with("error: "), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    for text in texts {
        assert!(stderr.contains(text), "{what}: {stderr} lacks {text:?}");
    }
}
