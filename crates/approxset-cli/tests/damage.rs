//! A damaged filter file is never answered from (issue 31): a flipped bit
//! anywhere, an overwrite in place and a truncation while `query` reads
//! are each an error naming the file (exit 1), never an answer computed
//! from bytes that are not the bytes written, never a signal.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

mod common;
use common::{json, run};

#[path = "../src/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Every variant, by its CLI name.
const VARIANTS: [&str; 9] = [
    "classic",
    "partitioned",
    "blocked",
    "split-block",
    "counting",
    "cuckoo",
    "scalable",
    "fuse",
    "sliding",
];

/// Writes the keys `key-{i}`, `i < n`, to `name`; its path.
fn keys(scratch: &Scratch, name: &str, n: u32) -> String {
    let text: String = (0..n).map(|i| format!("key-{i}\n")).collect();
    std::fs::write(scratch.path(name), text).unwrap();
    scratch.arg(name)
}

/// `query` of the keys in `input` (standard input), as the process ends.
fn query(filter: &str, input: &str, verify: bool) -> std::process::Output {
    let mut args = vec!["query", "--filter", filter];
    if verify {
        args.push("--verify");
    }
    Command::new(env!("CARGO_BIN_EXE_approxset"))
        .args(&args)
        .stdin(std::fs::File::open(input).unwrap())
        .output()
        .unwrap()
}

/// One line on standard error naming the file, exit code 1, no signal.
fn failed_naming(out: &std::process::Output, file: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    assert!(stderr.starts_with("error: "), "{what}: {stderr}");
    assert!(stderr.contains(file), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[test]
fn a_flipped_bit_anywhere_is_an_error_or_the_undamaged_answers() {
    let scratch = Scratch::new("flipped");
    let input = keys(&scratch, "keys.txt", 3000);
    let probes = {
        let text: String = (0..3000).map(|i| format!("key-{i}\nother-{i}\n")).collect();
        std::fs::write(scratch.path("probes.txt"), text).unwrap();
        scratch.arg("probes.txt")
    };
    for variant in VARIANTS {
        let good = scratch.arg(&format!("{variant}.bin"));
        json(&[
            "build",
            "--variant",
            variant,
            "--seed",
            "3",
            "--items",
            "3000",
            "--input",
            &input,
            "--output",
            &good,
        ]);
        let bytes = std::fs::read(&good).unwrap();
        let answers = query(&good, &probes, false);
        assert!(answers.status.success(), "{variant}");
        let n = bytes.len();
        // The header, the parameters, the payload's first, middle and last
        // bytes, the page table and the final checksum.
        let mut at: Vec<usize> = vec![0, 5, 8, 20, 33, 47, 64, n / 3, n / 2, n - 300, n - 9, n - 1];
        at.extend((0..n).step_by(4093));
        let bad = scratch.arg(&format!("{variant}-bad.bin"));
        for &at in &at {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << (at % 8);
            std::fs::write(&bad, &flipped).unwrap();
            let what = format!("{variant}: bit {} of byte {at} of {n}", at % 8);
            let out = query(&bad, &probes, false);
            if out.status.success() {
                // Answered from pages that passed their checks: exactly
                // as the undamaged file answers.
                assert_eq!(out.stdout, answers.stdout, "{what}");
            } else {
                failed_naming(&out, "-bad.bin", &what);
            }
            failed_naming(&query(&bad, &probes, true), "-bad.bin", &what);
            failed_naming(&run(&["info", "--filter", &bad]), "-bad.bin", &what);
        }
    }
}

/// Starts `query --filter FILE` with keys on a pipe; returns the child and
/// its standard output, line by line.
fn spawn_query(file: &str) -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_approxset"))
        .args(["query", "--filter", file])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// Sends `keys` and reads the answers to the first `read` of them (the
/// keys are the filter's, so every answer is `present`). Answers to piped
/// keys are flushed when the output buffer fills: ask enough keys that the
/// first ones come.
fn ask(
    child: &mut std::process::Child,
    out: &mut BufReader<std::process::ChildStdout>,
    keys: std::ops::Range<u32>,
    read: u32,
) {
    let stdin = child.stdin.as_mut().unwrap();
    for i in keys.clone() {
        writeln!(stdin, "key-{i}").unwrap();
    }
    stdin.flush().unwrap();
    for i in keys.take(read as usize) {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, format!("key-{i}\tpresent\n"));
    }
}

/// The rest of a child's run once its input is closed: what it printed
/// after, its standard error and status.
fn finish(
    mut child: std::process::Child,
    mut out: BufReader<std::process::ChildStdout>,
) -> (String, std::process::Output) {
    drop(child.stdin.take());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    (rest, output)
}

#[test]
fn a_file_truncated_or_overwritten_while_query_reads_is_an_error_not_a_signal() {
    let scratch = Scratch::new("changed");
    let n = 200_000u32;
    let input = keys(&scratch, "keys.txt", n);
    for (variant, change) in [
        ("blocked", "truncate"),
        ("cuckoo", "truncate"),
        ("classic", "overwrite"),
        ("counting", "overwrite"),
    ] {
        let file = scratch.arg(&format!("{variant}.bin"));
        json(&[
            "build",
            "--variant",
            variant,
            "--seed",
            "3",
            "--input",
            &input,
            "--output",
            &file,
        ]);
        let len = std::fs::metadata(&file).unwrap().len();
        let (mut child, mut out) = spawn_query(&file);
        // Answers computed from the file as written: they are printed.
        ask(&mut child, &mut out, 0..4_000, 1_000);
        match change {
            // As `truncate -s 0` does to the file the reader holds open.
            "truncate" => std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .unwrap()
                .set_len(0)
                .unwrap(),
            // As `dd if=/dev/zero of=F conv=notrunc` does.
            _ => std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .unwrap()
                .write_all(&vec![0u8; len as usize])
                .unwrap(),
        }
        {
            let stdin = child.stdin.as_mut().unwrap();
            for i in 4_000..n {
                if writeln!(stdin, "key-{i}").is_err() {
                    break; // it stopped reading: the error came
                }
            }
        }
        let (rest, output) = finish(child, out);
        let what = format!("{variant} {change}");
        // Never an `absent` for a member, never a signal: an error naming
        // the file, after the answers computed from checked pages.
        assert!(!rest.contains("absent"), "{what}: {rest}");
        assert!(rest.lines().all(|l| l.ends_with("\tpresent")), "{what}");
        assert!(
            (rest.lines().count() as u32) < n - 1_000,
            "{what}: every key answered after the change"
        );
        failed_naming(&output, &format!("{variant}.bin"), &what);
    }
}
