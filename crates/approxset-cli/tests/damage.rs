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
const VARIANTS: [&str; 11] = [
    "quotient",
    "ribbon",
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
        let mut refused = 0;
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
                refused += 1;
            }
            failed_naming(&query(&bad, &probes, true), "-bad.bin", &what);
            failed_naming(&run(&["info", "--filter", &bad]), "-bad.bin", &what);
        }
        // 6,000 keys read most pages: most flips are found without --verify.
        assert!(
            refused * 2 > at.len(),
            "{variant}: {refused} of {} refused",
            at.len()
        );
    }
}

/// A running `query --filter FILE` with keys on a pipe, its answers read
/// by a thread as they come (so neither pipe fills).
struct Running {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    reader: std::thread::JoinHandle<()>,
}

impl Running {
    fn start(file: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_approxset"))
            .args(["query", "--filter", file])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in out.lines() {
                let _ = send.send(line.unwrap());
            }
        });
        Running {
            child,
            lines,
            reader,
        }
    }

    /// Sends the keys `key-{i}` for `keys`; `false` once the process has
    /// stopped reading.
    fn send(&mut self, keys: std::ops::Range<u32>) -> bool {
        let stdin = self.child.stdin.as_mut().unwrap();
        keys.into_iter().all(|i| writeln!(stdin, "key-{i}").is_ok())
    }

    /// Waits for the next `n` answers, checking each is `present` (the keys
    /// are the filter's).
    fn expect_present(&self, n: usize) {
        for _ in 0..n {
            let line = self.lines.recv().unwrap();
            assert!(line.ends_with("\tpresent"), "{line}");
        }
    }

    /// Closes the input and waits: the answers after those expected, and
    /// the process's standard error and status.
    fn finish(mut self) -> (Vec<String>, std::process::Output) {
        drop(self.child.stdin.take());
        let output = self.child.wait_with_output().unwrap();
        self.reader.join().unwrap();
        (self.lines.try_iter().collect(), output)
    }
}

#[test]
fn a_file_truncated_or_overwritten_while_query_reads_is_an_error_not_a_signal() {
    let scratch = Scratch::new("changed");
    let n = 100_000u32;
    let input = keys(&scratch, "keys.txt", n);
    // Filters of 6 to 24 MB, so the first keys asked read a part of their
    // pages and the later ones meet pages not read yet.
    for (variant, items, change) in [
        ("blocked", "5000000", "truncate"),
        ("cuckoo", "5000000", "truncate"),
        ("classic", "20000000", "overwrite"),
        ("counting", "5000000", "overwrite"),
    ] {
        let file = scratch.arg(&format!("{variant}.bin"));
        json(&[
            "build",
            "--variant",
            variant,
            "--seed",
            "3",
            "--items",
            items,
            "--input",
            &input,
            "--output",
            &file,
        ]);
        let len = std::fs::metadata(&file).unwrap().len();
        let mut running = Running::start(&file);
        // The first answers (one output buffer's worth) come from the file
        // as written.
        assert!(running.send(0..700));
        running.expect_present(500);
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
        running.send(700..n);
        let (rest, output) = running.finish();
        let what = format!("{variant} {change}");
        // Never an `absent` for a member, never a signal: an error naming
        // the file, after the answers computed from checked pages.
        assert!(rest.iter().all(|l| l.ends_with("\tpresent")), "{what}");
        assert!(
            (rest.len() as u32) < n - 500,
            "{what}: every key answered after the change"
        );
        failed_naming(&output, &format!("{variant}.bin"), &what);
    }
}

/// A filter larger than the machine's memory is refused before any work,
/// with the same one-line error for every variant that takes `--items`.
#[test]
fn a_size_that_cannot_fit_is_refused_up_front_by_every_variant() {
    if !std::path::Path::new("/proc/meminfo").exists() {
        return; // no figure to check against
    }
    let scratch = Scratch::new("oversize");
    let input = keys(&scratch, "keys.txt", 10);
    for variant in VARIANTS.iter().filter(|v| !["fuse", "ribbon"].contains(v)) {
        let out = scratch.arg("huge.bin");
        // 10¹³ keys: terabytes, more than any machine this runs on.
        let result = run(&[
            "build",
            "--variant",
            variant,
            "--items",
            "10000000000000",
            "--input",
            &input,
            "--output",
            &out,
        ]);
        failed_naming(&result, "huge.bin", variant);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(
            stderr.starts_with("error: cannot build '") && stderr.contains("; nothing was written"),
            "{variant}: {stderr}"
        );
        assert!(!std::path::Path::new(&out).exists(), "{variant}");
    }
}
