//! Batched lookups (`contains_batch`, `contains_digests` and the shared
//! forms) answer exactly what the one-at-a-time lookups answer, for every
//! variant, through `dyn ApproxSet` and the concrete types: members,
//! non-members and false positives, empty batches, lengths on and off every
//! chunk boundary, and an output vector that held junk; and `insert_batch`
//! builds the filter that inserting one at a time builds.

use approxset::bloom::cells::Cells;
use approxset::bloom::{Bloom, Layout};
use approxset::prelude::*;
use approxset::{
    ApproxSet, AtomicBloomFilter, BlockedBloomFilter, BloomFilter, ConcurrentApproxSet,
    ConcurrentApproxSetExt, CountingBloomFilter, CuckooFilter, Digest, PartitionedBloomFilter,
    ScalableBloomFilter, SplitBlockBloomFilter, Variant,
};

/// Batch lengths: empty, one, around the filters' chunks of 32 (blocked)
/// and 64 (the waves of the other Bloom layouts) and the hashing chunk of
/// 256, and several chunks with a ragged end.
const LENGTHS: &[usize] = &[
    0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 513, 1000, 4099,
];

/// A filter of the Bloom family for 2,000 keys at 1 %, seed 5.
fn bloom<L: Layout, C: Cells<L>>() -> Bloom<L, C> {
    Bloom::with_fp_rate(0.01)
        .seed(5)
        .expected_items(2_000)
        .unwrap()
}

/// Keys 0..2n interleaved so every batch mixes members (even) and
/// non-members (odd), some of which are false positives.
fn queries(n: u64) -> Vec<u64> {
    (0..2 * n).collect()
}

/// Checks every length of every offset window of `keys` against `one`.
fn check_batches<K>(
    what: &str,
    keys: &[K],
    one: impl Fn(&K) -> bool,
    batch: impl Fn(&[K], &mut Vec<bool>),
) {
    for &len in LENGTHS {
        for start in [0, 3] {
            let Some(window) = keys.get(start..start + len) else {
                continue;
            };
            let expected: Vec<bool> = window.iter().map(&one).collect();
            let mut out = vec![true, false, true];
            batch(window, &mut out);
            assert_eq!(out, expected, "{what}: {len} keys from {start}");
        }
    }
}

/// A filter of `variant` for `n` items at 1 %, holding the even keys below
/// `2 · fill` (more than `n` to push the fill up, so that many non-members
/// pass the first probes and are decided later).
fn filled(variant: Variant, n: usize, fill: u64) -> Box<dyn ApproxSet + Send + Sync> {
    let mut f = variant.builder().seed(11).build(n, 0.01).unwrap();
    for k in (0..2 * fill).step_by(2) {
        // A cuckoo filter may refuse past its room: what went in is in.
        let _ = f.insert(&k);
    }
    f
}

#[test]
fn every_variant_through_dyn_answers_as_one_at_a_time() {
    for &variant in Variant::INSERTABLE {
        for (n, fill) in [(2_000usize, 2_000u64), (500, 1_500)] {
            let f = filled(variant, n, fill);
            let keys = queries(2 * fill);
            let what = format!("{variant} n={n} fill={fill}");
            let answers: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
            // The test can tell a wrong answer: both answers occur.
            assert!(
                answers.contains(&true) && answers.contains(&false),
                "{what}"
            );
            check_batches(
                &what,
                &keys,
                |k| f.contains(k),
                |w, out| f.contains_batch(w, out),
            );
            let digests: Vec<Digest> = keys.iter().map(|k| f.digest(k)).collect();
            check_batches(
                &what,
                &digests,
                |&d| f.contains_digest(d),
                |w, out| f.contains_digests(w, out),
            );
            // Through a reference to the trait object and a box of it.
            let by_ref: &dyn ApproxSet = &*f;
            check_batches(
                &what,
                &keys,
                |k| f.contains(k),
                |w, out| by_ref.contains_batch(w, out),
            );
            // Generic code over the box itself (the forwarding impl for
            // `Box<S>`), and over `&mut dyn ApproxSet`.
            check_concrete(&what, &f, &keys);
            let mut f = f;
            let by_mut: &mut (dyn ApproxSet + Send + Sync) = &mut *f;
            check_concrete(&what, &by_mut, &keys);
        }
    }
}

