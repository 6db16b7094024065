//! Several threads recording and checking keys in one `AtomicBloomFilter`,
//! without a lock: `insert_shared` sets bits with atomic `fetch_or` through
//! `&self` and answers whether the key was certainly new, so it is the
//! check and the record of an admission rule in one call.
//!
//! For 1, 2 and 4 threads it measures the throughput of recording a stream
//! of 8 million requests (4 million keys, each requested twice) and of
//! checking the 2 million keys and 2 million absent ones; it checks that no
//! recorded key is missing, and that the shared filter has exactly the bits
//! of a single-threaded `BlockedBloomFilter` fed the same stream. Times are
//! wall-clock, the best of five rounds. The machine this was written on has
//! 2 cores, so 4 threads share them.
//!
//! `cargo run --release --example shared_admission`

use std::time::{Duration, Instant};

use approxset::hash::splitmix64;
use approxset::{AtomicBloomFilter, BlockedBloomFilter, ConcurrentApproxSet};

const KEYS: usize = 2_000_000;
const FP_RATE: f64 = 0.01;
const SEED: u64 = 9;
/// Rounds of measurement; each thread count keeps its best time.
const ROUNDS: usize = 5;

/// The best times of one thread count and the counts of its last run.
#[derive(Clone, Copy)]
struct Run {
    record: Duration,
    check: Duration,
    new: u64,
    fps: u64,
    missing: u64,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            record: Duration::MAX,
            check: Duration::MAX,
            new: 0,
            fps: 0,
            missing: 0,
        }
    }
}

/// Runs `work` on `threads` scoped threads, each with its share of `items`,
/// and returns the sum of their counts and the wall time.
fn on_threads<T: Sync>(
    threads: usize,
    items: &[T],
    work: impl Fn(&[T]) -> approxset::Result<u64> + Sync,
) -> Result<(u64, Duration), Box<dyn std::error::Error>> {
    let chunk = items.len().div_ceil(threads);
    let start = Instant::now();
    let total = std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| work(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(counted) => Ok(counted?),
                Err(_) => Err(Box::<dyn std::error::Error>::from(
                    "a worker thread panicked",
                )),
            })
            .sum::<Result<u64, _>>()
    })?;
    Ok((total, start.elapsed()))
}

/// Records every request; counts those the filter had certainly not seen.
/// (The atomic filter's inserts never fail; the trait's may, for others.)
fn record(
    filter: &(dyn ConcurrentApproxSet + Send + Sync),
    requests: &[u64],
) -> approxset::Result<u64> {
    requests
        .iter()
        .map(|key| filter.insert_shared(key).map(u64::from))
        .sum()
}

/// Counts the keys the filter may hold.
fn check(filter: &(dyn ConcurrentApproxSet + Send + Sync), keys: &[u64]) -> approxset::Result<u64> {
    Ok(keys
        .iter()
        .map(|key| u64::from(filter.contains_shared(key)))
        .sum())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Distinct even keys, each requested twice in a shuffled stream; odd
    // keys are never recorded.
    let mut rng = 3;
    let keys: Vec<u64> = (0..KEYS).map(|_| splitmix64(&mut rng) & !1).collect();
    let absent: Vec<u64> = (0..KEYS).map(|_| splitmix64(&mut rng) | 1).collect();
    let mut stream: Vec<u64> = keys.iter().chain(&keys).copied().collect();
    for i in (1..stream.len()).rev() {
        let j = (splitmix64(&mut rng) % (i as u64 + 1)) as usize;
        stream.swap(i, j);
    }

    // The reference: one thread, the ordinary blocked filter.
    let start = Instant::now();
    let mut reference = BlockedBloomFilter::with_fp_rate(FP_RATE)
        .seed(SEED)
        .expected_items(KEYS)?;
    for key in &stream {
        reference.insert(key)?;
    }
    println!(
        "{} requests for {KEYS} keys; filter of {} bytes ({FP_RATE} fp for {KEYS} keys); \
         single-threaded BlockedBloomFilter fed in {:.0} ms",
        stream.len(),
        reference.memory_bytes(),
        start.elapsed().as_secs_f64() * 1e3
    );
    println!(
        "\n{:>7} {:>11} {:>13} {:>12} {:>11} {:>13} {:>12} {:>9} {:>12} {:>10}",
        "threads",
        "record ms",
        "Mrecords/s",
        "per thread",
        "check ms",
        "Mchecks/s",
        "per thread",
        "new",
        "fp on absent",
        "missing"
    );
    // Rounds over 1, 2 and 4 threads, each run on a fresh filter; the best
    // time of each thread count is kept, so the noise of other programs on
    // the machine falls on all counts alike.
    const THREADS: [usize; 3] = [1, 2, 4];
    let mut runs = [Run::default(); THREADS.len()];
    for _ in 0..ROUNDS {
        for (run, threads) in runs.iter_mut().zip(THREADS) {
            let filter = AtomicBloomFilter::with_fp_rate(FP_RATE)
                .seed(SEED)
                .expected_items(KEYS)?;
            let shared: &(dyn ConcurrentApproxSet + Send + Sync) = &filter;

            let (new, record_time) = on_threads(threads, &stream, |part| record(shared, part))?;
            let (found, check_time) = on_threads(threads, &keys, |part| check(shared, part))?;
            let (fps, fp_time) = on_threads(threads, &absent, |part| check(shared, part))?;
            let missing = KEYS as u64 - found;
            assert_eq!(missing, 0, "a recorded key is never missing");
            assert_eq!(filter.len(), stream.len(), "every insert is counted");
            let blocked = filter.into_blocked();
            assert!(
                blocked == reference,
                "the shared filter has the bits of the single-threaded one"
            );
            run.record = run.record.min(record_time);
            run.check = run.check.min(check_time + fp_time);
            (run.new, run.fps, run.missing) = (new, fps, missing);
        }
    }
    for (run, threads) in runs.iter().zip(THREADS) {
        let records = stream.len() as f64 / run.record.as_secs_f64() / 1e6;
        let checks = (2 * KEYS) as f64 / run.check.as_secs_f64() / 1e6;
        println!(
            "{:>7} {:>11.0} {:>13.1} {:>12.1} {:>11.0} {:>13.1} {:>12.1} {:>9} {:>11.3}% {:>10}",
            threads,
            run.record.as_secs_f64() * 1e3,
            records,
            records / threads as f64,
            run.check.as_secs_f64() * 1e3,
            checks,
            checks / threads as f64,
            run.new,
            100.0 * run.fps as f64 / KEYS as f64,
            run.missing
        );
    }
    println!(
        "\nnew: requests the filter had certainly not seen (at most {KEYS}; a key whose bits \
         were all set by others is not new); every run equals the single-threaded filter, \
         bit for bit"
    );
    Ok(())
}
