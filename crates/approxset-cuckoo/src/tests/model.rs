//! Model-based property tests: random inserts, removes and lookups against
//! an exact multiset, at every width of [`TEST_WIDTHS`].

use super::*;

/// A key of the model test: a digest from a small set of `h1` and `h2`
/// values, so that fingerprints and buckets collide often in tiny tables.
fn model_digest(a: u8, b: u8) -> Digest {
    Digest::new(splitmix(u64::from(a)), splitmix(1000 + u64::from(b)))
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u8, u8),
    InsertIfAbsent(u8, u8),
    Remove(u8, u8),
    Contains(u8, u8),
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    let key = (0u8..12, 0u8..4);
    prop_oneof![
        6 => key.clone().prop_map(|(a, b)| Op::Insert(a, b)),
        2 => key.clone().prop_map(|(a, b)| Op::InsertIfAbsent(a, b)),
        4 => key.clone().prop_map(|(a, b)| Op::Remove(a, b)),
        3 => key.prop_map(|(a, b)| Op::Contains(a, b)),
        1 => Just(Op::Clear),
    ]
}

/// (fingerprint, smaller bucket, larger bucket): the filter is exactly a
/// multiset of these classes.
type Class = (u64, usize, usize);

fn class(f: &CuckooFilter, d: Digest) -> Class {
    let (fp, i1, i2) = f.locate_for_test(d);
    (fp, i1.min(i2), i1.max(i2))
}

/// Runs `test` on `cases` inputs from `strategy` for every width of
/// [`TEST_WIDTHS`], each from a fixed seed (CI sees the cases a developer
/// sees), and names the width of a failure.
fn for_each_width<S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(u32, S::Value) -> Result<(), TestCaseError>,
) {
    for bits in TEST_WIDTHS {
        let config = ProptestConfig {
            cases,
            rng_seed: RngSeed::Fixed(0x5EED_C0C0 + u64::from(bits)),
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let mut runner = TestRunner::new(config);
        if let Err(e) = runner.run(&strategy, |v| test(bits, v)) {
            panic!("{bits}-bit fingerprints: {e}");
        }
    }
}

/// Random inserts, removes and lookups with many duplicates, against an
/// exact multiset of (fingerprint, buckets) classes and of keys, at every
/// width.
#[test]
fn behaves_like_a_multiset() {
    let inputs = (
        1usize..40,
        any::<u64>(),
        prop::collection::vec(op(), 1..300),
    );
    for_each_width(96, inputs, |bits, (items, seed, ops)| {
        let mut f = filter(items, bits, seed);
        let mut classes: HashMap<Class, usize> = HashMap::new();
        let mut keys: HashMap<(u8, u8), usize> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(a, b) => {
                    let d = model_digest(a, b);
                    let c = class(&f, d);
                    let held = classes.get(&c).copied().unwrap_or(0);
                    let before = f.clone();
                    match f.insert_digest(d) {
                        Ok(fresh) => {
                            prop_assert!(!before.stash_taken() && held < 8);
                            prop_assert_eq!(fresh, held == 0);
                            *classes.entry(c).or_default() += 1;
                            *keys.entry((a, b)).or_default() += 1;
                        }
                        Err(Error::TooManyCopies { limit: 8 }) => {
                            prop_assert!(held >= 8);
                            prop_assert_eq!(&f, &before);
                        }
                        Err(e) => {
                            prop_assert_eq!(
                                e,
                                Error::Full {
                                    items: before.len()
                                }
                            );
                            prop_assert!(before.stash_taken() && held < 8);
                            prop_assert_eq!(&f, &before);
                        }
                    }
                }
                Op::Remove(a, b) => {
                    let d = model_digest(a, b);
                    let c = class(&f, d);
                    let held = classes.get(&c).copied().unwrap_or(0);
                    let before = f.clone();
                    let removed = f.remove_digest(d).is_removed();
                    prop_assert_eq!(removed, held > 0);
                    if removed {
                        *classes.get_mut(&c).unwrap() -= 1;
                        // The copy removed is this key's if it has one, else
                        // (the documented hazard) another key's of its class.
                        let owner = if keys.get(&(a, b)).copied().unwrap_or(0) > 0 {
                            (a, b)
                        } else {
                            *keys
                                .iter()
                                .find(|(k, n)| **n > 0 && class(&f, model_digest(k.0, k.1)) == c)
                                .unwrap()
                                .0
                        };
                        *keys.get_mut(&owner).unwrap() -= 1;
                    } else {
                        prop_assert_eq!(&f, &before);
                    }
                }
                Op::InsertIfAbsent(a, b) => {
                    let d = model_digest(a, b);
                    let c = class(&f, d);
                    let held = classes.get(&c).copied().unwrap_or(0);
                    let before = f.clone();
                    match f.insert_digest_if_absent(d) {
                        Ok(true) => {
                            prop_assert!(held == 0 && !before.stash_taken());
                            *classes.entry(c).or_default() += 1;
                            *keys.entry((a, b)).or_default() += 1;
                        }
                        Ok(false) => {
                            prop_assert!(held > 0);
                            prop_assert_eq!(&f, &before);
                        }
                        Err(e) => {
                            prop_assert_eq!(
                                e,
                                Error::Full {
                                    items: before.len()
                                }
                            );
                            prop_assert!(held == 0 && before.stash_taken());
                            prop_assert_eq!(&f, &before);
                        }
                    }
                }
                Op::Contains(a, b) => {
                    let d = model_digest(a, b);
                    let held = classes.get(&class(&f, d)).copied().unwrap_or(0);
                    prop_assert_eq!(f.contains_digest(d), held > 0);
                    // The count is the class's copies, exactly.
                    prop_assert_eq!(f.count_digest(d), Count::AtMost(held as u32));
                }
                Op::Clear => {
                    f.clear();
                    classes.clear();
                    keys.clear();
                }
            }
            f.check_invariants();
            prop_assert_eq!(f.len(), classes.values().sum::<usize>());
            // No false negatives: every key inserted more often than
            // removed is found.
            for (&(a, b), &n) in &keys {
                if n > 0 {
                    prop_assert!(f.contains_digest(model_digest(a, b)), "lost {:?}", (a, b));
                }
                // The count bounds the key's own count from above.
                let count = f.count_digest(model_digest(a, b));
                prop_assert!(count.upper_bound().is_some_and(|c| c as usize >= n));
            }
        }
        Ok(())
    });
}

/// The same through the hashing path, with real keys: every inserted key
/// is found, a full filter changes nothing, removal undoes insertion.
#[test]
fn no_false_negatives_through_hash() {
    let inputs = (
        1usize..200,
        any::<u64>(),
        prop::collection::vec(any::<u32>(), 1..400),
    );
    for_each_width(48, inputs, |bits, (items, seed, keys)| {
        let mut f = filter(items, bits, seed);
        let mut stored = Vec::new();
        for k in keys {
            let before = f.clone();
            match f.insert(&k) {
                Ok(_) => stored.push(k),
                Err(_) => prop_assert_eq!(&f, &before),
            }
            prop_assert!(stored.iter().all(|s| f.contains(s)));
        }
        prop_assert_eq!(f.len(), stored.len());
        // Remove every other one; the rest stay.
        let (gone, kept): (Vec<_>, Vec<_>) =
            stored.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        for (_, k) in &gone {
            prop_assert!(f.remove(*k).is_removed());
        }
        for (_, k) in &kept {
            prop_assert!(f.contains(*k));
        }
        f.check_invariants();
        prop_assert_eq!(f.len(), kept.len());
        Ok(())
    });
}
