//! The "one-hit wonder" rule of CDN caches: admit an object to the cache
//! only on its second request *within a window* of the last `W` requests,
//! so objects requested once (or rarely) never push popular ones out.
//!
//! A deterministic trace of Zipf-distributed requests, with a share of
//! objects that are requested once and never again, runs through a bounded
//! LRU cache once per admission policy:
//!
//! - admit every miss (the baseline);
//! - exact window: a queue of the last `W` requests and a hash map of their
//!   counts, the answer every filter approximates;
//! - reset Bloom: one Bloom filter for `W` requests at `p`, cleared every
//!   `W` requests (the seed article's one-hit-wonder filter), whose memory
//!   of the past drops to nothing at each reset;
//! - sliding: a [`SlidingBloomFilter`] with a window of `W` requests at
//!   the same `p`, which always remembers the last `W`.
//!
//! Every request is recorded by the policy (hits too), and the question on
//! a miss is "was this object requested among the last `W` requests?". It
//! prints for each: the request and byte hit ratios, the bytes written into
//! the cache (the churn a disk cache pays for), the admission structure's
//! memory, and how often its answer differs from the exact window's over
//! every request (yes where the window says no: false admissions; no where
//! it says yes: second requests missed).
//!
//! `cargo run --release --example cdn_admission`

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use approxset::hash::splitmix64;
use approxset::{BloomFilter, SlidingBloomFilter};

const CATALOG: usize = 2_000_000;
const ZIPF_S: f64 = 0.9;
const REQUESTS: usize = 5_000_000;
/// The share of requests for an object never requested before or after.
const ONE_TIME_SHARE: f64 = 0.3;
const CACHE_OBJECTS: usize = 50_000;
/// The window `W`: a second request counts when the first is among the
/// last `W` requests.
const WINDOW: usize = 500_000;
const FP_RATE: f64 = 0.01;

/// A least-recently-used cache of object ids: a hash map into a doubly
/// linked list kept in a vector.
struct Lru {
    index: HashMap<u64, usize>,
    nodes: Vec<Node>,
    head: usize,
    tail: usize,
    capacity: usize,
}

struct Node {
    key: u64,
    prev: usize,
    next: usize,
}

const NIL: usize = usize::MAX;

impl Lru {
    fn new(capacity: usize) -> Lru {
        Lru {
            index: HashMap::with_capacity(capacity),
            nodes: Vec::with_capacity(capacity),
            head: NIL,
            tail: NIL,
            capacity,
        }
    }

    fn unlink(&mut self, i: usize) {
        let (prev, next) = (self.nodes[i].prev, self.nodes[i].next);
        match prev {
            NIL => self.head = next,
            p => self.nodes[p].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.nodes[n].prev = prev,
        }
    }

