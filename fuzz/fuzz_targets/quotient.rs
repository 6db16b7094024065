//! The quotient filter from arbitrary input, two ways: arbitrary bytes
//! through its loader and view (an error, or a filter that answers, takes
//! inserts and removes, and saves back), and arbitrary operations on a
//! small filter checked against an exact multiset (no key inserted more
//! often than removed is ever missing, through growth and merges).
#![no_main]

use std::collections::HashMap;

use approxset::QuotientFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let loaded = QuotientFilter::from_bytes(data);
    let viewed = QuotientFilter::view(data);
    // The view makes every check of a load but the checksum.
    if loaded.is_ok() {
        assert!(viewed.is_ok());
    }
    if let Ok(view) = viewed {
        let _ = (view.contains_bytes(b"probe"), view.estimated_fp_rate(), view.parameters());
    }
    if let Ok(mut filter) = loaded {
        assert_eq!(filter.to_bytes().unwrap(), data);
        if filter.insert_bytes(b"probe").is_ok() {
            assert!(filter.contains_bytes(b"probe"));
            assert!(filter.remove_bytes(b"probe").is_removed());
        }
        let again = filter.to_bytes().unwrap();
        assert_eq!(QuotientFilter::from_bytes(&again).unwrap(), filter);
    }
    // Operations: the first two bytes pick the capacity (1..=64) and the
    // rate; each further byte inserts key `byte & 0x7F`, removes it (high
    // bit set, when the model holds it), and 0xFF merges a copy.
    let [n, p, ops @ ..] = data else {
        return;
    };
    let capacity = usize::from(n % 64) + 1;
    let fp_rate = [0.5, 0.1, 0.01, 0.001][usize::from(p % 4)];
    let mut filter = QuotientFilter::with_fp_rate(fp_rate).seed(1).expected_items(capacity).unwrap();
    let mut model: HashMap<u8, u64> = HashMap::new();
    for &op in ops {
        let key = op & 0x7F;
        if op == 0xFF {
            if filter.len() > 1 << 20 {
                continue;
            }
            let copy = filter.clone();
            filter.union(&copy).unwrap();
            model.values_mut().for_each(|c| *c *= 2);
        } else if op & 0x80 == 0 {
            filter.insert(&[key]).unwrap();
            *model.entry(key).or_default() += 1;
        } else if model.get(&key).copied().unwrap_or(0) > 0 {
            assert!(filter.remove(&[key]).is_removed());
            *model.get_mut(&key).unwrap() -= 1;
        }
    }
    for (key, &c) in &model {
        if c > 0 {
            assert!(filter.contains(&[*key]), "key {key} missing");
            assert!(u64::from(filter.count(&[*key]).upper_bound().unwrap()) >= c);
        }
    }
    assert_eq!(filter.len() as u64, model.values().sum::<u64>());
});
