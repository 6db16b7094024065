//! Keys shared by the benchmarks.

/// SplitMix64's output function: a bijection of `u64`, so distinct inputs
/// give distinct keys.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `n` random members and `n` random non-members (disjoint, since they come
/// from disjoint index ranges through a bijection).
pub(crate) fn keys(n: usize) -> (Vec<u64>, Vec<u64>) {
    let members = (0..n as u64).map(splitmix).collect();
    let others = (0..n as u64).map(|i| splitmix(i + (1 << 40))).collect();
    (members, others)
}