    fn push_front(&mut self, i: usize) {
        self.nodes[i].prev = NIL;
        self.nodes[i].next = self.head;
        if self.head != NIL {
            self.nodes[self.head].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// Whether `key` is cached; a hit makes it the most recently used.
    fn hit(&mut self, key: u64) -> bool {
        match self.index.get(&key) {
            Some(&i) => {
                self.unlink(i);
                self.push_front(i);
                true
            }
            None => false,
        }
    }

    /// Caches `key` (not cached yet), evicting the least recently used
    /// object when full; returns whether one was evicted.
    fn admit(&mut self, key: u64) -> bool {
        let (i, evicted) = if self.nodes.len() < self.capacity {
            self.nodes.push(Node {
                key,
                prev: NIL,
                next: NIL,
            });
            (self.nodes.len() - 1, false)
        } else {
            let i = self.tail;
            self.unlink(i);
            self.index.remove(&self.nodes[i].key);
            self.nodes[i].key = key;
            (i, true)
        };
        self.index.insert(key, i);
        self.push_front(i);
        evicted
    }
}

/// How a miss decides whether to cache the object: was it requested
/// within the window? Every request is recorded.
enum Admission {
    Always,
    /// The last `W` requests in order, and how often each object occurs
    /// among them.
    Exact {
        window: usize,
        queue: VecDeque<u64>,
        counts: HashMap<u64, u32>,
    },
    /// One Bloom filter, cleared every `W` requests.
    Reset {
        filter: BloomFilter,
        recorded: usize,
    },
    /// A sliding filter of the last `W` requests.
    Sliding(SlidingBloomFilter),
}

impl Admission {
    /// Whether `key` was requested before (within the window, as the
    /// policy remembers it); records this request.
    fn seen_then_record(&mut self, key: u64) -> bool {
        match self {
            Admission::Always => true,
            Admission::Exact {
                window,
                queue,
                counts,
            } => {
                let seen = counts.contains_key(&key);
                if queue.len() == *window {
                    let old = queue.pop_front().expect("the window is full");
                    if let Some(c) = counts.get_mut(&old) {
                        *c -= 1;
                        if *c == 0 {
                            counts.remove(&old);
                        }
                    }
                }
                queue.push_back(key);
                *counts.entry(key).or_default() += 1;
                seen
            }
            Admission::Reset { filter, recorded } => {
                if *recorded == WINDOW {
                    filter.clear();
                    *recorded = 0;
                }
                let digest = filter.hash_key().digest(&key);
                let seen = filter.contains_digest(digest);
                filter
                    .insert_digest(digest)
                    .expect("a Bloom filter always has room");
                *recorded += 1;
                seen
            }
            Admission::Sliding(filter) => {
                let digest = filter.hash_key().digest(&key);
                let seen = filter.contains_digest(digest);
                filter
                    .insert_digest(digest)
                    .expect("a sliding filter always has room");
                seen
            }
        }
    }

    /// Bytes of the admission structure.
    fn memory(&self) -> usize {
        match self {
            Admission::Always => 0,
            // The queue's buffer, and the map's buckets (7/8 full at most)
            // of a 16-byte (key, count) pair and a control byte.
            Admission::Exact { queue, counts, .. } => {
                queue.capacity() * 8 + (counts.capacity() * 8).div_ceil(7).next_power_of_two() * 17
            }
            Admission::Reset { filter, .. } => filter.memory_bytes(),
            Admission::Sliding(filter) => filter.memory_bytes(),
        }
    }
}

/// An object's size in bytes, 1 KiB to 1 MiB, log-uniform, fixed by its id.
fn size_of_object(id: u64) -> u64 {
    let mut state = id;
    let r = splitmix64(&mut state);
    1024 << (r % 11)
}

/// A Zipf(s) sampler over ranks 0..n by inverse transform on the CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, s: f64) -> Zipf {
        let mut total = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|rank| {
                total += (rank as f64).powf(-s);
                total
            })
            .collect();
        for c in &mut cdf {
            *c /= total;
        }
        Zipf { cdf }
    }

    fn sample(&self, rng: &mut u64) -> u64 {
        let u = (splitmix64(rng) >> 11) as f64 / (1u64 << 53) as f64;
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1) as u64
    }
}

#[derive(Default)]
struct Outcome {
    hits: u64,
    hit_bytes: u64,
    bytes: u64,
    admitted: u64,
    admitted_bytes: u64,
    /// Requests the policy called seen that the exact window did not.
    false_yes: u64,
    /// Requests the exact window called seen that the policy did not.
    false_no: u64,
    memory: usize,
}

