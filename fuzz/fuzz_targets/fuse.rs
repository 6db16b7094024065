//! The binary fuse filter from arbitrary input, two ways: arbitrary bytes
//! through its loader (an error, or a filter that answers and saves back to
//! the same bytes), and arbitrary keys through its construction (every key
//! found, repeats included; a round trip that keeps it).
#![no_main]

use approxset::BinaryFuseFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(filter) = BinaryFuseFilter::from_bytes(data) {
        let _ = filter.contains_bytes(b"probe");
        let _ = (filter.len(), filter.fp_rate(), filter.parameters());
        assert_eq!(filter.to_bytes().unwrap(), data);
    }
    if let Ok(filter) = approxset::load_membership(data) {
        let _ = filter.contains_bytes(b"probe");
    }
    // Keys: the input split at 0xFF bytes (short keys repeat often); the
    // first byte picks the width.
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let fp = [0.01, 1e-4, 1e-7][usize::from(first % 3)];
    let keys: Vec<&[u8]> = rest.split(|&b| b == 0xFF).collect();
    let filter = BinaryFuseFilter::with_fp_rate(fp)
        .seed(u64::from(first))
        .build_bytes(&keys)
        .expect("a build from any keys succeeds");
    assert!(keys.iter().all(|k| filter.contains_bytes(k)));
    let again = BinaryFuseFilter::from_bytes(&filter.to_bytes().unwrap()).unwrap();
    assert_eq!(again, filter);
});
