//! End-to-end tests of the `approxset` binary: the JSON contract of every
//! subcommand, the seed's figures, plots, and errors.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// z for the binomial tolerances: a false alarm is out of the question.
const Z: f64 = 6.0;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_approxset"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs with `--json`, checks success and a clean standard output, and
/// returns the parsed document.
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The rows of a JSON array, each checked to have `fields`.
fn rows<'a>(doc: &'a Value, fields: &[&str]) -> &'a [Value] {
    let rows = doc.as_array().expect("a JSON array of rows");
    for row in rows {
        for field in fields {
            assert!(row.get(field).is_some(), "missing {field} in {row}");
        }
    }
    rows
}

fn num(row: &Value, field: &str) -> f64 {
    row[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} is not a number in {row}"))
}

/// A binomial tolerance on a rate measured over `queries` trials.
fn tolerance(p: f64, queries: f64) -> f64 {
    Z * (p * (1.0 - p) / queries).sqrt() + 1.0 / queries
}

/// A scratch path unique to this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("approxset-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const DESIGN_FIELDS: [&str; 6] = [
    "variant",
    "bits",
    "bytes",
    "bits_per_key",
    "hashes",
    "expected_fp",
];

/// The variant names, as `design` lists them (so the tests follow new
/// variants).
fn variants() -> Vec<String> {
    let doc = json(&["design", "--items", "1000", "--fp", "0.01"]);
    rows(&doc, &DESIGN_FIELDS)
        .iter()
        .map(|r| r["variant"].as_str().unwrap().to_owned())
        .collect()
}

fn classic_row(rows: &[Value]) -> &Value {
    rows.iter()
        .find(|r| r["variant"] == "classic")
        .expect("a classic row")
}

#[test]
fn design_json_has_every_variant_and_field() {
    let names = variants();
    for expected in ["classic", "partitioned", "counting", "scalable"] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    let doc = json(&["design", "--items", "1000000", "--fp", "0.01"]);
    for row in rows(&doc, &DESIGN_FIELDS) {
        assert!(row["bits"].as_u64().unwrap() > 0);
        assert!(row["bytes"].as_u64().unwrap() * 8 >= row["bits"].as_u64().unwrap() / 4);
        assert!(row["hashes"].as_u64().unwrap() >= 1);
        let p = num(row, "expected_fp");
        assert!(p > 0.0 && p <= 0.01 * (1.0 + 1e-9), "{row}");
    }
}

#[test]
fn design_reproduces_the_seed_table() {
    // target p, bits per key, k (the seed's design table, classic filter)
    let table: [(f64, f64, u64); 6] = [
        (0.1, 4.8, 3),
        (0.05, 6.2, 4),
        (0.02, 8.1, 6),
        (0.01, 9.6, 7),
        (0.001, 14.4, 10),
        (0.0001, 19.2, 13),
    ];
    for (p, seed_bits, k) in table {
        let doc = json(&["design", "--items", "1000000", "--fp", &p.to_string()]);
        let row = classic_row(rows(&doc, &DESIGN_FIELDS));
        assert_eq!(row["hashes"].as_u64(), Some(k), "p = {p}: {row}");
        let ideal = -p.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2);
        assert!((ideal - seed_bits).abs() < 0.06, "p = {p}");
        let got = num(row, "bits_per_key");
        assert!(
            (got - ideal).abs() <= 0.01 * ideal,
            "p = {p}: {got} vs {ideal}"
        );
    }
}

#[test]
fn design_for_a_hundred_million_keys() {
    let doc = json(&["design", "--items", "100000000", "--fp", "0.01"]);
    let row = classic_row(rows(&doc, &DESIGN_FIELDS));
    let bits = num(row, "bits");
    assert!((bits / 1e8 - 9.59).abs() < 0.01, "{bits}");
    assert_eq!(row["hashes"].as_u64(), Some(7));
    // The human table shows the same.
    let out = run(&["design", "--items", "100000000", "--fp", "0.01"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("variant") && text.contains("expected FP"),
        "{text}"
    );
    assert!(text.contains("959,"), "{text}");
}

#[test]
fn design_can_choose_variants() {
    let doc = json(&[
        "design",
        "--items",
        "1000",
        "--fp",
        "0.01",
        "--variant",
        "partitioned,classic",
    ]);
    let names: Vec<&str> = rows(&doc, &DESIGN_FIELDS)
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["partitioned", "classic"]);
}

