//! Several threads tracking live sessions in one deletable filter: each
//! thread opens sessions (`insert_shared`), closes its oldest ones
//! (`remove_shared`) and checks requests (`contains_shared`), all through
//! `&self`. The filter is a sharded cuckoo or counting filter
//! (`Variant::…builder().shared(2).build_shared(n, p)`): 8 filters whose
//! lookups take no lock and whose writes lock one of them, the session's
//! shard chosen from its digest. The guide's table recommends cuckoo for a
//! known number of sessions, and the quotient filter (which grows; also
//! shared through `.shared(T)`) when the number is not known.
//!
//! It checks that no open session is ever missing and that sessions never
//! opened come back at about the filter's rate, and it measures a 50/25/25
//! check/open/close mix over 10⁶ open sessions in short alternating bursts:
//! the sharded filter with one thread, the same filter with two, the
//! plain filter behind one `RwLock` with two, and, as the ceiling the
//! machine allows at that moment, two threads each on a filter of its own
//! (`private 2 / 1`: near 2 on two idle cores, near 1 when other programs
//! keep one busy). Alternating bursts pair each
//! two-thread figure with a one-thread one taken a moment before, so a
//! ratio holds up better than two long runs minutes apart when other
//! programs load the machine; it prints the median and range of the ratios.
//!
//! `cargo run --release --example shared_sessions`

use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use approxset::hash::splitmix64;
use approxset::{ConcurrentDeletable, Deletable, Removal, Variant};

const SESSIONS: usize = 1_000_000;
const FP_RATE: f64 = 0.01;
/// Rounds of the mix (check, open, check, close) per thread and burst.
const BURST: u64 = 50_000;
/// Bursts of each kind.
const PAIRS: usize = 15;

/// A filter the threads share, however it is shared.
/// (`t` is the calling thread, for the private filters.)
trait Sessions: Sync {
    fn check(&self, t: usize, id: u64) -> bool;
    fn open(&self, t: usize, id: u64) -> approxset::Result<()>;
    fn close(&self, t: usize, id: u64) -> Removal;
}

impl Sessions for Box<dyn ConcurrentDeletable + Send + Sync> {
    fn check(&self, _: usize, id: u64) -> bool {
        self.contains_shared(&id)
    }
    fn open(&self, _: usize, id: u64) -> approxset::Result<()> {
        self.insert_shared(&id).map(drop)
    }
    fn close(&self, _: usize, id: u64) -> Removal {
        self.remove_shared(&id)
    }
}

impl Sessions for RwLock<Box<dyn Deletable + Send + Sync>> {
    fn check(&self, _: usize, id: u64) -> bool {
        self.read().expect("no thread panics").contains(&id)
    }
    fn open(&self, _: usize, id: u64) -> approxset::Result<()> {
        self.write()
            .expect("no thread panics")
            .insert(&id)
            .map(drop)
    }
    fn close(&self, _: usize, id: u64) -> Removal {
        self.write().expect("no thread panics").remove(&id)
    }
}

/// Not shared at all: a filter per thread, behind a lock no other thread
/// takes. Two threads on it show what the machine lets two threads do.
struct Private(Vec<Mutex<Box<dyn Deletable + Send + Sync>>>);

impl Sessions for Private {
    fn check(&self, t: usize, id: u64) -> bool {
        self.0[t].lock().expect("no thread panics").contains(&id)
    }
    fn open(&self, t: usize, id: u64) -> approxset::Result<()> {
        self.0[t]
            .lock()
            .expect("no thread panics")
            .insert(&id)
            .map(drop)
    }
    fn close(&self, t: usize, id: u64) -> Removal {
        self.0[t].lock().expect("no thread panics").remove(&id)
    }
}

/// Thread `t`'s `j`-th session id.
fn session(t: usize, j: u64) -> u64 {
    splitmix64(&mut ((t as u64) << 40 | j))
}

