//! SplitMix64 and its output function: the seeded streams and the mixing
//! of the family.

/// SplitMix64 (Steele, Lea and Flood 2014): advances `state` by the golden
/// gamma and returns the next number of the sequence. Every seeded stream
/// of the family (hash keys from seeds, the cuckoo filter's kicks, the
/// CLI's and the tests' random keys) comes from this one function.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::hash::splitmix64;
/// let mut state = 0;
/// assert_eq!(splitmix64(&mut state), 0xE220_A839_7B1D_CDAF);
/// ```
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(SPLITMIX64_GAMMA);
    mix64(*state)
}

/// The increment of [`splitmix64`]'s state: 2⁶⁴ divided by the golden
/// ratio, rounded to odd.
pub const SPLITMIX64_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (the finaliser of MurmurHash3 with
/// Stafford's "Mix13" constants): a bijection of `u64` whose every output
/// bit depends on every input bit. `splitmix64` is this of its advanced
/// state; `const`, so tables can be derived from it at compile time.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::hash::{SPLITMIX64_GAMMA, mix64, splitmix64};
/// let mut state = 0;
/// assert_eq!(splitmix64(&mut state), mix64(SPLITMIX64_GAMMA));
/// ```
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
