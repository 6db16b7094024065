//! End-to-end tests of `approxset merge`, and of what `build`, `add` and
//! `info` report about a filter's items and overfill (issue 20).

use serde_json::Value;

mod common;
use common::{json, run};

#[path = "../src/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Writes the keys `key-{i}` for `range` to `name` in `scratch`.
fn keys(scratch: &Scratch, name: &str, range: std::ops::Range<u32>) -> String {
    let text: String = range.map(|i| format!("key-{i}\n")).collect();
    std::fs::write(scratch.path(name), text).unwrap();
    scratch.arg(name)
}

/// Builds `output` from `input` with `variant`, sized for `items`, seed 7.
fn build(variant: &str, items: &str, input: &str, output: &str) -> Value {
    json(&[
        "build",
        "--variant",
        variant,
        "--items",
        items,
        "--seed",
        "7",
        "--input",
        input,
        "--output",
        output,
    ])
}

#[test]
fn merged_shards_are_the_single_build_bit_for_bit() {
    let s = Scratch::new("merge-shards");
    let (k0, k1, k2) = (
        keys(&s, "k0.txt", 0..400),
        keys(&s, "k1.txt", 400..700),
        keys(&s, "k2.txt", 700..1_000),
    );
    let all = keys(&s, "all.txt", 0..1_000);
    for variant in ["classic", "partitioned", "blocked"] {
        let shard = |i: usize, input: &str| {
            let out = s.arg(&format!("{variant}-{i}.bin"));
            build(variant, "1000", input, &out);
            out
        };
        let (s0, s1, s2) = (shard(0, &k0), shard(1, &k1), shard(2, &k2));
        let whole = s.arg(&format!("{variant}-all.bin"));
        build(variant, "1000", &all, &whole);
        let merged = s.arg(&format!("{variant}-merged.bin"));
        let doc = json(&["merge", "-o", &merged, &s0, &s1, &s2]);
        assert_eq!(doc["variant"], variant);
        assert_eq!(doc["inputs"], 3);
        assert_eq!(doc["items"], 1_000);
        assert_eq!(doc["overfilled"], false);
        assert_eq!(
            std::fs::read(&merged).unwrap(),
            std::fs::read(&whole).unwrap(),
            "{variant}: the merged file is the single build's"
        );
        // In place: an input may be the output.
        let doc = json(&["merge", "--output", &s0, &s0, &s1]);
        assert_eq!(doc["items"], 700);
        let info = json(&["info", "--filter", &s0]);
        assert_eq!(info["items"], 700);
    }
    s.assert_no_temporaries();
}

