//! Several threads tracking live sessions in one deletable filter: each
//! thread opens sessions (`insert_shared`), closes its oldest ones
//! (`remove_shared`) and checks requests against the filter
//! (`contains_shared`), all through `&self`. The filter is a `Sharded`
//! counting or cuckoo filter: S filters, each behind its own lock, the
//! session's shard chosen from its digest.
//!
//! For 1 and 2 threads and both variants it measures the throughput of a
//! 50/25/25 check/open/close mix on a filter holding 10⁶ sessions, and
//! checks that no open session is ever missing and that closed ones come
//! back at about the filter's rate (false positives). Times are wall-clock,
//! the best of three rounds; the machine this was written on has 2 cores.
//!
//! `cargo run --release --example shared_sessions`

use std::time::{Duration, Instant};

use approxset::hash::splitmix64;
use approxset::{ConcurrentDeletable, Variant};

const SESSIONS: usize = 1_000_000;
const FP_RATE: f64 = 0.01;
/// Mix rounds (check, open, check, close) per thread and round.
const ROUNDS: u64 = 500_000;

/// Thread `t`'s `j`-th session id.
fn session(t: usize, j: u64) -> u64 {
    splitmix64(&mut ((t as u64) << 40 | j))
}

/// Each of `threads` threads opens its share of `SESSIONS`, then runs
/// `ROUNDS` rounds from `start`; returns the false positives seen and the
/// mix's wall time.
fn run(
    filter: &(dyn ConcurrentDeletable + Send + Sync),
    threads: usize,
    start: u64,
) -> Result<(u64, Duration), Box<dyn std::error::Error>> {
    let live = (SESSIONS / threads) as u64;
    let begin = Instant::now();
    let fps = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || -> approxset::Result<u64> {
                    let mut fps = 0;
                    for r in start..start + ROUNDS {
                        // A session opened earlier and not yet closed.
                        let open = session(t, r + live / 2);
                        assert!(filter.contains_shared(&open), "an open session is missing");
                        filter.insert_shared(&session(t, r + live))?;
                        // One never opened: found only as a false positive.
                        fps += u64::from(filter.contains_shared(&!session(t, r)));
                        let closed = filter.remove_shared(&session(t, r));
                        assert!(closed.is_removed(), "an open session: {closed}");
                    }
                    Ok(fps)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| match w.join() {
                Ok(fps) => Ok(fps?),
                Err(_) => Err(Box::<dyn std::error::Error>::from("a worker panicked")),
            })
            .sum::<Result<u64, _>>()
    })?;
    Ok((fps, begin.elapsed()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "{:<9} {:>7} {:>6} {:>10} {:>10} {:>8}",
        "variant", "threads", "shards", "Mops/s", "scaling", "fp rate"
    );
    for variant in [Variant::Counting, Variant::Cuckoo] {
        let mut one_thread = 0.0;
        for threads in [1usize, 2] {
            let filter = variant
                .builder()
                .seed(7)
                .shared(threads)
                .build_shared(SESSIONS, FP_RATE)?;
            let live = (SESSIONS / threads) as u64;
            for t in 0..threads {
                for j in 0..live {
                    filter.insert_shared(&session(t, j))?;
                }
            }
            let mut best = Duration::MAX;
            let mut fps = 0;
            for round in 0..3 {
                let (f, time) = run(&*filter, threads, round * ROUNDS)?;
                best = best.min(time);
                fps += f;
            }
            let ops = 4.0 * ROUNDS as f64 * threads as f64 / best.as_secs_f64() / 1e6;
            if threads == 1 {
                one_thread = ops;
            }
            let shards = filter.parameters()[0].1;
            println!(
                "{:<9} {:>7} {:>6} {:>10.2} {:>9.2}x {:>8.4}",
                variant.name(),
                threads,
                shards,
                ops,
                ops / one_thread,
                fps as f64 / (3 * ROUNDS * threads as u64) as f64,
            );
            assert_eq!(filter.len(), live as usize * threads, "opened = closed");
        }
    }
    Ok(())
}
