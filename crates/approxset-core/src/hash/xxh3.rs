//! XXH3-128 of exactly 8 bytes (an integer key's): what xxhash-rust's
//! `xxh3_128_with_seed` computes for them (XXH3's `len_4to8_128b` path with
//! the default secret), without its dispatch on the length (measured at
//! its one caller, `digest_other` in `hash.rs`).

/// Bytes 16..24 and 24..32 of XXH3's default secret, read little-endian.
const SECRET_16: u64 = u64::from_le_bytes([0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb]);
const SECRET_24: u64 = u64::from_le_bytes([0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f]);
/// xxHash's `PRIME64_1`.
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
/// XXH3's `PRIME_MX2`.
const PRIME_MX2: u64 = 0x9FB2_1C65_1E98_DF25;

/// XXH3-128 with `seed` of the 8 little-endian bytes of `x`.
#[inline(always)]
pub(crate) fn xxh3_128_u64(x: u64, seed: u64) -> u128 {
    let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
    let keyed = x ^ (SECRET_16 ^ SECRET_24).wrapping_add(seed);
    // The length, 8, shifted left by 2.
    let m = u128::from(keyed) * u128::from(PRIME64_1.wrapping_add(8 << 2));
    let (mut lo, mut hi) = (m as u64, (m >> 64) as u64);
    hi = hi.wrapping_add(lo << 1);
    lo ^= hi >> 3;
    lo ^= lo >> 35;
    lo = lo.wrapping_mul(PRIME_MX2);
    lo ^= lo >> 28;
    // XXH3's avalanche.
    hi ^= hi >> 37;
    hi = hi.wrapping_mul(0x1656_6791_9E37_79F9);
    hi ^= hi >> 32;
    u128::from(lo) | (u128::from(hi) << 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::splitmix64;
    use xxhash_rust::xxh3::xxh3_128_with_seed;

    #[test]
    fn eight_bytes_hash_as_xxhash_rust_hashes_them() {
        let mut s = 1;
        let edges = [0, 1, u64::MAX, 1 << 63, u64::from(u32::MAX)];
        for (i, &e) in edges.iter().enumerate() {
            for seed in [0, e, u64::MAX, 0x0123_4567_89ab_cdef] {
                assert_eq!(
                    xxh3_128_u64(e, seed),
                    xxh3_128_with_seed(&e.to_le_bytes(), seed),
                    "edge {i}"
                );
            }
        }
        for _ in 0..100_000 {
            let (x, seed) = (splitmix64(&mut s), splitmix64(&mut s));
            assert_eq!(
                xxh3_128_u64(x, seed),
                xxh3_128_with_seed(&x.to_le_bytes(), seed)
            );
        }
    }
}
