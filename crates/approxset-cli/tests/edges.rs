//! A first day's rough edges (issue 36 §3): help that tells the truth about
//! merging, one answer for a filter's false-positive rate everywhere,
//! messages that name the CLI's commands, titles that say what was asked.

use std::process::Output;

mod common;
use common::{json, run, succeeded};

#[path = "../src/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Standard output as text.
fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The comma-separated names after `label` in `text`, up to the next
/// full stop or parenthesis.
fn listed(text: &str, label: &str) -> Vec<String> {
    let flat = text.replace('\n', " ");
    let at = flat
        .find(label)
        .unwrap_or_else(|| panic!("no {label:?} in {text}"))
        + label.len();
    flat[at..]
        .split(['.', '('])
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.trim().to_owned())
        .collect()
}

/// Builds a filter of `variant` over a few keys with seed 7; its path.
fn build(scratch: &Scratch, variant: &str, name: &str, keys: &str) -> String {
    let input = scratch.path(&format!("{name}.txt"));
    std::fs::write(&input, keys).unwrap();
    let output = scratch.arg(name);
    let out = run(&[
        "build",
        "--variant",
        variant,
        "--items",
        "100",
        "--seed",
        "7",
        "--input",
        input.to_str().unwrap(),
        "--output",
        &output,
    ]);
    succeeded(&out, variant);
    output
}

#[test]
fn merge_help_lists_exactly_the_variants_that_merge() {
    let help = stdout(&run(&["merge", "--help"]));
    let merging = listed(&help, "Variants that merge:");
    let others = listed(&help, "Variants that cannot merge:");
    assert!(merging.contains(&"split-block".to_owned()), "{help}");
    let mut all: Vec<&String> = merging.iter().chain(&others).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 11, "{help}");
    let scratch = Scratch::new("merge-help");
    for variant in merging.iter().chain(&others) {
        let a = build(
            &scratch,
            variant,
            &format!("{variant}-a.bin"),
            "apple\npear\n",
        );
        let b = build(&scratch, variant, &format!("{variant}-b.bin"), "plum\n");
        let merged = scratch.arg(&format!("{variant}-ab.bin"));
        let out = run(&["merge", "--output", &merged, &a, &b]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if merging.contains(variant) {
            succeeded(&out, variant);
            let answers = stdout(&run(&["query", "--filter", &merged, "apple", "plum"]));
            assert_eq!(answers, "apple\tpresent\nplum\tpresent\n", "{variant}");
        } else {
            assert_eq!(out.status.code(), Some(1), "{variant}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{variant}: {stderr}");
            assert!(!std::path::Path::new(&merged).exists(), "{variant}");
        }
        // Messages name the CLI's commands, not the library's functions.
        for name in ["load_membership", "build_from", "union_dyn"] {
            assert!(!stderr.contains(name), "{variant}: {stderr}");
        }
    }
}

#[test]
fn a_static_filter_on_merge_is_told_what_the_cli_can_do() {
    let scratch = Scratch::new("merge-static");
    let a = build(&scratch, "fuse", "a.bin", "apple\npear\n");
    let b = build(&scratch, "fuse", "b.bin", "plum\n");
    let out = run(&["merge", "--output", &scratch.arg("ab.bin"), &a, &b]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("`approxset build`"), "{stderr}");
    assert!(stderr.contains("static"), "{stderr}");
}

#[test]
fn the_target_and_the_rate_a_filter_gives_are_two_fields_everywhere() {
    let scratch = Scratch::new("fp-fields");
    let input = scratch.path("keys.txt");
    let keys: String = (0..1000).map(|i| format!("k{i}\n")).collect();
    std::fs::write(&input, keys).unwrap();
    for (variant, stored) in [("fuse", false), ("ribbon", false), ("classic", true)] {
        let file = scratch.arg(&format!("{variant}.bin"));
        let built = json(&[
            "build",
            "--variant",
            variant,
            "--fp",
            "0.01",
            "--input",
            input.to_str().unwrap(),
            "--output",
            &file,
        ]);
        let info = json(&["info", "--filter", &file]);
        let design = json(&[
            "design",
            "--variant",
            variant,
            "--items",
            "1000",
            "--fp",
            "0.01",
        ]);
        let design = &design[0];
        assert_eq!(built["target_fp"], 0.01, "{variant}: {built}");
        assert_eq!(design["target_fp"], 0.01, "{variant}: {design}");
        let rate = built["fp_rate"].as_f64().unwrap();
        assert!(rate > 0.0 && rate <= 0.01, "{variant}: {built}");
        assert_eq!(info["fp_rate"], built["fp_rate"], "{variant}");
        if stored {
            assert_eq!(info["target_fp"], 0.01, "{variant}: {info}");
            assert_eq!(rate, 0.01, "{variant}");
        } else {
            // The file does not store the target: unknown, not a wrong one.
            assert!(info["target_fp"].is_null(), "{variant}: {info}");
        }
        if variant == "fuse" {
            assert_eq!(rate, 1.0 / 256.0);
            assert_eq!(design["expected_fp"], built["fp_rate"]);
        }
        let human = stdout(&run(&["info", "--filter", &file]));
        assert!(human.contains("FP rate"), "{human}");
        assert_eq!(human.contains("not stored"), !stored, "{human}");
    }
}

#[test]
fn help_names_experiments_by_what_they_show() {
    for args in [&["--help"][..], &["experiment", "--help"]] {
        let help = stdout(&run(args)).to_lowercase();
        assert!(!help.contains("seed article"), "{help}");
        assert!(!help.contains("experiment 1"), "{help}");
        assert!(!help.contains("experiment 2"), "{help}");
    }
    let help = stdout(&run(&["experiment", "--help"]));
    assert!(help.contains("formula"), "{help}");
}

#[test]
fn compare_titles_its_table_by_the_variants_asked() {
    let out = run(&["compare", "--variant", "cuckoo,counting", "--items", "500"]);
    succeeded(&out, "compare");
    let text = stdout(&out);
    let title = text.lines().next().unwrap();
    assert!(title.starts_with("cuckoo, counting for n = 500"), "{title}");
    let out = run(&["compare", "--items", "500"]);
    succeeded(&out, "compare");
    assert!(stdout(&out).starts_with("Every variant for n = 500"));
}
