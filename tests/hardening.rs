//! Hardening against forged input and extreme parameters: headers with a
//! valid checksum and every numeric field pushed to its edges must either
//! be refused or load into a filter that survives use (inserts, lookups,
//! removes, a reload) without a panic or a false negative; sizing never
//! overflows; a scalable filter says plainly when it cannot grow.
//!
//! The test profile keeps overflow checks on (debug assertions), so any
//! unchecked arithmetic on a loaded value panics here.

mod common;

use approxset::format::HEADER_LEN;
use approxset::prelude::*;
use approxset::{ApproxSet, Error, HashFunction, ScalableBloomFilter, Variant, sizing};
use common::proptest_config;
use proptest::prelude::*;

/// A small filter of `variant` with a few items, fixed seed.
fn sample(variant: Variant) -> Vec<u8> {
    sample_hashed(variant, HashFunction::SipHash13)
}

/// [`sample`] hashed with `function`.
fn sample_hashed(variant: Variant, function: HashFunction) -> Vec<u8> {
    // The scalable filter grows stages; the sliding filter's window of 8
    // turns its slices round more than once in 40 inserts.
    let n = match variant {
        Variant::Scalable | Variant::Sliding => 8,
        _ => 64,
    };
    let mut f = variant
        .builder()
        .seed(9)
        .hash(function)
        .build(n, 0.01)
        .unwrap();
    for i in 0..40u32 {
        f.insert_bytes(format!("held-{i}").as_bytes()).unwrap();
    }
    f.to_bytes().unwrap()
}

/// A numeric field of the format: offset, width in bytes, and whether it
/// holds an `f64`.
#[derive(Clone, Copy, Debug)]
struct Field {
    name: &'static str,
    at: usize,
    width: usize,
    float: bool,
}

const fn int(name: &'static str, at: usize, width: usize) -> Field {
    Field {
        name,
        at,
        width,
        float: false,
    }
}

const fn float(name: &'static str, at: usize) -> Field {
    Field {
        name,
        at,
        width: 8,
        float: true,
    }
}

/// The Bloom-family body (`docs/format.md`) starting at `at`.
fn bloom_body(at: usize) -> Vec<Field> {
    vec![
        int("cells", at, 8),
        int("hashes", at + 8, 4),
        int("probe scheme", at + 12, 4),
        int("len", at + 16, 8),
        int("capacity", at + 24, 8),
        float("fp_rate", at + 32),
    ]
}

/// Every numeric field of a saved `variant` (the envelope's hash function
/// byte; for the scalable filter, the header and every stage's body).
fn fields(variant: Variant, bytes: &[u8]) -> Vec<Field> {
    let mut out = vec![int("hash function", 7, 1)];
    out.extend(body_fields(variant, bytes));
    out
}

/// The fields of [`fields`] after the envelope.
fn body_fields(variant: Variant, bytes: &[u8]) -> Vec<Field> {
    let h = HEADER_LEN;
    match variant {
        Variant::Classic
        | Variant::Partitioned
        | Variant::Counting
        | Variant::Blocked
        | Variant::SplitBlock => bloom_body(h),
        Variant::Cuckoo => vec![
            int("fingerprint bits", h, 4),
            int("reserved", h + 4, 4),
            int("buckets", h + 8, 8),
            int("len", h + 16, 8),
            int("capacity", h + 24, 8),
            float("fp_rate", h + 32),
            int("stash fingerprint", h + 40, 8),
            int("stash bucket", h + 48, 8),
            int("kick generator", h + 56, 8),
        ],
        Variant::Scalable => {
            let mut out = vec![
                int("initial capacity", h, 8),
                float("fp_rate", h + 8),
                float("growth", h + 16),
                float("tightening", h + 24),
                int("max_bytes", h + 32, 8),
                int("len", h + 40, 8),
                int("stage count", h + 48, 8),
            ];
            for at in stage_offsets(bytes) {
                out.extend(bloom_body(at));
            }
            out
        }
        Variant::Sliding => {
            let mut out = vec![
                int("hashes", h, 4),
                int("generations", h + 4, 4),
                int("generation size", h + 8, 8),
                int("block bits", h + 16, 8),
                int("capacity", h + 24, 8),
                float("fp_rate", h + 32),
                int("generation interval", h + 40, 8),
                int("tick", h + 48, 8),
                int("generation", h + 56, 8),
                int("newest block", h + 64, 8),
            ];
            let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            let blocks = word(h + 4) as usize + 1;
            for i in 0..blocks {
                out.push(int("generation count", h + 72 + 8 * i, 8));
            }
            out
        }
        Variant::Quotient => {
            let mut out = vec![
                int("remainder bits", h, 4),
                int("remainder gap", h + 4, 4),
                int("home slots", h + 8, 8),
                int("len", h + 16, 8),
                int("capacity", h + 24, 8),
                float("fp_rate", h + 32),
                int("tables", h + 40, 8),
            ];
            let tables = u64::from_le_bytes(bytes[h + 40..h + 48].try_into().unwrap()) as usize;
            for i in 0..tables {
                let at = h + 48 + 40 * i;
                out.extend([
                    int("table home slots", at, 8),
                    int("table remainder bits", at + 8, 4),
                    int("reserved", at + 12, 4),
                    int("table blocks", at + 16, 8),
                    int("table slots used", at + 24, 8),
                    int("table entries", at + 32, 8),
                ]);
            }
            out
        }
        _ => unreachable!("a variant this test does not know"),
    }
}

