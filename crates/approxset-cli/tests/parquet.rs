//! `approxset query --parquet FILE --column NAME` (the feature `parquet`)
//! on Parquet files written by the `parquet` crate: every answer checked
//! against `parquet`'s own reading of the same filters.
#![cfg(feature = "parquet")]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use parquet::bloom_filter::Sbbf;
use parquet::file::reader::FileReader;
use serde_json::Value;

mod common;
use common::{assert_fails, run};

#[path = "../../../tests/common/parquet.rs"]
mod parquet_files;
use parquet_files::Values;

#[path = "../src/scratch.rs"]
mod scratch;
use scratch::Scratch;

const ROW_GROUPS: usize = 3;
const PER_GROUP: usize = 100;

fn name(i: usize) -> String {
    format!("user-{i}")
}
fn id(i: usize) -> i64 {
    (i as i64 - 150) * 1_000_003
}
fn day(i: usize) -> i32 {
    i as i32 * 7 - 1_000
}

/// A Parquet file of 3 row groups of 100 rows, with bloom filters on
/// `name`, `id`, `day` and `score` (DOUBLE), none on `plain`.
fn write_file(path: &std::path::Path) {
    parquet_files::write(
        std::fs::File::create(path).unwrap(),
        "message t { required binary name (UTF8); required int64 id; \
         required int32 day; required double score; required int64 plain; }",
        &["name", "id", "day", "score"],
        ROW_GROUPS,
        PER_GROUP,
        |rows| {
            let ids: Vec<i64> = rows.clone().map(id).collect();
            vec![
                Values::Str(rows.clone().map(name).collect()),
                Values::I64(ids.clone()),
                Values::I32(rows.clone().map(day).collect()),
                Values::F64(rows.map(|i| i as f64 / 2.0).collect()),
                Values::I64(ids),
            ]
        },
    );
}

/// `parquet`'s own filters of column `col`, one per row group.
fn sbbfs(path: &std::path::Path, col: usize) -> Vec<Option<Sbbf>> {
    let r = parquet_files::reader(std::fs::File::open(path).unwrap());
    (0..r.num_row_groups())
        .map(|rg| {
            r.get_row_group(rg)
                .unwrap()
                .get_column_bloom_filter(col)
                .cloned()
        })
        .collect()
}