#[test]
fn overfilled_bloom_filters_decide_late_keys_right() {
    // At 4× capacity most non-members pass the first three probes of the
    // classic filter and fail a later one: the batched second pass.
    for &variant in &[
        Variant::Classic,
        Variant::Partitioned,
        Variant::Counting,
        Variant::Blocked,
        Variant::SplitBlock,
    ] {
        let f = filled(variant, 1_000, 4_000);
        let keys: Vec<u64> = (1..40_000).step_by(2).collect();
        let fp = keys.iter().filter(|k| f.contains(*k)).count();
        assert!(
            fp > 100 && fp < keys.len() - 100,
            "{variant}: {fp} false positives"
        );
        check_batches(
            &variant.to_string(),
            &keys,
            |k| f.contains(k),
            |w, out| f.contains_batch(w, out),
        );
    }
}

#[test]
fn keys_of_other_types_are_the_same_keys() {
    let mut f = BloomFilter::with_fp_rate(0.01)
        .seed(3)
        .expected_items(1_000)
        .unwrap();
    let words: Vec<String> = (0..600).map(|i| format!("word-{i}")).collect();
    for w in words.iter().step_by(3) {
        f.insert(w.as_str()).unwrap();
    }
    let strs: Vec<&str> = words.iter().map(String::as_str).collect();
    let bytes: Vec<&[u8]> = words.iter().map(String::as_bytes).collect();
    let expected: Vec<bool> = words
        .iter()
        .map(|w| f.contains_bytes(w.as_bytes()))
        .collect();
    let mut out = Vec::new();
    f.contains_batch(&words, &mut out);
    assert_eq!(out, expected);
    f.contains_batch(&strs, &mut out);
    assert_eq!(out, expected);
    f.contains_batch(&bytes, &mut out);
    assert_eq!(out, expected);
    let refs: Vec<&String> = words.iter().collect();
    f.contains_batch(&refs, &mut out);
    assert_eq!(out, expected);
    assert!(expected.iter().filter(|&&a| a).count() >= 200);
}

/// `contains_batch` and `contains_digests` on a concrete type against its
/// own `contains` and `contains_digest`.
fn check_concrete<S: ApproxSet + ?Sized>(name: &str, f: &S, keys: &[u64]) {
    check_batches(
        name,
        keys,
        |k| f.contains(k),
        |w, out| f.contains_batch(w, out),
    );
    let digests: Vec<Digest> = keys.iter().map(|k| f.digest(k)).collect();
    check_batches(
        name,
        &digests,
        |&d| f.contains_digest(d),
        |w, out| f.contains_digests(w, out),
    );
}

/// A Bloom filter of `bits` bits and `hashes` hashes holding the even
/// keys below 2,000 (full enough that a batch meets false positives).
fn with_hashes<L: Layout, C: Cells<L>>(bits: u64, hashes: u32) -> Bloom<L, C> {
    let mut f = Bloom::with_num_bits(bits).seed(5).hashes(hashes).unwrap();
    for k in (0..2_000u64).step_by(2) {
        f.insert(&k).unwrap();
    }
    f
}

#[test]
fn batches_answer_as_one_at_a_time_with_few_and_many_hashes() {
    // Fewer hashes than the first pass's group of three, exactly three,
    // and more: the batch's first pass repeats a probe or stops early.
    let keys = queries(1_500);
    for hashes in [1, 2, 3, 4, 11] {
        let classic: BloomFilter = with_hashes(12_000, hashes);
        let partitioned: PartitionedBloomFilter = with_hashes(12_000, hashes);
        let counting: CountingBloomFilter = with_hashes(12_000, hashes);
        let blocked: BlockedBloomFilter = with_hashes(12_288, hashes);
        check_concrete(&format!("classic k={hashes}"), &classic, &keys);
        check_concrete(&format!("partitioned k={hashes}"), &partitioned, &keys);
        check_concrete(&format!("counting k={hashes}"), &counting, &keys);
        check_concrete(&format!("blocked k={hashes}"), &blocked, &keys);
    }
}