use approxset::hash::splitmix64 as next;

/// The values each field takes in turn, as raw little-endian bits.
fn values(field: Field, original: u64, rng: &mut u64) -> Vec<u64> {
    let max = match field.width {
        8 => u64::MAX,
        4 => u64::from(u32::MAX),
        _ => u64::from(u8::MAX),
    };
    let mut out = vec![0, 1, 2, max, max - 1];
    for _ in 0..6 {
        out.push(next(rng) & max);
    }
    // Near the original: off by one either way, doubled, halved.
    out.extend([
        original.wrapping_add(1) & max,
        original.wrapping_sub(1) & max,
        (original << 1) & max,
        original >> 1,
    ]);
    if field.float {
        for v in [
            0.0,
            -0.0,
            1.0,
            2.0,
            -1.0,
            0.5,
            1e-300,
            5e-324,
            1.0 - f64::EPSILON,
            1.0 + f64::EPSILON,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            out.push(v.to_bits());
        }
        let f = f64::from_bits(original);
        out.extend([(f * 1.000_001).to_bits(), (f / 3.0).to_bits()]);
    }
    out
}

/// `bytes` with `field` set to `value` and the checksum made valid again.
fn forge(bytes: &[u8], field: Field, value: u64) -> Vec<u8> {
    common::forged(bytes, field.at, &value.to_le_bytes()[..field.width])
}

/// Inserts 1,000 fresh keys into `f` and checks every accepted one tests
/// present (a sliding filter: every one of its window); returns them.
fn fill<F: ApproxSet + ?Sized>(f: &mut F, what: &str) -> Vec<Vec<u8>> {
    let mut held = Vec::new();
    for i in 0..1_000u32 {
        let key = format!("forged-{i}").into_bytes();
        if f.insert_bytes(&key).is_ok() {
            held.push(key);
        }
    }
    if f.variant() == Variant::Sliding {
        // The last W inserts are remembered, the older ones may be gone.
        held.drain(..held.len().saturating_sub(f.capacity()));
    }
    for k in &held {
        assert!(f.contains_bytes(k), "{what}: false negative after insert");
    }
    let _ = (
        f.len(),
        f.estimated_fp_rate(),
        f.memory_bytes(),
        f.capacity(),
    );
    held
}

/// Saves `f`, reloads it, and checks `held` still tests present.
fn reload<F: ApproxSet + ?Sized>(f: &F, held: &[Vec<u8>], what: &str) {
    let saved = f
        .to_bytes()
        .unwrap_or_else(|e| panic!("{what}: a loaded filter does not save: {e}"));
    let again = approxset::load(&saved)
        .unwrap_or_else(|e| panic!("{what}: a saved filter does not reload: {e}"));
    for k in held {
        assert!(
            again.contains_bytes(k),
            "{what}: false negative after reload"
        );
    }
}

/// Clears `f`, refills it and reloads it: a loaded filter stays loadable
/// through `clear` too.
fn clear_and_reload<F: ApproxSet + ?Sized>(f: &mut F, what: &str) {
    f.clear();
    assert_eq!(f.len(), 0, "{what}: len after clear");
    let held = fill(f, what);
    reload(f, &held, what);
}

/// Uses a loaded filter hard: 1,000 inserts (the scalable samples grow
/// several stages), lookups of everything inserted, removes of half (where
/// it can delete), a reload, then a clear, a refill and a reload; panics on
/// a false negative or a save that does not reload.
fn exercise(bytes: &[u8], what: &str) {
    if let Ok(mut f) = approxset::load_deletable(bytes) {
        let held = fill(&mut *f, what);
        // Remove every other key; the rest must stay.
        for k in held.iter().step_by(2) {
            let _ = f.remove_bytes(k);
        }
        let kept: Vec<Vec<u8>> = held.into_iter().skip(1).step_by(2).collect();
        for k in &kept {
            assert!(f.contains_bytes(k), "{what}: false negative after remove");
        }
        let _ = (f.len(), f.estimated_fp_rate());
        reload(&*f, &kept, what);
        clear_and_reload(&mut *f, what);
    } else if let Ok(mut f) = approxset::load(bytes) {
        let held = fill(&mut *f, what);
        reload(&*f, &held, what);
        clear_and_reload(&mut *f, what);
    }
}