#[test]
fn merge_refuses_what_does_not_combine_and_writes_nothing() {
    let s = Scratch::new("merge-refuses");
    let k = keys(&s, "k.txt", 0..100);
    let classic = s.arg("classic.bin");
    build("classic", "100", &k, &classic);
    let blocked = s.arg("blocked.bin");
    build("blocked", "100", &k, &blocked);
    let bigger = s.arg("bigger.bin");
    build("classic", "1000", &k, &bigger);
    let reseeded = s.arg("reseeded.bin");
    json(&[
        "build",
        "--variant",
        "classic",
        "--items",
        "100",
        "--seed",
        "8",
        "--input",
        &k,
        "--output",
        &reseeded,
    ]);
    let cuckoo = s.arg("cuckoo.bin");
    build("cuckoo", "100", &k, &cuckoo);
    let out_path = s.path("out.bin");
    let out = s.arg("out.bin");
    for (other, why) in [
        (&blocked, "filters differ in variant: classic vs blocked"),
        (&bigger, "filters differ in bits"),
        (&reseeded, "filters differ in hash key"),
    ] {
        let r = run(&["merge", "-o", &out, &classic, other]);
        assert_eq!(r.status.code(), Some(1), "{other}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.starts_with("error: cannot merge"), "{err}");
        assert!(err.contains(why), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!out_path.exists(), "nothing written");
    }
    let cuckoo_twin = s.arg("cuckoo2.bin");
    build("cuckoo", "100", &k, &cuckoo_twin);
    let r = run(&["merge", "-o", &out, &cuckoo, &cuckoo_twin]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("the cuckoo variant does not support union"),
        "{err}"
    );
    assert!(!out_path.exists());
    // One input is bad usage.
    let r = run(&["merge", "-o", &out, &classic]);
    assert_eq!(r.status.code(), Some(2));
    assert!(!out_path.exists());
    s.assert_no_temporaries();
}

/// `build --json` and `info --json` report one `items` for one file: the
/// filter's `len` (before, `build` counted its input lines while the
/// scalable filter's `len` skipped keys that tested present).
#[test]
fn build_and_info_agree_on_items() {
    let s = Scratch::new("merge-items-agree");
    let text: String = (0..300u32).map(|i| format!("key-{}\n", i % 200)).collect();
    std::fs::write(s.path("dups.txt"), text).unwrap();
    for variant in ["classic", "counting", "cuckoo", "scalable", "blocked"] {
        let out = s.arg(&format!("{variant}.bin"));
        let built = build(variant, "1000", &s.arg("dups.txt"), &out);
        let info = json(&["info", "--filter", &out]);
        assert_eq!(built["items"], info["items"], "{variant}");
        assert_eq!(built["overfilled"], info["overfilled"], "{variant}");
    }
}

/// A filter built at exactly its key count takes one more key without an
/// overfill warning while its estimate is under target (before, one key
/// past the capacity always warned and `info` said `"overfilled": true`);
/// a filter far past its capacity warns, and `info` says so.
#[test]
fn overfill_follows_the_estimate() {
    let s = Scratch::new("merge-overfill");
    let k = keys(&s, "k.txt", 0..1_000);
    // At capacity the estimate is the design rate, just under target, give
    // or take a few per cent: over these variants and seeds it lands on
    // both sides, and each side must be reported as such.
    let mut quiet = 0;
    for variant in ["classic", "partitioned", "blocked", "counting"] {
        for seed in ["1", "2", "3", "4"] {
            let f = s.arg(&format!("{variant}-{seed}.bin"));
            let built = json(&[
                "build",
                "--variant",
                variant,
                "--items",
                "1000",
                "--seed",
                seed,
                "--input",
                &k,
                "--output",
                &f,
            ]);
            assert_eq!(built["overfilled"], false, "{variant}");
            let out = run(&["add", "--filter", &f, "one-more-key"]);
            assert!(out.status.success(), "{variant}");
            let warned = String::from_utf8_lossy(&out.stderr).contains("warning");
            let info = json(&["info", "--filter", &f]);
            assert_eq!(info["items"], 1_001, "{variant}");
            let under =
                info["estimated_fp"].as_f64().unwrap() <= info["target_fp"].as_f64().unwrap();
            assert_eq!(warned, !under, "{variant} seed {seed}: {info}");
            assert_eq!(info["overfilled"], !under, "{variant} seed {seed}: {info}");
            let human = String::from_utf8(run(&["info", "--filter", &f]).stdout).unwrap();
            assert_eq!(human.contains("overfilled"), !under, "{variant}: {human}");
            quiet += usize::from(under);
        }
    }
    assert!(
        quiet > 0,
        "no filter stayed under target: the test proves nothing"
    );
    let small = s.arg("small.bin");
    let out = run(&[
        "build",
        "--variant",
        "classic",
        "--items",
        "50",
        "--seed",
        "7",
        "--input",
        &k,
        "--output",
        &small,
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning") && err.contains("20.0×"), "{err}");
    let info = json(&["info", "--filter", &small]);
    assert_eq!(info["overfilled"], true);
}

#[test]
fn merge_is_listed_and_shows_examples() {
    let out = run(&["merge", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("approxset merge --output all.bin"), "{text}");
    let top = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(
        top.contains("merge") && top.contains("union of their keys"),
        "{top}"
    );
}