#[test]
fn concrete_types_answer_as_one_at_a_time() {
    let keys = queries(3_000);
    let members = || (0..6_000u64).step_by(2);

    let mut classic: BloomFilter = bloom();
    let mut partitioned: PartitionedBloomFilter = bloom();
    let mut counting: CountingBloomFilter = bloom();
    let mut blocked: BlockedBloomFilter = bloom();
    let mut split: SplitBlockBloomFilter = bloom();
    let atomic: AtomicBloomFilter = bloom();
    let mut cuckoo = CuckooFilter::with_fp_rate(0.01)
        .seed(5)
        .expected_items(4_000)
        .unwrap();
    let mut scalable = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(5)
        .initial_capacity(500)
        .unwrap();
    for k in members() {
        classic.insert(&k).unwrap();
        partitioned.insert(&k).unwrap();
        counting.insert(&k).unwrap();
        blocked.insert(&k).unwrap();
        split.insert(&k).unwrap();
        atomic.insert_shared(&k);
        cuckoo.insert(&k).unwrap();
        scalable.insert(&k).unwrap();
    }
    check_concrete("classic", &classic, &keys);
    check_concrete("partitioned", &partitioned, &keys);
    check_concrete("counting", &counting, &keys);
    check_concrete("blocked", &blocked, &keys);
    check_concrete("split-block", &split, &keys);
    check_concrete("atomic", &atomic, &keys);
    check_concrete("cuckoo", &cuckoo, &keys);
    check_concrete("scalable", &scalable, &keys);

    // The inherent batched lookup of the Bloom core.
    let digests: Vec<Digest> = keys.iter().map(|k| classic.hash_key().digest(k)).collect();
    check_batches(
        "classic inherent",
        &digests,
        |&d| classic.contains_digest(d),
        |w, out| classic.contains_digests(w, out),
    );

    // The shared forms, on the type and through the concurrent trait object.
    check_batches(
        "atomic shared",
        &keys,
        |k| atomic.contains(k),
        |w, out| atomic.contains_batch_shared(w, out),
    );
    let shared: &(dyn ConcurrentApproxSet + Send + Sync) = &atomic;
    check_batches(
        "atomic dyn shared",
        &keys,
        |k| atomic.contains(k),
        |w, out| shared.contains_batch_shared(w, out),
    );
    // Its read side is `Membership`'s, inherent on the object too.
    check_batches(
        "atomic dyn membership",
        &keys,
        |k| atomic.contains(k),
        |w, out| shared.contains_batch(w, out),
    );
    assert_eq!(shared.hash_key(), atomic.hash_key());
    let digests: Vec<Digest> = keys.iter().map(|k| atomic.hash_key().digest(k)).collect();
    check_batches(
        "atomic digests shared",
        &digests,
        |&d| atomic.contains_digest(d),
        |w, out| shared.contains_digests_shared(w, out),
    );
    // Every member is found (no false negative on the batched path).
    let mut out = Vec::new();
    let members: Vec<u64> = members().collect();
    classic.contains_batch(&members, &mut out);
    assert!(out.iter().all(|&a| a));
    blocked.contains_batch(&members, &mut out);
    assert!(out.iter().all(|&a| a));
    split.contains_batch(&members, &mut out);
    assert!(out.iter().all(|&a| a));
    // The split-block filter's one-pass batched lookup, on digests.
    let digests: Vec<Digest> = keys.iter().map(|k| split.hash_key().digest(k)).collect();
    check_batches(
        "split-block inherent",
        &digests,
        |&d| split.contains_digest(d),
        |w, out| split.contains_digests(w, out),
    );
}

/// Inserts `keys` into `a` one at a time (stopping at the first error) and
/// into `b` by `insert_batch` in batches of the test lengths; both must end
/// up as the same filter and agree on whether an error came.
fn check_inserts(
    what: &str,
    a: &mut (dyn ApproxSet + Send + Sync),
    b: &mut (dyn ApproxSet + Send + Sync),
    keys: &[u64],
) -> bool {
    let one = keys.iter().try_for_each(|k| a.insert(k).map(drop));
    let mut rest = keys;
    let mut batched = Ok(());
    for &len in LENGTHS.iter().cycle() {
        if rest.is_empty() || batched.is_err() {
            break;
        }
        let (now, later) = rest.split_at(len.min(rest.len()));
        batched = b.insert_batch(now);
        rest = later;
    }
    assert_eq!(
        one.is_err(),
        batched.is_err(),
        "{what}: {one:?} vs {batched:?}"
    );
    assert_eq!(a.len(), b.len(), "{what}");
    assert_eq!(a.to_bytes().unwrap(), b.to_bytes().unwrap(), "{what}");
    batched.is_err()
}