/// Calls `check(variant, what, forged)` for a saved filter of every
/// variant of `variants` (hashed with SipHash-1-3 and XXH3) with each of
/// its fields pushed to its edges ([`values`]), the checksum made valid.
fn forge_every_field(
    variants: &[Variant],
    rng: &mut u64,
    mut check: impl FnMut(Variant, &str, &[u8]),
) {
    for &variant in variants {
        for function in [HashFunction::SipHash13, HashFunction::Xxh3] {
            let bytes = sample_hashed(variant, function);
            for field in fields(variant, &bytes) {
                let mut raw = [0u8; 8];
                raw[..field.width].copy_from_slice(&bytes[field.at..field.at + field.width]);
                let original = u64::from_le_bytes(raw);
                for value in values(field, original, rng) {
                    let forged = forge(&bytes, field, value);
                    let what = format!("{variant} {} = {value:#x}", field.name);
                    check(variant, &what, &forged);
                }
            }
        }
    }
}

#[test]
fn forged_fields_load_cleanly_or_not_at_all() {
    let mut rng = 0xF0F0_1234;
    let mut loaded = 0;
    let mut refused = 0;
    forge_every_field(Variant::INSERTABLE, &mut rng, |_, what, forged| {
        match approxset::load(forged) {
            Ok(_) => loaded += 1,
            Err(e) => {
                assert!(
                    matches!(e, Error::Corrupt { .. } | Error::TooLarge { .. }),
                    "{what}: {e}"
                );
                refused += 1;
            }
        }
        exercise(forged, what);
    });
    // Both outcomes occur: the forgeries reach the checks and past them.
    assert!(
        loaded > 50 && refused > 50,
        "{loaded} loaded, {refused} refused"
    );
}

/// Looks every key of a fixed set up in `view` one at a time and batched,
/// and reads its metadata: whatever a forged file made of it, nothing may
/// panic or read out of bounds.
fn exercise_view(view: &dyn Membership, what: &str) {
    let keys: Vec<u32> = (0..2_000).collect();
    let mut out = Vec::new();
    view.contains_batch(&keys, &mut out);
    for (k, &batched) in keys.iter().zip(&out) {
        assert_eq!(view.contains(k), batched, "{what}: key {k}");
    }
    let _ = (
        view.len(),
        view.capacity(),
        view.fp_rate(),
        view.estimated_fp_rate(),
        view.estimated_items(),
        view.memory_bytes(),
        view.parameters(),
        view.to_bytes(),
    );
}

/// Every forged field `load` refuses, `view` refuses too, but for the one
/// check of a cuckoo filter that scans its table (that `len` counts the
/// stored fingerprints), which `view` leaves to `verify`; what `view`
/// opens survives lookups.
#[test]
fn forged_fields_view_as_they_load() {
    let mut rng = 0x0F0F_4321;
    let (mut opened, mut refused, mut scan_only) = (0, 0, 0);
    let flat: Vec<Variant> = Variant::INSERTABLE
        .iter()
        .copied()
        .filter(|&v| v != Variant::Scalable && v != Variant::Sliding)
        .collect();
    forge_every_field(&flat, &mut rng, |variant, what, forged| {
        let loaded = approxset::load_membership(forged);
        match approxset::view(forged) {
            Ok(view) => {
                opened += 1;
                exercise_view(view.as_ref(), what);
                let verified = approxset::view_verified(forged);
                match (&loaded, verified) {
                    (Ok(_), Ok(_)) => {}
                    (Err(e), Err(v)) => assert_eq!(e.to_string(), v.to_string(), "{what}"),
                    (l, v) => panic!("{what}: load {l:?}, view_verified {v:?}"),
                }
                if let Err(e) = &loaded {
                    // Only the scan a view leaves out.
                    assert!(
                        variant == Variant::Cuckoo && e.to_string().contains("fingerprints stored"),
                        "{what}: load refuses ({e}), view opens"
                    );
                    let typed = approxset::CuckooFilter::view(forged).unwrap();
                    assert!(typed.verify().is_err(), "{what}: verify finds it");
                    scan_only += 1;
                }
            }
            Err(e) => {
                refused += 1;
                let l = loaded.as_ref().map(|_| ()).unwrap_err();
                assert_eq!(e.to_string(), l.to_string(), "{what}: the same error");
            }
        }
    });
    assert!(
        opened > 50 && refused > 50,
        "{opened} opened, {refused} refused"
    );
    assert!(scan_only > 5, "{scan_only} forged cuckoo counts");
}

