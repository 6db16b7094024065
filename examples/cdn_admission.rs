//! The "one-hit wonder" rule of CDN caches: admit an object to the cache
//! only on its second request, remembered by a Bloom filter, so objects
//! requested once never push popular ones out.
//!
//! A deterministic trace of Zipf-distributed requests, with a share of
//! objects that are requested once and never again, runs through a bounded
//! LRU cache three times: admitting every miss, admitting on the second
//! request as remembered by two rotating Bloom filters (the filter's memory
//! stays bounded however long the trace), and, for reference, as remembered
//! by an exact `HashSet`. It prints the request and byte hit ratios and the
//! bytes written into the cache (the churn a disk cache pays for).
//!
//! `cargo run --release --example cdn_admission`

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use approxset::BloomFilter;
use approxset::hash::splitmix64;

const CATALOG: usize = 2_000_000;
const ZIPF_S: f64 = 0.9;
const REQUESTS: usize = 5_000_000;
/// The share of requests for an object never requested before or after.
const ONE_TIME_SHARE: f64 = 0.3;
const CACHE_OBJECTS: usize = 50_000;
/// Each filter generation remembers this many objects before the older one
/// is dropped.
const GENERATION: usize = 1_000_000;
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

/// How a miss decides whether to cache the object.
enum Admission {
    Always,
    /// Two generations of Bloom filters: an object seen in either was
    /// requested before; the current one is replaced when full.
    SecondRequest {
        current: BloomFilter,
        previous: BloomFilter,
    },
    SecondRequestExact(HashSet<u64>),
}

impl Admission {
    fn admit(&mut self, key: u64) -> bool {
        match self {
            Admission::Always => true,
            Admission::SecondRequest { current, previous } => {
                // Both generations share one seed, so one digest serves both.
                let digest = current.hash_key().digest(&key);
                if current.contains_digest(digest) || previous.contains_digest(digest) {
                    true
                } else {
                    if current.len() >= GENERATION {
                        // Rotate: the older generation is forgotten.
                        std::mem::swap(current, previous);
                        current.clear();
                    }
                    current
                        .insert_digest(digest)
                        .expect("a Bloom filter always has room");
                    false
                }
            }
            Admission::SecondRequestExact(seen) => !seen.insert(key),
        }
    }

    fn memory(&self) -> String {
        match self {
            Admission::Always => "-".into(),
            Admission::SecondRequest { current, previous } => {
                format!(
                    "{:.1} MB",
                    (current.memory_bytes() + previous.memory_bytes()) as f64 / 1e6
                )
            }
            // Buckets (7/8 full at most) of an 8-byte key and a control byte.
            Admission::SecondRequestExact(seen) => format!(
                "{:.1} MB",
                ((seen.capacity() * 8).div_ceil(7).next_power_of_two() * 9) as f64 / 1e6
            ),
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
    evictions: u64,
}

fn simulate(trace: &[u64], mut admission: Admission) -> (Outcome, String) {
    let mut cache = Lru::new(CACHE_OBJECTS);
    let mut out = Outcome::default();
    for &id in trace {
        let size = size_of_object(id);
        out.bytes += size;
        if cache.hit(id) {
            out.hits += 1;
            out.hit_bytes += size;
        } else if admission.admit(id) {
            out.admitted += 1;
            out.admitted_bytes += size;
            out.evictions += u64::from(cache.admit(id));
        }
    }
    (out, admission.memory())
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
        "{} distinct objects, {once} of them ({:.1} %) requested exactly once; \
         LRU cache of {CACHE_OBJECTS} objects; sizes 1 KiB to 1 MiB\n",
        counts.len(),
        100.0 * once as f64 / counts.len() as f64
    );
    drop(counts);

    let filter = || {
        BloomFilter::with_fp_rate(FP_RATE)
            .seed(3)
            .expected_items(GENERATION)
    };
    let policies = [
        ("admit every miss", Admission::Always),
        (
            "2nd request (Bloom)",
            Admission::SecondRequest {
                current: filter()?,
                previous: filter()?,
            },
        ),
        (
            "2nd request (exact)",
            Admission::SecondRequestExact(HashSet::new()),
        ),
    ];
    println!(
        "{:<20} {:>10} {:>10} {:>12} {:>14} {:>11} {:>11} {:>8}",
        "policy",
        "hit ratio",
        "byte hits",
        "admissions",
        "GB written",
        "evictions",
        "memory",
        "time s"
    );
    for (name, admission) in policies {
        let start = Instant::now();
        let (out, memory) = simulate(&trace, admission);
        println!(
            "{:<20} {:>9.2}% {:>9.2}% {:>12} {:>14.1} {:>11} {:>11} {:>8.2}",
            name,
            100.0 * out.hits as f64 / REQUESTS as f64,
            100.0 * out.hit_bytes as f64 / out.bytes as f64,
            out.admitted,
            out.admitted_bytes as f64 / 1e9,
            out.evictions,
            memory,
            start.elapsed().as_secs_f64()
        );
    }
    println!(
        "\nmemory: the admission filter's bits (two generations of {GENERATION} objects at \
         {FP_RATE} fp), or the exact set's table estimated as buckets × (8 B key + 1 control byte)"
    );
    Ok(())
}