#[test]
fn insert_batch_builds_the_filter_that_one_at_a_time_builds() {
    for &variant in Variant::INSERTABLE {
        let build = || variant.builder().seed(13).build(3_000, 0.01).unwrap();
        let keys: Vec<u64> = (0..3_000).map(|i| i * 7 + 1).collect();
        let (mut a, mut b) = (build(), build());
        assert!(!check_inserts(
            &variant.to_string(),
            &mut *a,
            &mut *b,
            &keys
        ));
        assert!(keys.iter().all(|k| b.contains(k)), "{variant}");
        // Past its room a cuckoo filter refuses: the batch stops where the
        // loop stops, keeping what went in.
        let (mut a, mut b) = (build(), build());
        let many: Vec<u64> = (0..20_000).collect();
        let refused = check_inserts(&format!("{variant} overfilled"), &mut *a, &mut *b, &many);
        assert_eq!(refused, variant == Variant::Cuckoo, "{variant}");
    }
    // The concrete Bloom core's inherent forms, for every layout.
    inherent_batches_build_what_one_at_a_time_builds::<approxset::bloom::Classic>();
    inherent_batches_build_what_one_at_a_time_builds::<approxset::bloom::Partitioned>();
    inherent_batches_build_what_one_at_a_time_builds::<approxset::bloom::Blocked>();
    inherent_batches_build_what_one_at_a_time_builds::<approxset::bloom::SplitBlock>();
}

/// `insert_digests` and `insert_batch` on a `Bloom<L>` (not through the
/// trait) build the bits that `insert_digest` one at a time builds.
fn inherent_batches_build_what_one_at_a_time_builds<L: Layout>() {
    let mut one: Bloom<L> = Bloom::with_fp_rate(0.01)
        .seed(2)
        .expected_items(5_000)
        .unwrap();
    let (mut by_digests, mut by_keys) = (one.clone(), one.clone());
    let keys: Vec<u32> = (0..5_000).collect();
    let digests: Vec<Digest> = keys.iter().map(|i| one.hash_key().digest(i)).collect();
    for &d in &digests {
        one.insert_digest(d).unwrap();
    }
    by_digests.insert_digests(&digests).unwrap();
    ApproxSetExt::insert_batch(&mut by_keys, &keys).unwrap();
    assert_eq!(one, by_digests, "{}", L::NAME);
    assert_eq!(one, by_keys, "{}", L::NAME);
    assert_eq!(one.count_ones(), by_digests.count_ones(), "{}", L::NAME);
}

#[test]
fn insert_batch_shared_builds_the_filter_that_one_at_a_time_builds() {
    let keys: Vec<u32> = (0..5_000).collect();
    for &len in LENGTHS {
        let one: AtomicBloomFilter = bloom();
        let batched: AtomicBloomFilter = bloom();
        let through_dyn: AtomicBloomFilter = bloom();
        for k in &keys[..len] {
            one.insert_shared(k);
        }
        batched.insert_batch_shared(&keys[..len]);
        let shared: &(dyn ConcurrentApproxSet + Send + Sync) = &through_dyn;
        shared.insert_batch_shared(&keys[..len]).unwrap();
        assert_eq!(one, batched, "{len} keys");
        assert_eq!(one, through_dyn, "{len} keys, dyn");
        assert_eq!(batched.len(), len);
        assert!(keys[..len].iter().all(|k| batched.contains(k)), "{len}");
    }
    // Two threads batching halves build the single thread's bits.
    let one: AtomicBloomFilter = bloom();
    keys.iter().for_each(|k| {
        one.insert_shared(k);
    });
    let two: AtomicBloomFilter = bloom();
    std::thread::scope(|s| {
        for half in keys.chunks(keys.len() / 2) {
            let two = &two;
            s.spawn(move || two.insert_batch_shared(half));
        }
    });
    assert_eq!(one, two);
    assert_eq!(two.len(), keys.len());
}