/// The hash function byte: 0 before version 3, a known code the variant
/// can use from version 3; anything else is `Corrupt`, naming it.
#[test]
fn forged_hash_function_bytes_are_named() {
    for &variant in Variant::INSERTABLE {
        let sip = sample(variant);
        let xxh3 = sample_hashed(variant, HashFunction::Xxh3);
        let byte7 = int("hash function", 7, 1);
        if u16::from_le_bytes([sip[4], sip[5]]) < 3 {
            // A file before version 3 with XXH3's code: its flags are unknown.
            let e = approxset::load(&forge(&sip, byte7, 1)).unwrap_err();
            assert!(
                e.to_string().contains("unknown flags 0x01"),
                "{variant}: {e}"
            );
        } else {
            // A variant new in version 3 (sliding): the code is XXH3's.
            let f = approxset::load(&forge(&sip, byte7, 1)).unwrap();
            assert_eq!(f.hash_key().function(), HashFunction::Xxh3, "{variant}");
        }
        let e = approxset::load(&forge(&xxh3, byte7, 4)).unwrap_err();
        assert!(matches!(e, Error::Corrupt { .. }), "{variant}: {e}");
        assert!(
            e.to_string().contains("unknown hash function code 4"),
            "{variant}: {e}"
        );
        // Parquet's function on a variant that cannot use it.
        let e = approxset::load(&forge(&xxh3, byte7, 2)).unwrap_err();
        assert!(matches!(e, Error::Corrupt { .. }), "{variant}: {e}");
        // A version-3 file saying SipHash loads as SipHash: other digests,
        // so not the same answers, but no panic.
        let f = approxset::load(&forge(&xxh3, byte7, 0)).unwrap();
        assert_eq!(f.hash_key().function(), HashFunction::SipHash13);
        // And the stream reader refuses what the loader refuses.
        let e = approxset::read_from(&forge(&xxh3, byte7, 77)[..]).unwrap_err();
        assert!(
            e.to_string().contains("unknown hash function code 77"),
            "{variant}: {e}"
        );
    }
}

/// A scalable sample of `stages` stages (initial capacity 8, growth 2),
/// filled from fixed keys.
fn scalable_sample(stages: usize) -> ScalableBloomFilter {
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .seed(9)
        .initial_capacity(8)
        .unwrap();
    let mut i = 0u32;
    while f.stages().len() < stages || f.stages()[stages - 1].len() < 3 {
        f.insert_bytes(format!("held-{i}").as_bytes()).unwrap();
        i += 1;
    }
    assert_eq!(f.stages().len(), stages);
    f
}

/// The offset of every stage body of a saved scalable filter.
fn stage_offsets(bytes: &[u8]) -> Vec<usize> {
    let h = HEADER_LEN;
    let count = u64::from_le_bytes(bytes[h + 48..h + 56].try_into().unwrap());
    let mut at = h + 56;
    let mut out = Vec::new();
    for _ in 0..count {
        out.push(at);
        let cells = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        at += 40 + cells.div_ceil(64) as usize * 8;
    }
    out
}

const CHAIN_LEN: Field = int("len", HEADER_LEN + 40, 8);

#[test]
fn a_scalable_len_counts_inserts_and_bounds_the_stages() {
    let f = scalable_sample(3);
    let bytes = f.to_bytes().unwrap();
    let sum: usize = f.stages().iter().map(|s| s.len()).sum();
    assert_eq!(f.len(), sum, "distinct keys, none a false positive here");
    let sum = sum as u64;
    // `len` counts repeats as well, so it may exceed the stages' sum, but
    // never fall below it.
    for value in [0, 1, sum - 1] {
        let err = approxset::load(&forge(&bytes, CHAIN_LEN, value)).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{value}: {err}");
    }
    for value in [sum, sum + 1, 1 << 40, u64::MAX - 1, u64::MAX] {
        let forged = forge(&bytes, CHAIN_LEN, value);
        let g = approxset::load(&forged).unwrap_or_else(|e| panic!("{value}: {e}"));
        assert_eq!(g.len() as u64, value);
        exercise(&forged, &format!("chain len {value}"));
    }
}

