//! What the benchmarks of the static filters (fuse, Ribbon) share: their
//! builders from precomputed digests, the classic filter they are measured
//! against, the setup line each subject prints, and the instruction-count
//! mode of both benches.

use std::hint::black_box;

use approxset::{BinaryFuseFilter, BloomFilter, Digest, HashKey, RibbonFilter};
use xorf::Filter;

/// The keys of size `n` (`common::keys`), the hash key of every subject
/// (seed 1), and the members' and non-members' digests under it.
pub(crate) fn digests(n: usize) -> (crate::common::Keys, HashKey, Vec<Digest>, Vec<Digest>) {
    let keys = crate::common::keys(n);
    let key = HashKey::from_seed(1);
    let members = keys.members.iter().map(|k| key.digest(k)).collect();
    let others = keys.others.iter().map(|k| key.digest(k)).collect();
    (keys, key, members, others)
}

/// Our binary fuse filter of `digests` at rate `fp`.
pub(crate) fn fuse(digests: &[Digest], fp: f64, key: HashKey) -> BinaryFuseFilter {
    BinaryFuseFilter::with_fp_rate(fp)
        .hash_key(key)
        .build_digests(digests)
        .unwrap()
}

/// Our Ribbon filter of `digests` at rate `fp`.
#[allow(dead_code)] // the fuse bench has no Ribbon row
pub(crate) fn ribbon(digests: &[Digest], fp: f64, key: HashKey) -> RibbonFilter {
    RibbonFilter::with_fp_rate(fp)
        .hash_key(key)
        .build_digests(digests)
        .unwrap()
}

/// Our classic Bloom filter at rate `fp`, built and filled with `digests`.
pub(crate) fn classic(digests: &[Digest], fp: f64, key: HashKey) -> BloomFilter {
    let mut f = BloomFilter::with_fp_rate(fp)
        .hash_key(key)
        .expected_items(digests.len())
        .unwrap();
    for &d in digests {
        f.insert_digest(d).unwrap();
    }
    f
}

/// One subject's setup line on stderr: bits per key, the rate measured
/// over up to 10⁶ fresh keys, false negatives and, when given, the peak
/// construction bytes per key. `has(i, hit)` looks up member `i` (`hit`)
/// or non-member `i`.
pub(crate) fn report(
    n: usize,
    name: &str,
    bytes: usize,
    peak: Option<usize>,
    has: impl Fn(usize, bool) -> bool,
) {
    let missing = (0..n).filter(|&i| !has(i, true)).count();
    let probes = n.min(1_000_000);
    let fp = (0..probes).filter(|&i| has(i, false)).count();
    let peak = peak.map_or(String::new(), |p| {
        format!(", peak construction {:.2} bytes/key", p as f64 / n as f64)
    });
    eprintln!(
        "n={n} {name}: {:.3} bits/key, measured fp {:.5} over {probes} fresh keys, \
         {missing} false negatives{peak}",
        bytes as f64 * 8.0 / n as f64,
        fp as f64 / probes as f64,
    );
}

/// The instruction-count mode, for a machine too noisy to time: with
/// `STATIC_ICOUNT=MODE` set, builds every subject over 10⁵ keys, runs 10⁶
/// lookups of MODE from precomputed digests, prints how many were found
/// and returns `true` (the bench then exits). MODE is `none` or
/// `SUBJECT-hit` / `SUBJECT-miss`, SUBJECT one of `ribbon1` (1 %),
/// `ribbon01` (0.1 %), `fuse8`, `fuse16`, `xorf8`, `xorf16` (xorf 0.13's
/// `BinaryFuse8` / `BinaryFuse16` of the members' `h1`, looked up with the
/// digest's `h1`), and from the `u64` key itself (`fuse8key`,
/// `fuse16key`; `xorf8key`, `xorf16key` hash it to `h1` first). Run under `valgrind --tool=cachegrind --cache-sim=no`,
/// subtract mode `none` and divide by 10⁶.
pub(crate) fn icount() -> bool {
    const N: usize = 100_000;
    const SUBJECTS: [&str; 11] = [
        "none",
        "ribbon1",
        "ribbon01",
        "fuse8",
        "fuse16",
        "xorf8",
        "xorf16",
        "fuse8key",
        "fuse16key",
        "xorf8key",
        "xorf16key",
    ];
    let Ok(mode) = std::env::var("STATIC_ICOUNT") else {
        return false;
    };
    let (keys, key, members, others) = digests(N);
    let (r1, r01) = (ribbon(&members, 0.01, key), ribbon(&members, 0.001, key));
    let (f8, f16) = (fuse(&members, 0.01, key), fuse(&members, 1e-4, key));
    let h1s: Vec<u64> = members.iter().map(|d| d.h1()).collect();
    let x8 = xorf::BinaryFuse8::try_from(&h1s).unwrap();
    let x16 = xorf::BinaryFuse16::try_from(&h1s).unwrap();
    let (subject, end) = mode.rsplit_once('-').unwrap_or((mode.as_str(), "miss"));
    let (set, raw) = if end == "hit" {
        (&members, &keys.members)
    } else {
        (&others, &keys.others)
    };
    let op = SUBJECTS
        .iter()
        .position(|&s| s == subject)
        .unwrap_or_else(|| panic!("{subject}: a mode is one of {SUBJECTS:?}, then -hit or -miss"));
    let mut found = 0usize;
    for _ in 0..10 {
        for (&d, k) in set.iter().zip(raw) {
            found += usize::from(match black_box(op) {
                0 => black_box(d).h1() == 0,
                1 => r1.contains_digest(d),
                2 => r01.contains_digest(d),
                3 => f8.contains_digest(d),
                4 => f16.contains_digest(d),
                5 => x8.contains(&d.h1()),
                6 => x16.contains(&d.h1()),
                7 => f8.contains(k),
                8 => f16.contains(k),
                9 => x8.contains(&key.digest(k).h1()),
                _ => x16.contains(&key.digest(k).h1()),
            });
        }
    }
    eprintln!("{mode}: {found} found of {}", 10 * N);
    true
}
