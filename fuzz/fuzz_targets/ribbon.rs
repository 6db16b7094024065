//! The Ribbon filter from arbitrary input, two ways: arbitrary bytes
//! through its loader and its view (an error from both, or filters that
//! answer alike and save back to the same bytes), and arbitrary keys
//! through its construction (every key found, repeats included; a round
//! trip that keeps it).
#![no_main]

use approxset::RibbonFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let loaded = RibbonFilter::from_bytes(data);
    if let Ok(filter) = &loaded {
        let _ = filter.contains_bytes(b"probe");
        let _ = (filter.len(), filter.fp_rate(), filter.parameters());
        assert_eq!(filter.to_bytes().unwrap(), data);
    }
    // The view opens what loads (the checksum aside) and answers alike.
    match (RibbonFilter::view_verified(data), &loaded) {
        (Ok(view), Ok(filter)) => {
            assert_eq!(view.contains_bytes(b"probe"), filter.contains_bytes(b"probe"));
        }
        (Err(_), Err(_)) => {}
        (view, load) => panic!("view {:?}, load {:?}", view.is_ok(), load.is_ok()),
    }
    // Keys: the input split at 0xFF bytes (short keys repeat often); the
    // first byte picks the rate.
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let fp = [0.01, 0.003, 1e-4, 0.5, 1e-9][usize::from(first % 5)];
    let keys: Vec<&[u8]> = rest.split(|&b| b == 0xFF).collect();
    let filter = RibbonFilter::with_fp_rate(fp)
        .seed(u64::from(first))
        .build_bytes(&keys)
        .expect("a build from any keys succeeds");
    assert!(keys.iter().all(|k| filter.contains_bytes(k)));
    let again = RibbonFilter::from_bytes(&filter.to_bytes().unwrap()).unwrap();
    assert_eq!(again, filter);
});