/// Forges stage `stage`'s len to `value` and the chain's len to the sum to
/// match, where the sum is a count.
fn forge_stage_len(f: &ScalableBloomFilter, stage: usize, value: u64) -> Option<Vec<u8>> {
    let bytes = f.to_bytes().unwrap();
    let at = stage_offsets(&bytes)[stage];
    let others: u64 = f
        .stages()
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != stage)
        .map(|(_, s)| s.len() as u64)
        .sum();
    let total = others.checked_add(value)?;
    let forged = forge(&bytes, int("stage len", at + 16, 8), value);
    Some(forge(&forged, CHAIN_LEN, total))
}

#[test]
fn forged_stage_counts_load_only_when_they_stay_loadable() {
    // One stage, and three (two full, the newest not).
    for stages in [1, 3] {
        let f = scalable_sample(stages);
        let newest = stages - 1;
        for (i, stage) in f.stages().iter().enumerate() {
            let cap = stage.capacity() as u64;
            let others: u64 = f.len() as u64 - stage.len() as u64;
            let mut rng = 0x5CA1_AB1E ^ i as u64;
            let mut values = vec![0, 1, cap - 1, cap, cap + 1, 2 * cap, u64::MAX - others];
            values.extend([u64::MAX, u64::MAX - 1, next(&mut rng), next(&mut rng)]);
            for value in values {
                let what = format!("{stages} stages, stage {} len {value}", i + 1);
                let Some(forged) = forge_stage_len(&f, i, value) else {
                    continue;
                };
                let loaded = approxset::load(&forged);
                // A stage holds at most its capacity, and every stage but
                // the newest exactly that.
                let valid = value <= cap && (i == newest || value == cap);
                match loaded {
                    Ok(_) => assert!(valid, "{what}: loaded"),
                    Err(e) => {
                        assert!(!valid, "{what}: {e}");
                        assert!(matches!(e, Error::Corrupt { .. }), "{what}: {e}");
                    }
                }
                // What loads survives growth, a clear and a reload.
                exercise(&forged, &what);
            }
        }
    }
}

#[test]
fn a_full_newest_stage_loads_and_grows_on_the_next_insert() {
    let f = scalable_sample(1);
    let cap = f.stages()[0].capacity() as u64;
    let forged = forge_stage_len(&f, 0, cap).unwrap();
    let mut g = ScalableBloomFilter::from_bytes(&forged).unwrap();
    g.insert("one more").unwrap();
    assert_eq!(g.stages().len(), 2);
    assert_eq!(g.stages()[1].len(), 1);
    let again = ScalableBloomFilter::from_bytes(&g.to_bytes().unwrap()).unwrap();
    assert_eq!(again, g);
}

/// Forges the scalable field `name` of the chain header to `value`.
fn forge_chain(bytes: &[u8], name: &str, value: u64) -> Vec<u8> {
    let field = body_fields(Variant::Scalable, bytes)
        .into_iter()
        .take(7)
        .find(|f| f.name == name)
        .unwrap();
    forge(bytes, field, value)
}

#[test]
fn scalable_parameters_that_multiply_memory_are_bounded_at_load() {
    let bytes = scalable_sample(1).to_bytes().unwrap();
    assert!(
        bytes.len() <= 160,
        "a file as small as the issue's: {}",
        bytes.len()
    );
    // Growth past 16 (6e7 made one insert allocate 2 GB; 1e10 reserve
    // 156 GB), a tightening below ½: refused before any insert.
    for growth in [16.5, 6e7, 1e10, f64::MAX] {
        let err = approxset::load(&forge_chain(&bytes, "growth", growth.to_bits())).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { reason } if reason.contains("growth")),
            "{growth}: {err}"
        );
    }
    for tightening in [1e-10, 0.25, 0.499] {
        let err = approxset::load(&forge_chain(&bytes, "tightening", f64::to_bits(tightening)))
            .unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{tightening}: {err}");
    }
    // A capacity the stage's bits do not pay for: the initial capacity and
    // the stage's capacity forged together to 10⁹ over 192 bits (the next
    // stage would take 3.5 GB).
    let huge = 1_000_000_000u64;
    let at = stage_offsets(&bytes)[0];
    let forged = forge_chain(&bytes, "initial capacity", huge);
    let forged = forge(&forged, int("stage capacity", at + 24, 8), huge);
    let err = approxset::load(&forged).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { reason } if reason.contains("bits")),
        "{err}"
    );
    let forged = forge(&forged, int("stage len", at + 16, 8), huge);
    let forged = forge(&forged, CHAIN_LEN, huge);
    assert!(approxset::load(&forged).is_err());
    // At the edges of the ranges the file loads and grows.
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .growth(16.0)
        .tightening(0.5)
        .seed(9)
        .initial_capacity(8)
        .unwrap();
    f.try_extend(0..200u32).unwrap();
    // 8 + 128 < 200 ≤ 8 + 128 + 2048.
    let caps: Vec<usize> = f.stages().iter().map(|s| s.capacity()).collect();
    assert_eq!(caps, [8, 128, 2048]);
    exercise(&f.to_bytes().unwrap(), "growth 16, tightening 0.5");
}

