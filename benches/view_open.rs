//! Opening a 1 GiB classic filter file as a memory-mapped view (checksum
//! not verified) against `load` of the same file, in the same run, and the
//! process's resident memory (`/proc/self/status`) after each has answered
//! 10⁴ random lookups. Not a criterion bench: one measured run, printed.
//!
//! Writes the file to `$TMPDIR` (default `/tmp`, never the repository;
//! check `df -h /tmp` for 1.1 GiB free first), measures, deletes it. Run
//! with `cargo bench -p approxset-benches --bench view_open`. Each view is
//! opened with the page cache warm (the file was just written) and cold
//! (the file's pages dropped from it first with GNU dd's `iflag=nocache`,
//! which needs no root), with and without `madvise(MADV_RANDOM)`.

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use approxset::BloomFilter;
use approxset::prelude::*;

/// Bits of the filter: 2³³, a payload of exactly 1 GiB.
const BITS: u64 = 1 << 33;
/// Keys inserted before saving (the fill does not matter to the open).
const KEYS: u64 = 10_000_000;
/// Random lookups answered after opening.
const LOOKUPS: u64 = 10_000;

/// The process's VmRSS, RssAnon and RssFile, in KiB.
fn rss() -> [u64; 3] {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    [field("VmRSS:"), field("RssAnon:"), field("RssFile:")]
}

/// The growth of the resident memory from `before` to now, printed.
fn report_rss(what: &str, before: [u64; 3], file_bytes: u64) {
    let now = rss();
    let grown = |i: usize| now[i].saturating_sub(before[i]);
    println!(
        "{what}: VmRSS +{} KiB ({:.3} % of the file), RssAnon +{} KiB, RssFile +{} KiB",
        grown(0),
        grown(0) as f64 * 1024.0 / file_bytes as f64 * 100.0,
        grown(1),
        grown(2),
    );
}

/// 10⁴ lookups of keys never inserted; how many tested positive.
fn lookups<S: Membership + ?Sized>(filter: &S) -> u64 {
    (0..LOOKUPS)
        .filter(|i| filter.contains(&(i + (1 << 40))))
        .count() as u64
}

/// A read-only map of `file`, as the CLI makes one.
#[allow(unsafe_code)]
fn map(file: &std::fs::File) -> memmap2::Mmap {
    // SAFETY: the file is this run's own, written and closed before, and
    // nothing changes it while the map is alive.
    unsafe { memmap2::Mmap::map(file) }.expect("the file maps")
}

/// Asks the kernel to drop the clean pages of `path` from the page cache
/// (`posix_fadvise(DONTNEED)` through GNU dd's `iflag=nocache count=0`):
/// a cold cache for this file alone, without root.
fn drop_from_page_cache(path: &std::path::Path) {
    let status = std::process::Command::new("dd")
        .arg(format!("if={}", path.display()))
        .args(["iflag=nocache", "count=0", "status=none"])
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "dd drops the file's cache"
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let dir = std::env::var_os("TMPDIR").unwrap_or_else(|| "/tmp".into());
    let path =
        std::path::Path::new(&dir).join(format!("approxset-view-{}.bin", std::process::id()));
    {
        let mut f = BloomFilter::with_num_bits(BITS).seed(1).hashes(7).unwrap();
        for i in 0..KEYS {
            f.insert(&i).unwrap();
        }
        let bytes = f.to_bytes().unwrap();
        drop(f);
        let mut out = std::fs::File::create(&path).expect("the file is created");
        out.write_all(&bytes).expect("the file is written");
        out.sync_all().ok();
    }
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    println!(
        "file: {} ({file_bytes} bytes), page cache warm",
        path.display()
    );

    let advices: [(&[memmap2::Advice], bool); 4] = [
        (&[], false),
        (&[memmap2::Advice::Random], false),
        (&[], true),
        (&[memmap2::Advice::Random], true),
    ];
    for (advice, cold) in advices {
        if cold {
            drop_from_page_cache(&path);
        }
        let before = rss();
        let start = Instant::now();
        let file = std::fs::File::open(&path).unwrap();
        let map = map(&file);
        let view = BloomFilter::view(&map).unwrap();
        let opened = start.elapsed();
        for &advice in advice {
            map.advise(advice).unwrap();
        }
        let start = Instant::now();
        let hits = lookups(&view);
        let looked = start.elapsed();
        let cache = if cold { "cold" } else { "warm" };
        println!(
            "view (map + open, {cache} cache, advice {advice:?}): opened in {:.1} µs; {LOOKUPS} lookups in {:.1} ms ({hits} positive)",
            opened.as_secs_f64() * 1e6,
            looked.as_secs_f64() * 1e3,
        );
        report_rss("  after the view's lookups", before, file_bytes);
        black_box(&view);
    }

    let before = rss();
    let start = Instant::now();
    let bytes = std::fs::read(&path).unwrap();
    let loaded = approxset::load(&bytes).unwrap();
    let opened = start.elapsed();
    drop(bytes);
    let hits = lookups(&*loaded);
    println!(
        "load (read + checksum + copy): {:.1} ms ({hits} positive)",
        opened.as_secs_f64() * 1e3
    );
    report_rss("  after load's lookups", before, file_bytes);
    drop(loaded);
    std::fs::remove_file(&path).expect("the file is removed");
}
