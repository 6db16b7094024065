//! End-to-end tests of Spark filter files in the CLI: `query` and `info`
//! on files a real Spark wrote (tests/golden/spark, made by
//! tests/spark/make_golden.py), and `build --spark`.

use std::path::PathBuf;

mod common;
use common::{assert_fails, json, parsed, run};

#[path = "../src/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn golden(name: &str) -> (String, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/spark");
    let bin = dir.join(format!("{name}.bin"));
    let txt = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
    (bin.display().to_string(), txt)
}

/// The keys and Spark's answers of a golden file of `L` probes.
fn long_probes(txt: &str) -> (Vec<String>, Vec<bool>) {
    txt.lines()
        .map(|l| {
            let mut p = l.split(' ').skip(1);
            (p.next().unwrap().to_owned(), p.next().unwrap() == "1")
        })
        .unzip()
}

/// Runs a query with `--json` before the keys (which follow `--`).
fn query_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    parsed(&run(&all), &format!("{args:?}"))
}

fn answers(doc: &serde_json::Value) -> Vec<bool> {
    doc.as_array()
        .unwrap()
        .iter()
        .map(|r| r["present"].as_bool().unwrap())
        .collect()
}

#[test]
fn query_answers_as_spark_on_its_files() {
    for name in ["v1_longs", "v2_longs", "v2_seeded_longs"] {
        let (bin, txt) = golden(name);
        let (keys, want) = long_probes(&txt);
        // 400 keys per run: a command line, not a stdin of thousands.
        for (chunk, want) in keys.chunks(400).zip(want.chunks(400)) {
            let mut args = vec!["query", "--filter", &bin, "--spark-keys", "long", "--"];
            args.extend(chunk.iter().map(String::as_str));
            assert_eq!(answers(&query_json(&args)), want, "{name}");
        }
    }
    // Strings: the key's bytes (the default --spark-keys string).
    let (bin, txt) = golden("v2_strings");
    for line in txt.lines().step_by(37) {
        let mut p = line.split(' ').skip(1);
        let hex = p.next().unwrap();
        let key: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let key = String::from_utf8(key).unwrap();
        let doc = query_json(&["query", "--filter", &bin, "--", &key]);
        assert_eq!(answers(&doc), [p.next().unwrap() == "1"], "{key}");
    }
}

#[test]
fn info_reads_a_spark_file() {
    let (bin, _) = golden("v2_seeded_longs");
    let doc = json(&["info", "--filter", &bin]);
    assert_eq!(doc["variant"], "spark");
    assert_eq!(doc["spark_version"], 2);
    assert_eq!(doc["seed"], -123_456_789);
    // 12,000 bits rounded up to words; k = round(12000/1500 · ln 2) = 6.
    assert_eq!(doc["bits"], 188 * 64);
    assert_eq!(doc["hashes"], 6);
    assert_eq!(doc["file_bytes"], 16 + 188 * 8);
    let ones = doc["ones"].as_u64().unwrap();
    assert!(ones > 0 && ones < 188 * 64);
    let (bin, _) = golden("v1_longs");
    assert_eq!(json(&["info", "--filter", &bin])["spark_version"], 1);
    let out = run(&["info", "--filter", &bin]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("spark version") && text.contains("Apache Spark"),
        "{text}"
    );
}

#[test]
fn build_spark_writes_what_spark_writes() {
    let scratch = Scratch::new("spark-build");
    // The members of the v2 strings golden file: Spark's own bytes come out.
    let (bin, txt) = golden("v2_strings");
    let keys: String = txt
        .lines()
        .take(2000)
        .map(|l| {
            let hex = l.split(' ').nth(1).unwrap();
            let key: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            String::from_utf8(key).unwrap() + "\n"
        })
        .collect();
    std::fs::write(scratch.path("keys.txt"), keys).unwrap();
    let out = scratch.arg("built.bf");
    let doc = json(&[
        "build",
        "--spark",
        "--fp",
        "0.03",
        "--input",
        &scratch.arg("keys.txt"),
        "--output",
        &out,
    ]);
    assert_eq!(doc["variant"], "spark");
    assert_eq!(doc["keys"], 2000);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&bin).unwrap());

    // Longs.
    std::fs::write(scratch.path("ids.txt"), "1\n-5\n9223372036854775807\n").unwrap();
    let ids = scratch.arg("ids.bf");
    let ids_in = scratch.arg("ids.txt");
    json(&[
        "build",
        "--spark",
        "--spark-keys",
        "long",
        "--input",
        &ids_in,
        "--output",
        &ids,
    ]);
    let doc = query_json(&[
        "query",
        "--filter",
        &ids,
        "--spark-keys",
        "long",
        "--",
        "1",
        "-5",
        "9223372036854775807",
    ]);
    assert_eq!(answers(&doc), [true, true, true]);
}

#[test]
fn spark_errors_are_one_line() {
    let scratch = Scratch::new("spark-errors");
    let (bin, _) = golden("v1_longs");
    let data = std::fs::read(&bin).unwrap();
    // A word count beyond the bytes present.
    let mut forged = data.clone();
    forged[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    std::fs::write(scratch.path("forged.bf"), &forged).unwrap();
    let forged = scratch.arg("forged.bf");
    assert_fails(
        &run(&["info", "--filter", &forged]),
        1,
        &["spark", "truncated"],
        "forged",
    );
    assert_fails(
        &run(&["query", "--filter", &forged, "1"]),
        1,
        &["spark"],
        "forged query",
    );
    std::fs::write(scratch.path("short.bf"), &data[..data.len() - 1]).unwrap();
    let short = scratch.arg("short.bf");
    assert_fails(&run(&["info", "--filter", &short]), 1, &["spark"], "short");
    assert_fails(
        &run(&["query", "--filter", &bin, "--spark-keys", "long", "x1"]),
        2,
        &["x1", "--spark-keys long"],
        "not a long",
    );
    assert_fails(
        &run(&[
            "build",
            "--spark",
            "--variant",
            "classic",
            "--input",
            &bin,
            "--output",
            &short,
        ]),
        2,
        &["--spark"],
        "spark and variant",
    );
}