/// The least number of cells that meets `p` by `rate` at `k` hashes is
/// within 1 % of `cells`: `cells` meets it and 1 % fewer would not.
fn least_within_one_percent(cells: u64, rate: impl Fn(u64) -> f64, p: f64) -> bool {
    let fewer = (cells as f64 * 0.99).floor() as u64;
    rate(cells) <= p * (1.0 + 1e-9) && (fewer == cells || rate(fewer) > p)
}

proptest! {
    #![proptest_config(proptest_config(2_000))]

    /// Every variant's design for any (n, p) is either `TooLarge` or a size
    /// that meets the variant's own formula with less than 1 % to spare.
    #[test]
    fn design_is_exact_or_too_large(log_n in 0.0f64..63.0, log_p in 1.0f64..12.0) {
        let n = (2f64.powf(log_n) as u64).max(1) as usize;
        let p = 10f64.powf(-log_p).min(0.5);
        for &variant in Variant::INSERTABLE {
            let design = match variant.design(n, p) {
                Err(Error::TooLarge { needed, limit }) => {
                    prop_assert!(
                        needed > limit && needed < u128::MAX,
                        "{variant} {n} {p}: {needed} {limit}"
                    );
                    continue;
                }
                Err(Error::InvalidParameter { .. }) if variant == Variant::Cuckoo => {
                    // Below the cuckoo filter's least rate.
                    prop_assert!(p < 1.3e-4);
                    continue;
                }
                Err(Error::InvalidParameter { .. }) if variant == Variant::Quotient => {
                    // Fingerprints of more than 64 bits: n/p past about 2^64.
                    prop_assert!((n as f64 / p).log2() > 60.0, "{n} {p}");
                    continue;
                }
                Err(e) => return Err(TestCaseError::fail(format!("{variant} {n} {p}: {e}"))),
                Ok(d) => d,
            };
            prop_assert!(design.bytes() <= isize::MAX as u64);
            prop_assert!(design.bytes() * 8 >= design.bits());
            let k = design.hashes();
            let nn = n as u64;
            let ok = match variant {
                Variant::Classic => least_within_one_percent(
                    design.bits(), |m| sizing::fp_rate_classic(m, nn, k), p),
                Variant::Counting => design.bits() % 4 == 0 && least_within_one_percent(
                    design.bits() / 4, |m| sizing::fp_rate_classic(m, nn, k), p),
                Variant::Partitioned => least_within_one_percent(
                    design.bits(), |m| sizing::fp_rate_partitioned(m - m % u64::from(k), nn, k), p),
                Variant::Blocked => least_within_one_percent(
                    design.bits(), |m| sizing::fp_rate_blocked(m - m % 512, nn, k), p),
                Variant::SplitBlock => k == 8 && least_within_one_percent(
                    design.bits(), |m| sizing::fp_rate_split_block(m - m % 256, nn), p),
                Variant::Scalable => least_within_one_percent(
                    design.bits(),
                    |m| sizing::fp_rate_partitioned(m - m % u64::from(k), nn, k),
                    p * (1.0 - 0.85)), // the default tightening r = 0.85
                Variant::Cuckoo => {
                    // f-bit fingerprints at a load of at most 94 % (up to 9
                    // items fill the two smallest buckets and the stash): at
                    // least f / 0.94 bits per key, within 1 % of it for large n.
                    let per_key = design.bits_per_key();
                    let bound = f64::from(k) / 0.94;
                    (n <= 9 || per_key >= bound * (1.0 - 1e-9)) && (n < 100_000 || per_key <= bound * 1.01)
                }
                Variant::Quotient => {
                    // r-bit remainders and 2.25 bits of metadata per slot at
                    // a load of at most 95 % (whole blocks of 64 slots).
                    let per_key = design.bits_per_key();
                    let bound = (f64::from(k) + 2.25) / 0.95;
                    design.expected_fp() <= p
                        && (n < 100_000 || (per_key >= bound * 0.99 && per_key <= bound * 1.01))
                }
                _ => true,
            };
            prop_assert!(ok, "{variant}: n = {n}, p = {p}: {} bits, k = {k}", design.bits());
        }
    }
}