#[test]
fn experiment_theory_matches_the_exact_formula() {
    let queries = 20_000.0;
    let doc = json(&[
        "experiment",
        "theory",
        "--items",
        "20000",
        "--queries",
        "20000",
    ]);
    let rows = rows(
        &doc,
        &[
            "k",
            "bits_per_key",
            "measured_fp",
            "theory_approx",
            "theory_exact",
            "relative_error",
        ],
    );
    assert_eq!(rows.len(), 28);
    for row in rows {
        let (measured, exact) = (num(row, "measured_fp"), num(row, "theory_exact"));
        assert!(
            (measured - exact).abs() <= tolerance(exact, queries),
            "{row}"
        );
        let approx = num(row, "theory_approx");
        assert!((approx - exact).abs() <= 1e-3 * exact, "{row}");
        let rel = num(row, "relative_error");
        assert!((rel - (measured - exact) / exact).abs() < 1e-9, "{row}");
    }
    // The seed's reference point: k = 4, m/n = 8, theory 0.023969.
    let reference = rows
        .iter()
        .find(|r| r["k"] == 4 && num(r, "bits_per_key") == 8.0)
        .expect("k = 4, m/n = 8");
    assert!((num(reference, "theory_approx") - 0.023969).abs() < 5e-6);
}

#[test]
fn experiment_optimal_k_bottoms_out_near_seven() {
    let doc = json(&[
        "experiment",
        "optimal-k",
        "--items",
        "20000",
        "--queries",
        "200000",
    ]);
    let rows = rows(&doc, &["k", "measured_fp", "theory_exact"]);
    assert_eq!(rows.len(), 10);
    let argmin = |field: &str| {
        rows.iter()
            .min_by(|a, b| num(a, field).total_cmp(&num(b, field)))
            .map(|r| r["k"].as_u64().unwrap())
            .unwrap()
    };
    assert_eq!(argmin("theory_exact"), 7);
    assert!((6..=8).contains(&argmin("measured_fp")), "{doc}");

    let out = run(&[
        "experiment",
        "optimal-k",
        "--items",
        "2000",
        "--queries",
        "2000",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("k* = (m/n) ln 2 = 6.93"), "{text}");
}

const COMPARE_FIELDS: [&str; 10] = [
    "variant",
    "bits_per_key",
    "bytes",
    "target_fp",
    "measured_fp",
    "false_negatives",
    "insert_ns",
    "contains_hit_ns",
    "contains_miss_ns",
    "supports_delete",
];

fn check_compare(doc: &Value, p: f64) {
    let rows = rows(doc, &COMPARE_FIELDS);
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(names, variants(), "one row per variant");
    for row in rows {
        assert_eq!(row["false_negatives"].as_u64(), Some(0), "{row}");
        assert_eq!(num(row, "target_fp"), p);
        assert!(row["supports_delete"].is_boolean());
        for field in [
            "bits_per_key",
            "insert_ns",
            "contains_hit_ns",
            "contains_miss_ns",
        ] {
            assert!(num(row, field) > 0.0, "{field}: {row}");
        }
        assert!(row["bytes"].as_u64().unwrap() > 0);
    }
}

#[test]
fn compare_measures_every_variant() {
    let doc = json(&["compare", "--items", "20000", "--fp", "0.01", "--seed", "3"]);
    check_compare(&doc, 0.01);
    for row in doc.as_array().unwrap() {
        assert!(
            num(row, "measured_fp") <= 0.01 + tolerance(0.01, 20_000.0),
            "{row}"
        );
    }
    let counting = doc
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == "counting")
        .unwrap();
    assert_eq!(counting["supports_delete"], true);

    let out = run(&["compare", "--items", "2000"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("measured FP") && text.contains("classic"),
        "{text}"
    );
}

#[test]
fn compare_takes_keys_from_a_file() {
    let path = scratch("words.txt");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!("word-{i}\n"));
    }
    // The second half repeats a few members: they are not non-members.
    for i in 0..100 {
        text.push_str(&format!("word-{i}\r\n"));
    }
    for i in 3000..5900 {
        text.push_str(&format!("other-{i}\n"));
    }
    std::fs::write(&path, text).unwrap();
    let doc = json(&["compare", "--keys", path.to_str().unwrap(), "--fp", "0.05"]);
    check_compare(&doc, 0.05);
    let out = run(&["compare", "--keys", path.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("n = 3,000 lines of"), "{text}");
    assert!(text.contains("2,900 non-member queries"), "{text}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn plots_are_svg_with_labelled_axes() {
    let cases: [(&str, &[&str], &[&str]); 3] = [
        (
            "theory.svg",
            &[
                "experiment",
                "theory",
                "--items",
                "2000",
                "--queries",
                "2000",
            ],
            &[
                "bits per key m/n",
                "false-positive rate",
                "k = 8",
                "measured",
            ],
        ),
        (
            "optimal-k.svg",
            &[
                "experiment",
                "optimal-k",
                "--items",
                "2000",
                "--queries",
                "2000",
            ],
            &["hash functions k", "false-positive rate", "k* = (m/n) ln 2"],
        ),
        (
            "compare.svg",
            &["compare", "--items", "2000"],
            &[
                "bits per key",
                "measured false-positive rate",
                "classic optimum",
                "lower bound",
                "partitioned",
            ],
        ),
    ];
    for (file, args, texts) in cases {
        let path = scratch(file);
        let mut all = args.to_vec();
        all.extend(["--plot", path.to_str().unwrap()]);
        // With --json the plot is written too and stdout stays JSON.
        let _ = json(&all);
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.starts_with("<svg"),
            "{file}: {}",
            &svg[..50.min(svg.len())]
        );
        for text in texts {
            assert!(svg.contains(text), "{file} lacks {text:?}");
        }
        let _ = std::fs::remove_file(&path);
    }
}

