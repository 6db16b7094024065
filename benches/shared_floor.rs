//! The floor under `benches/shared.rs`: what T threads reach on a table
//! of 4-bit counters the size of the counting filter at n = 10⁶, p = 1 %
//! (600,000 words, 4.8 MB) with no filter, no shard and no lock at all.
//!
//! - `atomic-mix-T`: the `shared` bench's mix (per thread and round: a
//!   lookup of a live key, an insert, a lookup of an absent key, a remove),
//!   each insert and remove 7 `fetch_add`/`fetch_sub` on counter words,
//!   each lookup 7 relaxed loads (stopping at the first zero counter);
//! - `atomic-read-T`: lookups only (two per round, as above).
//!
//! `atomic-mix-T / atomic-mix-1` is how the bare table scales: its writes
//! move cache lines between cores however they are synchronised. The time
//! an iteration gains from T = 1 to T = 2 is what sharing the lines alone
//! costs; a filter that does more work an operation spreads that cost over
//! more time, so its scaling can pass the table's (`docs/design.md`, "What
//! two threads can reach on this Xeon"). Compare
//! `shared-mix/counting/sharded-T` against it.
//!
//! `APPROXSET_FLOOR_WORDS=170000` makes the table the size of the cuckoo
//! and quotient filters at n = 10⁶ (1.36 MB, under one core's L2 on the
//! machines measured), and `APPROXSET_FLOOR_K=2` gives each key 2 counters
//! (a cuckoo filter's two buckets): what sharing costs under
//! `shared-mix/cuckoo/sharded-T` and `shared-mix/quotient/sharded-T`.
//!
//! What a filter adds to the table, as knobs (each 0 by default):
//! - `APPROXSET_FLOOR_WORK=N`: each operation first computes N chained
//!   keyed digests of its key (SipHash-1-3, the default hash; each of the
//!   last's `h1`) and places its counters from the last: the work a
//!   filter does before it knows which lines it touches, to bring one
//!   thread's time per iteration up to a filter's;
//! - `APPROXSET_FLOOR_CHECK=1`: a remove first loads its counters and
//!   changes them only when none is 0, as a counting filter's remove
//!   must (to answer `Absent`);
//! - `APPROXSET_FLOOR_CAS=1`: each counter changes by a compare-and-swap
//!   loop that leaves 15 at 15 and never takes 1 from 0, as a lock-free
//!   counting filter's must, instead of one `fetch_add` (which carries
//!   into the next counter at 15; timing only).
//!
//! With all three (`WORK=1`) the table is a counting filter with no lock
//! and no item count: a bound on what any counting filter of this layout
//! reaches. `docs/design.md`, "What two threads can reach on this Xeon",
//! has the figures.
//!
//! Run with `cargo bench -p approxset-benches --bench shared_floor --
//! --warm-up-time 1 --measurement-time 3 --sample-size 10`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use approxset::HashKey;
use approxset::hash::mix64;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// The counters of a key: 7, or `APPROXSET_FLOOR_K`.
fn k() -> u64 {
    static K: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *K.get_or_init(|| {
        std::env::var("APPROXSET_FLOOR_K").map_or(7, |v| v.parse().expect("a number of counters"))
    })
}

/// The table's words: 600,000, or `APPROXSET_FLOOR_WORDS`.
fn words() -> usize {
    std::env::var("APPROXSET_FLOOR_WORDS")
        .map_or(600_000, |v| v.parse().expect("a number of words"))
}
const LIVE: u64 = 1_000_000;

/// A knob of the file's comment: the number in `var`, or 0.
fn knob(var: &str) -> u64 {
    std::env::var(var).map_or(0, |v| v.parse().expect("a number"))
}

/// The knobs, read once.
struct Knobs {
    work: u64,
    check: bool,
    cas: bool,
    key: HashKey,
}

fn knobs() -> &'static Knobs {
    static KNOBS: std::sync::OnceLock<Knobs> = std::sync::OnceLock::new();
    KNOBS.get_or_init(|| Knobs {
        work: knob("APPROXSET_FLOOR_WORK"),
        check: knob("APPROXSET_FLOOR_CHECK") != 0,
        cas: knob("APPROXSET_FLOOR_CAS") != 0,
        key: HashKey::from_seed(1),
    })
}

