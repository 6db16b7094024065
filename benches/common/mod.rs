//! What the benchmarks share: the keys, one `Subject` trait implemented for
//! every filter under test, and the lookup benchmarks registered for each.

use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasher;
use std::hint::black_box;

use approxset::HashFunction;
use approxset::bloom::cells::Cells;
use approxset::bloom::{Bloom, Layout};
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use probabilistic_collections as pc;

/// SplitMix64 started at `x`: a bijection of `u64`, so distinct inputs give
/// distinct keys.
fn splitmix(mut x: u64) -> u64 {
    approxset::hash::splitmix64(&mut x)
}

/// Steps `i` to the next index below `n`, wrapping to 0. A compare, not
/// `% n`: a 64-bit division on the loop-carried index would put ~10–20
/// cycles of latency between every two lookups, and bound the reference
/// loops (a plain random read) by that chain rather than by memory.
#[inline(always)]
pub(crate) fn step(i: &mut usize, n: usize) -> usize {
    *i += 1;
    if *i >= n {
        *i = 0;
    }
    *i
}

/// The keys of one benchmark size.
pub(crate) struct Keys {
    /// The keys inserted.
    pub(crate) members: Vec<u64>,
    /// As many keys never inserted.
    pub(crate) others: Vec<u64>,
}

/// The numbers of keys a benchmark runs at: 10⁶ and 10⁷, or the one
/// `APPROXSET_BENCH_N` names (each size's setup fills every filter, even
/// those a filter argument skips; a small size separates the code from the
/// memory: 10⁴ keys fit in the first-level cache).
#[allow(dead_code)] // the sliding window's bench has one window size
pub(crate) fn sizes() -> Vec<usize> {
    match std::env::var("APPROXSET_BENCH_N") {
        Ok(n) => vec![n.parse().expect("APPROXSET_BENCH_N: a number of keys")],
        Err(_) => vec![1_000_000, 10_000_000],
    }
}

/// `n` random members and `n` random non-members (disjoint, since they come
/// from disjoint index ranges through a bijection).
pub(crate) fn keys(n: usize) -> Keys {
    let members = (0..n as u64).map(splitmix).collect();
    let others = (0..n as u64).map(|i| splitmix(i + (1 << 40))).collect();
    Keys { members, others }
}

/// The 16-byte string key made of `k`: its 16 hex digits.
#[allow(dead_code)] // for the benches with string keys
pub(crate) fn str16(k: u64) -> String {
    format!("{k:016x}")
}

/// An approxset filter of the Bloom family (`Bloom<L, C>`) for `n` keys at
/// false-positive rate `fp`, seed 1, hashing with the default function
/// (SipHash-1-3-64 widened).
pub(crate) fn bloom<L: Layout, C: Cells<L>>(n: usize, fp: f64) -> Bloom<L, C> {
    bloom_hashed(n, fp, HashFunction::default())
}

/// [`bloom`] hashing with `hash`.
pub(crate) fn bloom_hashed<L: Layout, C: Cells<L>>(
    n: usize,
    fp: f64,
    hash: HashFunction,
) -> Bloom<L, C> {
    Bloom::with_fp_rate(fp)
        .seed(1)
        .hash(hash)
        .expected_items(n)
        .unwrap()
}

/// fastbloom 0.17's `BloomFilter`, the peer, for `n` keys at
/// false-positive rate `fp`, seed 1.
#[allow(dead_code)] // the cuckoo and scalable benches have no fastbloom row
pub(crate) fn fastbloom(n: usize, fp: f64) -> fastbloom::BloomFilter {
    fastbloom::BloomFilter::with_false_pos(fp)
        .seed(&1)
        .expected_items(n)
}

/// fastbloom 0.17's `BloomFilter` hashing with XXH3 (`xxhash-rust`'s
/// `Xxh3Builder`, seed 1) instead of its default SipHash-1-3.
#[allow(dead_code)] // for the benches with an XXH3 row
pub(crate) fn fastbloom_xxh3(
    n: usize,
    fp: f64,
) -> fastbloom::BloomFilter<xxhash_rust::xxh3::Xxh3Builder> {
    fastbloom::BloomFilter::with_false_pos(fp)
        .hasher(xxhash_rust::xxh3::Xxh3Builder::new().with_seed(1))
        .expected_items(n)
}

/// Prints (on stderr) the setup line of filter `name` over `n` keys: its
/// bits per key (`bits` of filter data, where the crate tells), the
/// false-positive rate measured over the first 10⁶ (at most) of `others`
/// (`has` answers a lookup), the inserts that failed, and the false
/// negatives among `members`.
pub(crate) fn setup_line<K>(
    n: usize,
    name: &str,
    bits: Option<u64>,
    failed: usize,
    (members, others): (&[K], &[K]),
    has: impl Fn(&K) -> bool,
) {
    let missing = members.iter().filter(|k| !has(k)).count();
    let probes = others.len().min(1_000_000);
    let fp = others[..probes].iter().filter(|k| has(k)).count();
    let bits_per_key = bits.map_or("n/a".into(), |bits| {
        format!("{:.3}", bits as f64 / n as f64)
    });
    eprintln!(
        "n={n} {name}: {bits_per_key} bits/key, measured fp {:.5} over {probes} fresh keys, \
         {failed} failed inserts, {missing} false negatives",
        fp as f64 / probes as f64
    );
}

