//! A long churn test of the deletable variants against an exact multiset
//! model: at least 10⁷ random inserts, removes and lookups per variant, with
//! counter saturation, duplicates up to the cuckoo filter's limit, `Full`
//! refusals and reloads mixed in. No key the model holds may ever test
//! absent.
//!
//! Ignored in the normal run (it takes a minute); run it with
//!
//! ```sh
//! cargo test --test soak -- --ignored --nocapture
//! ```
//!
//! `SOAK_OPS=<n>` changes the operations per variant (default 10⁷).

use std::collections::HashMap;

use approxset::{Count, Deletable, Error, Removal, Variant};

use approxset::hash::splitmix64 as next;

/// What one churn run saw.
#[derive(Debug, Default)]
struct Tally {
    ops: u64,
    inserts: u64,
    removes: u64,
    lookups: u64,
    refusals: u64,
    copy_refusals: u64,
    reloads: u64,
    false_negatives: u64,
    max_copies: u32,
    /// Removes a counting filter answered `Saturated` (the key kept).
    saturated_removes: u64,
}

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

/// Every key the model holds tests present; counts the ones that do not.
fn check_all(f: &dyn Deletable, model: &HashMap<u64, u32>) -> u64 {
    model
        .iter()
        .filter(|&(&k, &c)| c > 0 && !f.contains_bytes(&key(k)))
        .count() as u64
}

/// Churns a filter of `variant` sized for `capacity` items over a key space
/// of `keys` keys for `ops` operations.
fn churn(variant: Variant, capacity: usize, keys: u64, ops: u64, seed: u64) -> Tally {
    let mut f = variant
        .builder()
        .seed(seed)
        .build_deletable(capacity, 0.01)
        .unwrap();
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut held: u64 = 0;
    let mut rng = seed;
    let mut t = Tally::default();
    for op in 0..ops {
        let r = next(&mut rng);
        // Skew the key choice so a few keys get many copies (saturation,
        // the cuckoo's eight-copy limit) while most are rare.
        let k = if r & 7 == 0 {
            r >> 61
        } else {
            (r >> 20) % keys
        };
        // Insert-heavy below the capacity, remove-heavy above it, so the
        // table keeps running into `Full` and back.
        let insert_below = if held < capacity as u64 { 6 } else { 2 };
        match (r >> 8) % 10 {
            x if x < insert_below => {
                t.inserts += 1;
                match f.insert_bytes(&key(k)) {
                    Ok(_) => {
                        let c = model.entry(k).or_insert(0);
                        *c += 1;
                        t.max_copies = t.max_copies.max(*c);
                        held += 1;
                    }
                    Err(Error::Full { .. }) => t.refusals += 1,
                    Err(Error::TooManyCopies { .. }) => {
                        // Eight equal fingerprints in the key's buckets: its
                        // own copies, or keys sharing its fingerprint and
                        // buckets; either way it tests present.
                        assert!(f.contains_bytes(&key(k)), "{variant}: refused as a copy");
                        t.copy_refusals += 1;
                    }
                    Err(e) => panic!("{variant}: unexpected {e}"),
                }
            }
            7..=9 if held > 0 => {
                // Remove a key the model holds (removing a key that was never
                // inserted is the one misuse a counting filter cannot detect).
                t.removes += 1;
                if model.get(&k).copied().unwrap_or(0) > 0 {
                    match f.remove_bytes(&key(k)) {
                        Removal::Removed => {
                            let c = model.get_mut(&k).unwrap();
                            *c -= 1;
                            held -= 1;
                        }
                        // A counting filter's key inserted 15 times or more
                        // (every counter at 15): kept, nothing changed.
                        Removal::Saturated => {
                            assert_eq!(variant, Variant::Counting);
                            let digest = f.hash_key().digest_bytes(&key(k));
                            assert_eq!(f.count_digest(digest), Count::AtLeast(15));
                            t.saturated_removes += 1;
                        }
                        other => panic!("{variant}: remove of a held key: {other}"),
                    }
                } else if !f.contains_bytes(&key(k)) {
                    // Certainly absent: must change nothing.
                    assert_eq!(f.remove_bytes(&key(k)), Removal::Absent);
                }
            }
            _ => {
                t.lookups += 1;
                if model.get(&k).copied().unwrap_or(0) > 0 && !f.contains_bytes(&key(k)) {
                    t.false_negatives += 1;
                }
            }
        }
        t.ops += 1;
        if op % 250_000 == 249_999 {
            t.false_negatives += check_all(&*f, &model);
            let bytes = f.to_bytes().unwrap();
            f = approxset::load_deletable(&bytes).unwrap();
            t.reloads += 1;
            assert_eq!(
                f.to_bytes().unwrap(),
                bytes,
                "{variant}: reload changed bytes"
            );
        }
    }
    t.false_negatives += check_all(&*f, &model);
    t
}

fn ops() -> u64 {
    std::env::var("SOAK_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000)
}

#[test]
#[ignore = "a minute of churn; run with --ignored"]
fn soak_counting() {
    let t = churn(Variant::Counting, 2_000, 3_000, ops(), 0xC0C0);
    println!("counting: {t:?}");
    assert_eq!(t.false_negatives, 0);
    assert!(t.max_copies > 15, "saturation was not reached: {t:?}");
    assert!(t.saturated_removes > 0, "no saturated remove: {t:?}");
}

#[test]
#[ignore = "a minute of churn; run with --ignored"]
fn soak_cuckoo() {
    let t = churn(Variant::Cuckoo, 2_000, 3_000, ops(), 0xCC00);
    println!("cuckoo: {t:?}");
    assert_eq!(t.false_negatives, 0);
    assert!(t.refusals > 0 && t.copy_refusals > 0, "no refusal: {t:?}");
    assert_eq!(t.max_copies, 8, "{t:?}");
}

/// The same churn, short, in the normal run.
#[test]
fn churn_short() {
    for (variant, seed) in [(Variant::Counting, 1), (Variant::Cuckoo, 2)] {
        let t = churn(variant, 500, 800, 200_000, seed);
        assert_eq!(t.false_negatives, 0, "{variant}: {t:?}");
    }
}