fn stdout(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The expected answer words of one key: `0:present 1:absent …`, from
/// `parquet`'s `Sbbf::check` of the key's value.
fn expected(filters: &[Option<Sbbf>], check: impl Fn(&Sbbf) -> bool) -> String {
    filters
        .iter()
        .enumerate()
        .map(|(rg, f)| {
            let word = match f {
                None => "no-filter",
                Some(f) if check(f) => "present",
                Some(_) => "absent",
            };
            format!("{rg}:{word}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn query_answers_per_row_group_as_parquet_does() {
    let scratch = Scratch::new("parquet-answers");
    let path = scratch.path("t.parquet");
    write_file(&path);
    let file = scratch.arg("t.parquet");
    // Every written value, and as many that are not.
    let all = 0..ROW_GROUPS * PER_GROUP * 2;

    let names: Vec<String> = all.clone().map(name).collect();
    let mut args = vec!["query", "--parquet", &file, "--column", "name"];
    args.extend(names.iter().map(String::as_str));
    let text = stdout(&run(&args), "name");
    let filters = sbbfs(&path, 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), names.len());
    let mut absent = 0;
    for (i, line) in all.clone().zip(&lines) {
        let want = expected(&filters, |f| f.check(name(i).as_str()));
        assert_eq!(*line, format!("{}\t{want}", name(i)));
        if i < ROW_GROUPS * PER_GROUP {
            assert!(
                want.contains(&format!("{}:present", i / PER_GROUP)),
                "{want}"
            );
        }
        absent += want.matches("absent").count();
    }
    assert!(
        absent > 1000,
        "the answers are mostly absent ones: {absent}"
    );

    for (col, column) in [(1, "id"), (2, "day")] {
        let keys: Vec<String> = all
            .clone()
            .map(|i| {
                if col == 1 {
                    id(i).to_string()
                } else {
                    day(i).to_string()
                }
            })
            .collect();
        let mut args = vec!["query", "--parquet", &file, "--column", column];
        args.push("--");
        args.extend(keys.iter().map(String::as_str));
        let text = stdout(&run(&args), column);
        let filters = sbbfs(&path, col);
        for (i, line) in all.clone().zip(text.lines()) {
            let want = if col == 1 {
                expected(&filters, |f| f.check(&id(i)))
            } else {
                expected(&filters, |f| f.check(&day(i)))
            };
            assert_eq!(line, format!("{}\t{want}", keys[i]), "{column}");
            if i < ROW_GROUPS * PER_GROUP {
                assert!(want.contains(&format!("{}:present", i / PER_GROUP)));
            }
        }
    }

    // A column without filters says so for every row group.
    let text = stdout(
        &run(&["query", "--parquet", &file, "--column", "plain", "7"]),
        "plain",
    );
    assert_eq!(text, "7\t0:no-filter 1:no-filter 2:no-filter\n");
}

#[test]
fn query_json_and_quiet_and_stdin() {
    let scratch = Scratch::new("parquet-json");
    let path = scratch.path("t.parquet");
    write_file(&path);
    let file = scratch.arg("t.parquet");
    let filters = sbbfs(&path, 0);
    // A key no row group's filter holds, found with parquet's reader.
    let nowhere = (0..)
        .map(|i| format!("nobody-{i}"))
        .find(|k| {
            filters
                .iter()
                .all(|f| !f.as_ref().unwrap().check(k.as_str()))
        })
        .unwrap();

    let out = run(&[
        "query",
        "--parquet",
        &file,
        "--column",
        "name",
        "--json",
        "user-150",
        &nowhere,
    ]);
    let doc: Value = serde_json::from_str(&stdout(&out, "json")).unwrap();
    let rows = doc.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["key"], "user-150");
    let groups = rows[0]["row_groups"].as_array().unwrap();
    assert_eq!(groups.len(), ROW_GROUPS);
    for (rg, g) in groups.iter().enumerate() {
        assert_eq!(g["row_group"], rg);
        assert_eq!(g["bloom_filter"], true);
        let want = filters[rg].as_ref().unwrap().check("user-150");
        assert_eq!(g["present"], want);
    }
    assert_eq!(groups[1]["present"], true, "user-150 is in row group 1");
    assert!(
        rows[1]["row_groups"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["present"] == false)
    );
    let doc: Value = serde_json::from_str(&stdout(
        &run(&[
            "query",
            "--parquet",
            &file,
            "--column",
            "plain",
            "--json",
            "1",
        ]),
        "plain json",
    ))
    .unwrap();
    assert_eq!(
        doc[0]["row_groups"][2],
        serde_json::json!({"row_group": 2, "bloom_filter": false, "present": true})
    );

    // --quiet: 0 when every key may be in some row group, 3 when one is in none.
    let quiet = |keys: &[&str]| {
        let mut args = vec!["query", "--parquet", &file, "--column", "name", "--quiet"];
        args.extend(keys);
        let out = run(&args);
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
        out.status.code()
    };
    assert_eq!(quiet(&["user-0", "user-299"]), Some(0));
    assert_eq!(quiet(&["user-0", &nowhere]), Some(3));
    assert_eq!(
        run(&[
            "query",
            "--parquet",
            &file,
            "--column",
            "plain",
            "--quiet",
            "x1"
        ])
        .status
        .code(),
        Some(2),
        "a key that is not an integer is bad usage, also with --quiet"
    );

    // Keys from standard input, CRLF line ends dropped as for --filter.
    let mut child = Command::new(env!("CARGO_BIN_EXE_approxset"))
        .args(["query", "--parquet", &file, "--column", "id"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!("{}\r\n{}\n", id(5), id(205));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = stdout(&out, "stdin");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with(&format!("{}\t0:present ", id(5))),
        "{text}"
    );
    assert!(lines[1].ends_with(" 2:present"), "{text}");
}

#[test]
fn query_parquet_refuses_bad_input_in_one_line() {
    let scratch = Scratch::new("parquet-errors");
    let path = scratch.path("t.parquet");
    write_file(&path);
    let file = scratch.arg("t.parquet");
    let q = |rest: &[&str]| {
        let mut args = vec!["query", "--parquet", &file];
        args.extend(rest);
        run(&args)
    };
    assert_fails(
        &q(&["--column", "id", "12", "twelve"]),
        2,
        &["invalid key \"twelve\"", "'id' is INT64", "64-bit integer"],
        "query --parquet",
    );
    assert_fails(
        &q(&["--column", "day", "2147483648"]),
        2,
        &["'day' is INT32", "32-bit integer"],
        "query --parquet",
    );
    assert_fails(
        &q(&["--column", "score", "1.5"]),
        2,
        &["'score' is DOUBLE"],
        "query --parquet",
    );
    assert_fails(
        &q(&["--column", "nope", "x"]),
        2,
        &["no column 'nope'", "name, id, day, score, plain"],
        "query --parquet",
    );
    assert_fails(&q(&["x"]), 2, &["--column"], "query --parquet");
    assert_fails(
        &q(&["--column", "name", "--filter", "f.bin", "x"]),
        2,
        &["cannot be used with"],
        "query --parquet",
    );
    assert_fails(
        &run(&["query", "--column", "name", "x"]),
        2,
        &["--parquet"],
        "query --parquet",
    );
    assert_fails(&run(&["query", "x"]), 2, &["--filter"], "query --parquet");

    // Files that are not Parquet, or not there: failures naming the file.
    let junk = scratch.arg("junk.parquet");
    std::fs::write(&junk, b"not parquet at all").unwrap();
    let out = run(&["query", "--parquet", &junk, "--column", "name", "x"]);
    assert_fails(
        &out,
        1,
        &["junk.parquet", "not a readable Parquet file"],
        "query --parquet",
    );
    let missing = scratch.arg("missing.parquet");
    let out = run(&["query", "--parquet", &missing, "--column", "name", "x"]);
    assert_fails(
        &out,
        1,
        &["cannot open", "missing.parquet"],
        "query --parquet",
    );
    let out = run(&[
        "query",
        "--parquet",
        &scratch.arg(""),
        "--column",
        "name",
        "x",
    ]);
    assert_fails(&out, 1, &["not a regular file"], "query --parquet");

    // A filter whose metadata points past the end of the file.
    let mut bytes = std::fs::read(&path).unwrap();
    let cut = scratch.path("cut.parquet");
    let offset = {
        let r = parquet_files::reader(std::fs::File::open(&path).unwrap());
        r.metadata()
            .row_group(0)
            .column(0)
            .bloom_filter_offset()
            .unwrap() as usize
    };
    // Damage the first filter's header: an Err from parquet, not a panic.
    bytes[offset..offset + 6].copy_from_slice(&[0xff; 6]);
    std::fs::write(&cut, &bytes).unwrap();
    let out = run(&[
        "query",
        "--parquet",
        cut.to_str().unwrap(),
        "--column",
        "name",
        "x",
    ]);
    assert_fails(
        &out,
        1,
        &["row group 0, column 'name'", "bloom filter"],
        "query --parquet",
    );
}