/// The operations every filter under test offers, so one generic loop
/// (monomorphised per filter, no dynamic dispatch) measures them all.
pub(crate) trait Subject {
    /// Whether the filter can remove items.
    const DELETES: bool = false;
    /// Bits of filter data, where the crate tells.
    fn bits(&self) -> Option<u64> {
        None
    }
    /// Inserts; `false` when the filter reported a failure.
    fn put(&mut self, key: &u64) -> bool;
    fn has(&self, key: &u64) -> bool;
    fn del(&mut self, _key: &u64) {
        unreachable!("this filter cannot remove")
    }
}

/// Implements [`Subject`] for each filter type listed: `put m` calls `m` and
/// ignores what it returns, `try_put m` counts an `Err` as a failure; `has m`
/// and `del m` (optional, sets `DELETES`) name the methods; `bits` (optional)
/// computes the bits of filter data of `f`.
macro_rules! subjects {
    (@put $call:expr) => {{
        $call;
        true
    }};
    (@try_put $call:expr) => {
        $call.is_ok()
    };
    ($(
        $ty:ty $(where $g:ident: $bound:path)? =>
        $put_kind:ident $put:ident, has $has:ident $(, del $del:ident)?
        $(, bits |$f:ident| $bits:expr)?;
    )*) => {$(
        impl$(<$g: $bound>)? Subject for $ty {
            #[inline]
            fn put(&mut self, key: &u64) -> bool {
                subjects!(@$put_kind self.$put(key))
            }
            #[inline]
            fn has(&self, key: &u64) -> bool {
                self.$has(key)
            }
            $(
                const DELETES: bool = true;
                #[inline]
                fn del(&mut self, key: &u64) {
                    let _ = self.$del(key);
                }
            )?
            $(
                fn bits(&self) -> Option<u64> {
                    let $f = self;
                    Some($bits)
                }
            )?
        }
    )*};
}

subjects! {
    Bloom<L> where L: Layout => try_put insert, has contains, bits |f| Bloom::bits(f);
    approxset::CountingBloomFilter => try_put insert, has contains, del remove,
        bits |f| f.memory_bytes() as u64 * 8;
    approxset::CuckooFilter => try_put insert, has contains, del remove,
        bits |f| f.memory_bytes() as u64 * 8;
    approxset::ScalableBloomFilter => try_put insert, has contains,
        bits |f| f.memory_bytes() as u64 * 8;
    approxset::QuotientFilter => try_put insert, has contains, del remove,
        bits |f| f.memory_bytes() as u64 * 8;
    approxset::SlidingBloomFilter => try_put insert, has contains, bits |f| f.bits();
    fastbloom::BloomFilter<S> where S: BuildHasher => put insert, has contains, bits |f| f.num_bits() as u64;
    bloomfilter::Bloom<u64> => put set, has check, bits |f| f.len();
    cuckoofilter::CuckooFilter<DefaultHasher> => try_put add, has contains, del delete,
        bits |f| f.memory_usage() as u64 * 8;
    pc::cuckoo::CuckooFilter<u64> => put insert, has contains, del remove,
        bits |f| (f.capacity() * f.fingerprint_bit_count()) as u64;
    pc::bloom::ScalableBloomFilter<u64> => put insert, has contains, bits |f| f.len() as u64;
    growable_bloom_filter::GrowableBloom => put insert, has contains;
}

/// Fills `filter` with the members, prints (on stderr) its bits per key, its
/// false-positive rate measured over up to 10⁶ of the others, failed inserts
/// and false negatives, then registers in `group`: contains-hit and
/// contains-miss, `insert` (into the full filter, one key at a time) when
/// `insert` is set, and remove+reinsert (the filter stays as it was) when
/// the filter deletes.
/// A whole fill from empty of a filter from `make` with the members, per
/// element (group `fill n=N`).
#[allow(dead_code)] // the deletable filters' benches only
pub(crate) fn fill<S: Subject>(c: &mut Criterion, name: &str, make: impl Fn() -> S, keys: &Keys) {
    let n = keys.members.len();
    let mut group = c.benchmark_group(format!("fill n={n}"));
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("insert", name), |b| {
        b.iter_batched_ref(
            &make,
            |f| {
                for k in &keys.members {
                    f.put(k);
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

pub(crate) fn lookups<S: Subject>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut filter: S,
    keys: &Keys,
    insert: bool,
) {
    let Keys { members, others } = keys;
    let n = members.len();
    let failed = members.iter().filter(|k| !filter.put(k)).count();
    setup_line(n, name, filter.bits(), failed, (members, others), |k| {
        filter.has(k)
    });

    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("contains-hit", name), |b| {
        b.iter(|| black_box(filter.has(black_box(&members[step(&mut i, n)]))))
    });
    group.bench_function(BenchmarkId::new("contains-miss", name), |b| {
        b.iter(|| black_box(filter.has(black_box(&others[step(&mut i, n)]))))
    });
    if insert {
        group.bench_function(BenchmarkId::new("insert", name), |b| {
            b.iter(|| filter.put(black_box(&members[step(&mut i, n)])))
        });
    }
    if S::DELETES {
        group.bench_function(BenchmarkId::new("remove+reinsert", name), |b| {
            b.iter(|| {
                let key = black_box(&members[step(&mut i, n)]);
                filter.del(key);
                filter.put(key)
            })
        });
    }
}