/// Thread `t`'s sessions `start..start + live` are open. Each of `threads`
/// threads runs `BURST` rounds from its own start; returns the false
/// positives seen and the wall time, and moves the starts on.
fn burst(
    filter: &impl Sessions,
    starts: &mut [u64],
    threads: usize,
    live: u64,
) -> Result<(u64, Duration), Box<dyn std::error::Error>> {
    let begin = Instant::now();
    let fps = std::thread::scope(|s| {
        let workers: Vec<_> = starts[..threads]
            .iter()
            .enumerate()
            .map(|(t, &start)| {
                s.spawn(move || -> approxset::Result<u64> {
                    let mut fps = 0;
                    for r in start..start + BURST {
                        let open = session(t, r + live / 2);
                        assert!(filter.check(t, open), "an open session is missing");
                        filter.open(t, session(t, r + live))?;
                        // Never opened: found only as a false positive.
                        fps += u64::from(filter.check(t, !session(t, r)));
                        let closed = filter.close(t, session(t, r));
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
    let elapsed = begin.elapsed();
    for start in &mut starts[..threads] {
        *start += BURST;
    }
    Ok((fps, elapsed))
}

/// Opens `live` sessions for each of two threads.
fn fill(filter: &impl Sessions, live: u64) -> approxset::Result<()> {
    for t in 0..2 {
        for j in 0..live {
            filter.open(t, session(t, j))?;
        }
    }
    Ok(())
}

/// The median, the smallest and the largest.
fn spread(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "{:<9} {:>11} {:>11} {:>11} {:>20} {:>20} {:>20} {:>8}",
        "variant",
        "1 thread",
        "2 threads",
        "RwLock, 2",
        "2 / 1 thread",
        "2 / RwLock",
        "private 2 / 1",
        "fp rate"
    );
    let live = (SESSIONS / 2) as u64;
    for variant in [Variant::Cuckoo, Variant::Counting] {
        let sharded = variant
            .builder()
            .seed(7)
            .shared(2)
            .build_shared(SESSIONS, FP_RATE)?;
        let locked = RwLock::new(
            variant
                .builder()
                .seed(7)
                .build_deletable(SESSIONS, FP_RATE)?,
        );
        let private = Private(
            (0..2)
                .map(|_| {
                    let f = variant
                        .builder()
                        .seed(7)
                        .build_deletable(SESSIONS / 2, FP_RATE)?;
                    Ok(Mutex::new(f))
                })
                .collect::<approxset::Result<_>>()?,
        );
        fill(&sharded, live)?;
        fill(&locked, live)?;
        fill(&private, live)?;
        let (mut starts, mut locked_starts, mut private_starts) = ([0; 2], [0; 2], [0; 2]);
        let (mut one, mut two, mut rw, mut apart) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut fps, mut checks) = (0, 0);
        for _ in 0..PAIRS {
            // Operations per second; thread 1's window waits while thread 0
            // runs alone.
            let (f1, t1) = burst(&sharded, &mut starts, 1, live)?;
            let (f2, t2) = burst(&sharded, &mut starts, 2, live)?;
            let (_, t3) = burst(&locked, &mut locked_starts, 2, live)?;
            let (_, t4) = burst(&private, &mut private_starts, 2, live)?;
            apart.push(8.0 * BURST as f64 / t4.as_secs_f64());
            one.push(4.0 * BURST as f64 / t1.as_secs_f64());
            two.push(8.0 * BURST as f64 / t2.as_secs_f64());
            rw.push(8.0 * BURST as f64 / t3.as_secs_f64());
            fps += f1 + f2;
            checks += 3 * BURST;
        }
        let scaling = spread(two.iter().zip(&one).map(|(b, a)| b / a).collect());
        let over_rw = spread(two.iter().zip(&rw).map(|(b, a)| b / a).collect());
        let ceiling = spread(apart.iter().zip(&one).map(|(b, a)| b / a).collect());
        let mops = |xs: &[f64]| spread(xs.to_vec()).0 / 1e6;
        println!(
            "{:<9} {:>8.2} M/s {:>7.2} M/s {:>7.2} M/s {:>5.2}x ({:.2}-{:.2}) {:>5.2}x ({:.2}-{:.2}) {:>5.2}x ({:.2}-{:.2}) {:>8.4}",
            variant.name(),
            mops(&one),
            mops(&two),
            mops(&rw),
            scaling.0,
            scaling.1,
            scaling.2,
            over_rw.0,
            over_rw.1,
            over_rw.2,
            ceiling.0,
            ceiling.1,
            ceiling.2,
            fps as f64 / checks as f64,
        );
        assert_eq!(sharded.len(), 2 * live as usize, "opened = closed");
    }
    Ok(())
}
