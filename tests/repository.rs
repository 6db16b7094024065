//! What the repository promises a user beyond the API.
//!
//! The doc examples of the items this facade re-exports read as a user of
//! `approxset` writes them: no visible line names `approxset_core`,
//! `approxset_bloom` or `approxset_cuckoo` (a hidden
//! `# extern crate approxset_bloom as approxset;` lets the doctest compile
//! inside its own crate), and every `approxset::NAME` they use is a name the
//! facade exports at its root.
//!
//! Each sub-crate's own front page (`lib.rs`) documents that crate and may
//! name it; `ignore` blocks (the implementor macros of `approxset-core`,
//! which the facade does not re-export) are skipped.
//!
//! The packages keep what a first build compiles small: criterion and the
//! peer crates are dev-dependencies of the benchmarks' package only, and an
//! example compiles `approxset` and nothing else.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const SUB_CRATES: [&str; 3] = ["approxset-core", "approxset-bloom", "approxset-cuckoo"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The visible lines of the compiled doc examples in `text`, with their line
/// numbers.
fn visible_example_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut fence: Option<bool> = None; // Some(compiled?) inside a block
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let Some(doc) = trimmed
            .strip_prefix("///")
            .or_else(|| trimmed.strip_prefix("//!"))
        else {
            fence = None;
            continue;
        };
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        if let Some(lang) = doc.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(
                    lang.trim(),
                    "" | "rust" | "no_run" | "should_panic"
                )),
            };
            continue;
        }
        let hidden = doc.trim_start() == "#" || doc.trim_start().starts_with("# ");
        if fence == Some(true) && !hidden {
            lines.push((i + 1, doc.to_string()));
        }
    }
    lines
}

/// The names `src/lib.rs` exports: every identifier in its `pub use` lists
/// (the last segment of each path) and its `pub mod`s.
fn facade_names(root: &Path) -> BTreeSet<String> {
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let mut names = BTreeSet::new();
    let mut rest = lib.as_str();
    while let Some(at) = rest.find("pub use ") {
        let tail = &rest[at + "pub use ".len()..];
        let end = tail.find(';').unwrap();
        let list = &tail[..end];
        let list = list.split_once('{').map_or(list, |(_, l)| l);
        for item in list.split([',', '}']) {
            let name = item.trim().rsplit("::").next().unwrap().trim();
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
        rest = &tail[end..];
    }
    for line in lib.lines() {
        if let Some(m) = line.trim().strip_prefix("pub mod ") {
            names.insert(m.trim_end_matches([' ', '{', ';']).to_string());
        }
    }
    names
}

#[test]
fn re_exported_examples_use_the_facade_paths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exported = facade_names(root);
    for needed in [
        "BloomFilter",
        "Variant",
        "ApproxSet",
        "format",
        "hash",
        "bloom",
    ] {
        assert!(
            exported.contains(needed),
            "{needed} missing from {exported:?}"
        );
    }
    let mut files = Vec::new();
    for krate in SUB_CRATES {
        rust_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    files.sort();
    let mut problems = Vec::new();
    let mut examples = 0;
    for file in &files {
        if file.file_name().unwrap() == "lib.rs" {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in visible_example_lines(&text) {
            examples += 1;
            for krate in SUB_CRATES {
                if line.contains(&krate.replace('-', "_")) {
                    problems.push(format!("{}:{n}: {line}", file.display()));
                }
            }
            let mut rest = line.as_str();
            while let Some(at) = rest.find("approxset::") {
                let before = rest[..at].chars().next_back();
                let tail = &rest[at + "approxset::".len()..];
                let name: String = tail
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let list: Vec<&str> = if name.is_empty() && tail.starts_with('{') {
                    let end = tail.find('}').unwrap_or(tail.len());
                    tail[1..end].split(',').map(str::trim).collect()
                } else {
                    vec![name.as_str()]
                };
                if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    for name in list {
                        let first = name.split("::").next().unwrap();
                        if !first.is_empty() && !exported.contains(first) {
                            problems.push(format!(
                                "{}:{n}: approxset::{first} is not exported: {line}",
                                file.display()
                            ));
                        }
                    }
                }
                rest = tail;
            }
        }
    }
    assert!(
        examples > 100,
        "only {examples} example lines found: is the scan broken?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_a_sub_crate_path_and_skips_hidden_lines() {
    let text = "/// ```\n/// # extern crate approxset_bloom as approxset;\n/// use approxset_bloom::BloomFilter;\n/// ```\n/// ```ignore\n/// approxset_core::x!();\n/// ```\n";
    let lines = visible_example_lines(text);
    assert_eq!(
        lines,
        [(3, "use approxset_bloom::BloomFilter;".to_string())]
    );
}

/// The `name = ...` keys of one `[section]` of a manifest.
fn section_keys(manifest: &str, section: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == format!("[{section}]");
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            if let Some((key, _)) = line.split_once('=') {
                // `proptest.workspace = true` names `proptest`
                keys.push(key.trim().split('.').next().unwrap().to_string());
            }
        }
    }
    keys
}

#[test]
fn the_benchmark_peers_and_test_dependencies_stay_out_of_the_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| fs::read_to_string(root.join(p)).unwrap();
    let (main, benches, examples) = (
        read("Cargo.toml"),
        read("benches/Cargo.toml"),
        read("examples/Cargo.toml"),
    );
    let peers = [
        "criterion",
        "fastbloom",
        "bloomfilter",
        "cuckoofilter",
        "probabilistic-collections",
        "growable-bloom-filter",
    ];
    let main_dev = section_keys(&main, "dev-dependencies");
    assert!(main_dev.contains(&"proptest".to_string()), "{main_dev:?}");
    let bench_dev = section_keys(&benches, "dev-dependencies");
    for peer in peers {
        assert!(
            !main_dev.contains(&peer.to_string()),
            "{peer} in approxset's dev-dependencies"
        );
        assert!(
            bench_dev.contains(&peer.to_string()),
            "{peer} missing from the benches"
        );
    }
    assert_eq!(section_keys(&examples, "dependencies"), ["approxset"]);
    assert!(section_keys(&examples, "dev-dependencies").is_empty());
    let members = section_keys(&main, "workspace");
    assert!(
        members.contains(&"default-members".to_string()),
        "{members:?}"
    );
    for krate in ["benches", "examples"] {
        assert!(
            main.contains(&format!("\"{krate}\"")),
            "{krate} not a workspace member"
        );
    }
}