#[test]
fn bad_input_is_one_line_on_stderr() {
    let missing = scratch("no-such-file.txt");
    let cases: [(&[&str], i32, &str); 11] = [
        (&["design", "--items", "10", "--fp", "0"], 2, "--fp"),
        (&["design", "--items", "10", "--fp", "1.5"], 2, "--fp"),
        (&["design", "--items", "0", "--fp", "0.1"], 2, "--items"),
        (&["design", "--items", "abc", "--fp", "0.1"], 2, "--items"),
        (&["compare", "--fp", "1.5"], 2, "--fp"),
        (&["compare", "--items", "0"], 2, "--items"),
        (&["experiment", "theory", "--items", "0"], 2, "--items"),
        (
            &["experiment", "optimal-k", "--bits-per-key", "-1"],
            2,
            "--bits-per-key",
        ),
        (
            &["design", "--items", "9", "--fp", "0.1", "--variant", "nope"],
            2,
            "nope",
        ),
        (&["frobnicate"], 2, "frobnicate"),
        (
            &["compare", "--keys", missing.to_str().unwrap()],
            1,
            "no-such-file",
        ),
    ];
    for (args, code, names) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(names), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // Also with --json: nothing on stdout.
    let out = run(&["design", "--items", "10", "--fp", "0", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn help_shows_examples() {
    for args in [
        &["--help"][..],
        &["design", "--help"],
        &["experiment", "theory", "--help"],
        &["experiment", "optimal-k", "--help"],
        &["compare", "--help"],
    ] {
        let out = run(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Examples:"), "{args:?}: {text}");
        assert!(text.contains("--json"), "{args:?}: {text}");
    }
}
