//! Keys shared by the benchmarks.

/// SplitMix64 started at `x`: a bijection of `u64`, so distinct inputs give
/// distinct keys.
fn splitmix(mut x: u64) -> u64 {
    approxset::hash::splitmix64(&mut x)
}

/// `n` random members and `n` random non-members (disjoint, since they come
/// from disjoint index ranges through a bijection).
pub(crate) fn keys(n: usize) -> (Vec<u64>, Vec<u64>) {
    let members = (0..n as u64).map(splitmix).collect();
    let others = (0..n as u64).map(|i| splitmix(i + (1 << 40))).collect();
    (members, others)
}