/// The 7 (word, shift) places of `key`'s counters.
#[inline]
fn places<const PLAIN: bool>(
    knobs: &Knobs,
    key: u64,
    words: usize,
) -> impl Iterator<Item = (usize, u32)> {
    let mut h1 = mix64(key);
    if !PLAIN && knobs.work > 0 {
        h1 = key;
        for _ in 0..knobs.work {
            h1 = knobs.key.digest(&h1).h1();
        }
    }
    let h2 = mix64(h1 ^ 0x9E37_79B9_7F4A_7C15) | 1;
    (0..k()).map(move |i| {
        let h = h1.wrapping_add(i.wrapping_mul(h2));
        let counter = ((u128::from(h) * (words as u128 * 16)) >> 64) as usize;
        (counter / 16, (counter % 16) as u32 * 4)
    })
}

#[inline]
fn contains<const PLAIN: bool>(knobs: &Knobs, table: &[AtomicU64], key: u64) -> bool {
    places::<PLAIN>(knobs, key, table.len()).all(|(w, s)| (table[w].load(Relaxed) >> s) & 15 != 0)
}

#[inline]
fn add<const PLAIN: bool>(knobs: &Knobs, table: &[AtomicU64], key: u64, up: bool) {
    if !PLAIN && !up && knobs.check && !contains::<PLAIN>(knobs, table, key) {
        return;
    }
    for (w, s) in places::<PLAIN>(knobs, key, table.len()) {
        if !PLAIN && knobs.cas {
            step(&table[w], s, up);
        } else if up {
            table[w].fetch_add(1 << s, Relaxed);
        } else {
            table[w].fetch_sub(1 << s, Relaxed);
        }
    }
}

/// One counter up or down by a compare-and-swap loop: 15 stays 15, 0 is
/// not decremented.
#[inline]
fn step(word: &AtomicU64, s: u32, up: bool) {
    let mut cur = word.load(Relaxed);
    loop {
        let c = (cur >> s) & 15;
        if c == 15 || (!up && c == 0) {
            return;
        }
        let new = if up { cur + (1 << s) } else { cur - (1 << s) };
        match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(seen) => cur = seen,
        }
    }
}

#[inline]
fn key(t: usize, j: u64) -> u64 {
    ((t as u64) << 40) | j
}

/// `rounds` rounds on thread `t` from `start`; `write` adds the insert and
/// the remove.
fn rounds(table: &[AtomicU64], t: usize, start: u64, live: u64, rounds: u64, write: bool) -> u64 {
    // The bare table compiled with no test of a knob in it.
    let knobs = knobs();
    if knobs.work == 0 && !knobs.check && !knobs.cas {
        rounds_with::<true>(knobs, table, t, start, live, rounds, write)
    } else {
        rounds_with::<false>(knobs, table, t, start, live, rounds, write)
    }
}

/// [`rounds`] with the knobs (`PLAIN`: none at work, so none tested).
fn rounds_with<const PLAIN: bool>(
    knobs: &Knobs,
    table: &[AtomicU64],
    t: usize,
    start: u64,
    live: u64,
    rounds: u64,
    write: bool,
) -> u64 {
    let mut found = 0;
    for r in 0..rounds {
        let oldest = start + r;
        found += u64::from(contains::<PLAIN>(knobs, table, key(t, oldest + live / 2)));
        if write {
            add::<PLAIN>(knobs, table, key(t, oldest + live), true);
        }
        found += u64::from(contains::<PLAIN>(knobs, table, key(t, oldest) | (1 << 63)));
        if write {
            add::<PLAIN>(knobs, table, key(t, oldest), false);
        }
    }
    found
}

fn run(table: &[AtomicU64], starts: &mut [u64], iters: u64, write: bool) -> Duration {
    let live = LIVE / starts.len() as u64;
    let begin = Instant::now();
    std::thread::scope(|s| {
        for (t, &start) in starts.iter().enumerate() {
            s.spawn(move || black_box(rounds(table, t, start, live, iters, write)));
        }
    });
    let elapsed = begin.elapsed();
    for start in starts.iter_mut() {
        *start += iters;
    }
    elapsed
}

fn floor(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t <= cores)
        .collect();
    if counts.last() != Some(&cores) {
        counts.push(cores);
    }
    let mut group = c.benchmark_group("shared-floor");
    for threads in counts {
        for (name, write, ops) in [("atomic-mix", true, 4), ("atomic-read", false, 2)] {
            // LIVE keys in all, each thread's first LIVE/T, as in `shared`.
            let table: Vec<AtomicU64> = (0..words()).map(|_| AtomicU64::new(0)).collect();
            for t in 0..threads {
                for j in 0..LIVE / threads as u64 {
                    add::<false>(knobs(), &table, key(t, j), true);
                }
            }
            let mut starts = vec![0u64; threads];
            group.throughput(Throughput::Elements(ops * threads as u64));
            group.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter_custom(|iters| run(&table, &mut starts, iters, write))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, floor);
criterion_main!(benches);