/// Runs the trace through an LRU cache admitting by `admission`; `exact`
/// is the exact window's answer to each request (`None` for the exact
/// window itself).
fn simulate(
    trace: &[u64],
    mut admission: Admission,
    exact: Option<&[bool]>,
) -> (Outcome, Vec<bool>) {
    let mut cache = Lru::new(CACHE_OBJECTS);
    let mut out = Outcome::default();
    let mut answers = Vec::with_capacity(if exact.is_none() { trace.len() } else { 0 });
    for (i, &id) in trace.iter().enumerate() {
        let size = size_of_object(id);
        out.bytes += size;
        let seen = admission.seen_then_record(id);
        match exact {
            Some(exact) => {
                out.false_yes += u64::from(seen && !exact[i]);
                out.false_no += u64::from(!seen && exact[i]);
            }
            None => answers.push(seen),
        }
        if cache.hit(id) {
            out.hits += 1;
            out.hit_bytes += size;
        } else if seen {
            out.admitted += 1;
            out.admitted_bytes += size;
            cache.admit(id);
        }
    }
    out.memory = admission.memory();
    (out, answers)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let zipf = Zipf::new(CATALOG, ZIPF_S);
    let mut rng = 5;
    let mut next_one_time = CATALOG as u64;
    let threshold = (ONE_TIME_SHARE * u64::MAX as f64) as u64;
    let trace: Vec<u64> = (0..REQUESTS)
        .map(|_| {
            if splitmix64(&mut rng) < threshold {
                next_one_time += 1;
                next_one_time
            } else {
                zipf.sample(&mut rng)
            }
        })
        .collect();
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for &id in &trace {
        *counts.entry(id).or_default() += 1;
    }
    let once = counts.values().filter(|&&c| c == 1).count();
    println!(
        "{REQUESTS} requests: Zipf(s = {ZIPF_S}) over {CATALOG} objects, {:.0} % for objects \
         requested only once (trace made and counted in {:.2} s)",
        100.0 * ONE_TIME_SHARE,
        start.elapsed().as_secs_f64()
    );
    println!(
        "{} distinct objects, {once} of them ({:.1} %) requested exactly once; LRU cache of \
         {CACHE_OBJECTS} objects; sizes 1 KiB to 1 MiB; admission on a request seen among the \
         last W = {WINDOW} requests, filters at p = {FP_RATE}\n",
        counts.len(),
        100.0 * once as f64 / counts.len() as f64
    );
    drop(counts);

    let start = Instant::now();
    let exact = |window: usize| Admission::Exact {
        window,
        queue: VecDeque::with_capacity(window),
        counts: HashMap::new(),
    };
    let (exact_out, exact_answers) = simulate(&trace, exact(WINDOW), None);
    let said_yes = exact_answers.iter().filter(|&&y| y).count() as f64;
    let said_no = REQUESTS as f64 - said_yes;
    let exact_time = start.elapsed().as_secs_f64();
    let reset = Admission::Reset {
        filter: BloomFilter::with_fp_rate(FP_RATE)
            .seed(3)
            .expected_items(WINDOW)?,
        recorded: 0,
    };
    let sliding = Admission::Sliding(
        SlidingBloomFilter::with_fp_rate(FP_RATE)
            .seed(3)
            .window(WINDOW)?,
    );
    let params = match &sliding {
        Admission::Sliding(f) => f.params(),
        _ => unreachable!("built above"),
    };

    println!(
        "{:<24} {:>9} {:>9} {:>11} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "policy",
        "hit ratio",
        "byte hits",
        "admissions",
        "GB written",
        "memory",
        "false yes",
        "false no",
        "time s"
    );
    let row = |name: &str, out: &Outcome, time: f64| {
        println!(
            "{:<24} {:>8.2}% {:>8.2}% {:>11} {:>10.1} {:>10} {:>10} {:>10} {:>7.2}",
            name,
            100.0 * out.hits as f64 / REQUESTS as f64,
            100.0 * out.hit_bytes as f64 / out.bytes as f64,
            out.admitted,
            out.admitted_bytes as f64 / 1e9,
            if out.memory == 0 {
                "-".to_owned()
            } else {
                format!("{:.2} MB", out.memory as f64 / 1e6)
            },
            format!("{:.3}%", 100.0 * out.false_yes as f64 / said_no),
            format!("{:.3}%", 100.0 * out.false_no as f64 / said_yes),
            time
        );
    };
    let start = Instant::now();
    let (always, _) = simulate(&trace, Admission::Always, Some(&exact_answers));
    row("admit every miss", &always, start.elapsed().as_secs_f64());
    row("2nd request, exact", &exact_out, exact_time);
    for (name, admission) in [
        ("2nd request, exact W/2", exact(WINDOW / 2)),
        ("2nd request, reset Bloom", reset),
        ("2nd request, sliding", sliding),
    ] {
        let start = Instant::now();
        let (out, _) = simulate(&trace, admission, Some(&exact_answers));
        row(name, &out, start.elapsed().as_secs_f64());
    }
    println!(
        "\nfalse yes: of the requests the exact window of W says no to (not requested in the \
         last W), the share the policy said yes to; false no: of those it says yes to, the share \
         the policy said no to. The reset Bloom filter forgets the whole window at each reset \
         (every {WINDOW} requests); the sliding filter (k = {}, l = {}, g = {}) remembers at \
         least the last l·g = {} requests and at most (l + 1)·g = {}, so it never says no where \
         the exact window says yes; its extra yeses are false positives (at most p) and objects \
         last requested just before the window (up to (l + k)·g = {} requests back some of \
         their bits remain). memory: the filters' bits; the exact window's queue of \
         8-byte ids and its map's buckets (7/8 full at most) of 17 bytes.",
        params.hashes(),
        params.generations(),
        params.generation_size(),
        params.window(),
        params.window() + params.generation_size(),
        u64::from(params.generations() + params.hashes()) * params.generation_size(),
    );
    Ok(())
}