#[test]
fn counting_design_that_overflowed() {
    // 4 · bits passed u64 here before: a debug panic, a wrong figure in release.
    let err = Variant::Counting
        .design(500_000_000_000_000_000, 0.01)
        .unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { needed, .. } if needed < u128::MAX),
        "{err}"
    );
    assert!(!err.to_string().contains(&u128::MAX.to_string()), "{err}");
    for &variant in Variant::INSERTABLE {
        if let Err(e) = variant.design(usize::MAX, 1e-4) {
            assert!(!e.to_string().contains(&u128::MAX.to_string()), "{e}");
            assert!(!e.to_string().contains(&u64::MAX.to_string()), "{e}");
        }
    }
}

/// Fills `f` until an insert fails; returns the error and the items in.
fn fill_until_error(f: &mut ScalableBloomFilter, cap: u32) -> Option<(Error, u32)> {
    for i in 0..cap {
        if let Err(e) = f.insert(&i) {
            for j in 0..i {
                assert!(f.contains(&j), "false negative at {j}");
            }
            return Some((e, i));
        }
    }
    None
}

#[test]
fn a_scalable_filter_that_cannot_grow_says_so() {
    // At the least rate tightening ½ allows, stage 17's rate is past what
    // 64 hashes reach; a growth near 1 gets there in about 180 items.
    let p = ScalableBloomFilter::min_fp_rate(0.5);
    let mut f = ScalableBloomFilter::with_fp_rate(p)
        .tightening(0.5)
        .growth(1.000_001)
        .seed(1)
        .initial_capacity(10)
        .unwrap();
    let (err, items) = fill_until_error(&mut f, 1_000).expect("it stops growing");
    match &err {
        Error::CannotGrow {
            stages,
            items: held,
            ..
        } => {
            assert_eq!(*stages, f.stages().len());
            assert_eq!(*held, f.len());
            assert!(*held <= items as usize);
        }
        e => panic!("{e}"),
    }
    assert_eq!(f.stages().len(), approxset_bloom::MIN_STAGES as usize);
    let message = err.to_string();
    assert!(message.contains("cannot grow"), "{message}");
    // A refused insert changes nothing, and the error repeats.
    let before = f.clone();
    assert!(matches!(f.insert(&u32::MAX), Err(Error::CannotGrow { .. })));
    assert_eq!(f, before);

    // Growth 1.01 reaches the 64-hash limit after a few hundred stages.
    let mut f = ScalableBloomFilter::with_fp_rate(0.01)
        .growth(1.01)
        .seed(1)
        .initial_capacity(100)
        .unwrap();
    let (err, _) = fill_until_error(&mut f, 1_000_000).expect("it stops growing");
    assert!(matches!(err, Error::CannotGrow { .. }), "{err}");
}

/// The fields of a saved fuse filter (`docs/format.md`, "Fuse (8)").
fn fuse_fields() -> Vec<Field> {
    let h = HEADER_LEN;
    vec![
        int("hash function", 7, 1),
        int("fingerprint bits", h, 4),
        int("reserved", h + 4, 4),
        int("seed", h + 8, 8),
        int("segment length", h + 16, 4),
        int("segment count", h + 20, 4),
        int("array length", h + 24, 8),
        int("len", h + 32, 8),
    ]
}

