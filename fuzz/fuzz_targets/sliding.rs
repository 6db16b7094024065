//! The sliding-window filter from arbitrary input, two ways: arbitrary
//! bytes through its loader (an error, or a filter that takes inserts,
//! advances and saves back), and arbitrary operations on a small filter
//! checked against an exact queue of the last `W` keys (no key of the
//! window is ever missing).
#![no_main]

use std::collections::VecDeque;

use approxset::SlidingBloomFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut filter) = SlidingBloomFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes().unwrap(), data);
        let _ = (filter.estimated_fp_rate(), filter.estimated_items(), filter.parameters());
        filter.insert_bytes(b"probe").unwrap();
        assert!(filter.contains_bytes(b"probe"));
        filter.advance();
        let _ = filter.advance_to(filter.tick().saturating_add(u64::from(data[0])));
        let again = filter.to_bytes().unwrap();
        assert_eq!(SlidingBloomFilter::from_bytes(&again).unwrap(), filter);
    }
    // Operations: the first two bytes pick the window (1..=64) and the
    // rate; each further byte inserts key `byte`, or (0xFF) advances.
    let [w, p, ops @ ..] = data else {
        return;
    };
    let window = usize::from(w % 64) + 1;
    let fp_rate = [0.5, 0.1, 0.01, 0.001][usize::from(p % 4)];
    let mut filter = SlidingBloomFilter::with_fp_rate(fp_rate)
        .seed(1)
        .window(window)
        .unwrap();
    let mut recent: VecDeque<u8> = VecDeque::new();
    for &op in ops {
        if op == 0xFF {
            // An early end of a generation forgets at most a generation
            // early: only the last l generations' keys stay guaranteed, so
            // the exact model restarts from the keys inserted after it.
            filter.advance();
            recent.clear();
            continue;
        }
        filter.insert(&[op]).unwrap();
        recent.push_back(op);
        if recent.len() > window {
            recent.pop_front();
        }
        for key in &recent {
            assert!(filter.contains(&[*key]), "key {key} of the window missing");
        }
    }
});
