//! The cost of moving one cache line between two cores: two threads take
//! turns storing to one atomic, each waiting for the other's store, so
//! every turn is one transfer of the line. Prints the nanoseconds per
//! transfer (the median of five rounds of 10⁶ round trips). It is the
//! price a shared filter's write pays when the other core wrote the
//! shard's lock or version last (`docs/design.md`, "Deletion from many
//! threads").
//!
//! Run with `cargo bench -p approxset-benches --bench pingpong`.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// An atomic on a line of its own.
#[repr(align(128))]
struct Line(AtomicU64);

const TRIPS: u64 = 1_000_000;

/// Nanoseconds per transfer over one round of [`TRIPS`] round trips.
fn round() -> f64 {
    let flag = Line(AtomicU64::new(0));
    let wait = |v: u64| {
        while flag.0.load(Ordering::Acquire) != v {
            spin_loop();
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..TRIPS {
                wait(2 * i + 1);
                flag.0.store(2 * i + 2, Ordering::Release);
            }
        });
        let start = Instant::now();
        for i in 0..TRIPS {
            flag.0.store(2 * i + 1, Ordering::Release);
            wait(2 * i + 2);
        }
        start.elapsed().as_nanos() as f64 / (2 * TRIPS) as f64
    })
}

fn main() {
    let mut ns: Vec<f64> = (0..5).map(|_| round()).collect();
    ns.sort_by(f64::total_cmp);
    println!(
        "one cache-line transfer between two threads: {:.1} ns (median of 5; {:.1}–{:.1})",
        ns[2], ns[0], ns[4]
    );
}