/// Forged fuse files, every field pushed to its edges with a valid
/// checksum: each loads into a filter that answers, counts and saves
/// without a panic, or is refused as `Corrupt`; one that loads with its
/// layout unchanged still finds every key.
#[test]
fn forged_fuse_fields_load_cleanly_or_not_at_all() {
    use approxset::BinaryFuseFilter;
    let keys: Vec<String> = (0..300).map(|i| format!("held-{i}")).collect();
    let mut rng = 0x0F0F_4321;
    let (mut loaded, mut refused) = (0, 0);
    for (fp, function) in [
        (0.01, HashFunction::SipHash13),
        (1e-4, HashFunction::Xxh3),
        (1e-6, HashFunction::SipHash13),
    ] {
        let f = BinaryFuseFilter::with_fp_rate(fp)
            .seed(9)
            .hash(function)
            .build(&keys)
            .unwrap();
        let bytes = f.to_bytes().unwrap();
        for field in fuse_fields() {
            let mut raw = [0u8; 8];
            raw[..field.width].copy_from_slice(&bytes[field.at..field.at + field.width]);
            let original = u64::from_le_bytes(raw);
            for value in values(field, original, &mut rng) {
                let forged = forge(&bytes, field, value);
                let what = format!("fuse {} = {value:#x}", field.name);
                let owned = BinaryFuseFilter::from_bytes(&forged);
                // A view opens exactly what loads (the checksum is valid),
                // and survives use.
                match (approxset::view(&forged), &owned) {
                    (Ok(view), Ok(_)) => exercise_view(view.as_ref(), &what),
                    (Err(v), Err(e)) => assert_eq!(v.to_string(), e.to_string(), "{what}"),
                    (v, e) => panic!("{what}: view {v:?}, load {e:?}"),
                }
                match owned {
                    Ok(g) => {
                        loaded += 1;
                        let hits = keys.iter().filter(|k| g.contains(k)).count();
                        let _ = (g.len(), g.fp_rate(), g.memory_bytes(), g.parameters());
                        // With the key, seed and layout it was built
                        // with (a forged len, or a value equal to the
                        // original), it finds every key.
                        let same = (g.hash_key(), g.seed(), g.fingerprint_bits())
                            == (f.hash_key(), f.seed(), f.fingerprint_bits())
                            && (g.segment_length(), g.segment_count())
                                == (f.segment_length(), f.segment_count());
                        if same {
                            assert_eq!(hits, keys.len(), "{what}: false negative");
                        }
                        let again = g.to_bytes().unwrap();
                        assert_eq!(BinaryFuseFilter::from_bytes(&again).unwrap(), g, "{what}");
                    }
                    Err(e) => {
                        assert!(
                            matches!(e, Error::Corrupt { .. } | Error::WrongVariant { .. }),
                            "{what}: {e}"
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        loaded > 20 && refused > 50,
        "{loaded} loaded, {refused} refused"
    );
}

/// The fields of a saved Ribbon filter (`docs/format.md`, "Ribbon (11)").
fn ribbon_fields() -> Vec<Field> {
    let h = HEADER_LEN;
    vec![
        int("hash function", 7, 1),
        int("coefficient bits", h, 4),
        int("lower columns", h + 4, 4),
        int("seed", h + 8, 8),
        int("blocks", h + 16, 8),
        int("upper start", h + 24, 8),
        int("len", h + 32, 8),
    ]
}

/// Forged Ribbon files, every field pushed to its edges with a valid
/// checksum: each loads into a filter that answers, counts and saves
/// without a panic, or is refused as `Corrupt`, and the view opens exactly
/// what loads; one that loads with its layout unchanged still finds every
/// key.
#[test]
fn forged_ribbon_fields_load_cleanly_or_not_at_all() {
    use approxset::RibbonFilter;
    let keys: Vec<String> = (0..300).map(|i| format!("held-{i}")).collect();
    let mut rng = 0x0F0F_1111;
    let (mut loaded, mut refused) = (0, 0);
    for (fp, function) in [
        (0.01, HashFunction::SipHash13),
        (1e-4, HashFunction::Xxh3),
        (0.5, HashFunction::SipHash13),
        (2f64.powi(-32), HashFunction::SipHash13),
    ] {
        let f = RibbonFilter::with_fp_rate(fp)
            .seed(9)
            .hash(function)
            .build(&keys)
            .unwrap();
        let bytes = f.to_bytes().unwrap();
        for field in ribbon_fields() {
            let mut raw = [0u8; 8];
            raw[..field.width].copy_from_slice(&bytes[field.at..field.at + field.width]);
            let original = u64::from_le_bytes(raw);
            for value in values(field, original, &mut rng) {
                let forged = forge(&bytes, field, value);
                let what = format!("ribbon {} = {value:#x}", field.name);
                let owned = RibbonFilter::from_bytes(&forged);
                match (approxset::view(&forged), &owned) {
                    (Ok(view), Ok(_)) => exercise_view(view.as_ref(), &what),
                    (Err(v), Err(e)) => assert_eq!(v.to_string(), e.to_string(), "{what}"),
                    (v, e) => panic!("{what}: view {v:?}, load {e:?}"),
                }
                match owned {
                    Ok(g) => {
                        loaded += 1;
                        let hits = keys.iter().filter(|k| g.contains(k)).count();
                        let _ = (g.len(), g.fp_rate(), g.memory_bytes(), g.parameters());
                        let same = (g.hash_key(), g.seed(), g.lower_columns())
                            == (f.hash_key(), f.seed(), f.lower_columns())
                            && (g.blocks(), g.upper_start()) == (f.blocks(), f.upper_start());
                        if same {
                            assert_eq!(hits, keys.len(), "{what}: false negative");
                        }
                        let again = g.to_bytes().unwrap();
                        assert_eq!(RibbonFilter::from_bytes(&again).unwrap(), g, "{what}");
                    }
                    Err(e) => {
                        assert!(
                            matches!(e, Error::Corrupt { .. } | Error::WrongVariant { .. }),
                            "{what}: {e}"
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        loaded > 20 && refused > 50,
        "{loaded} loaded, {refused} refused"
    );
}
