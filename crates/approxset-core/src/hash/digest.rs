//! A key's [`Digest`] and the positions filters derive from it: the
//! [`ProbeScheme`], its [`Probes`] and [`reduce`].

use super::mix::SPLITMIX64_GAMMA;

/// The 128-bit digest of one key, in two 64-bit halves.
///
/// Filters derive everything they need (bit positions, fingerprints, buckets)
/// from the digest, so a key hashed once can be inserted into or looked up in
/// several filters that share a [`HashKey`](crate::HashKey). Users who hash keys themselves
/// build digests with [`Digest::new`]; the two halves should be independent
/// and uniformly distributed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Digest {
    h1: u64,
    h2: u64,
}

impl Digest {
    /// A digest from its two halves.
    pub const fn new(h1: u64, h2: u64) -> Self {
        Digest { h1, h2 }
    }

    /// A digest from a 128-bit hash: `h1` is the low half, `h2` the high half.
    pub const fn from_u128(hash: u128) -> Self {
        Digest {
            h1: hash as u64,
            h2: (hash >> 64) as u64,
        }
    }

    /// The 128-bit hash this digest was made of.
    pub const fn to_u128(self) -> u128 {
        (self.h1 as u128) | ((self.h2 as u128) << 64)
    }

    /// The first half.
    pub const fn h1(self) -> u64 {
        self.h1
    }

    /// The second half.
    pub const fn h2(self) -> u64 {
        self.h2
    }

    /// The endless sequence of 64-bit probe hashes of enhanced double hashing
    /// (Dillinger and Manolios 2004, after Kirsch and Mitzenmacher 2006):
    /// `x₀ = h1`, `xᵢ₊₁ = xᵢ + yᵢ`, `yᵢ₊₁ = yᵢ + i + 1`, with `y₀ = h2 | 1`
    /// so that the step is never zero, all arithmetic wrapping modulo 2⁶⁴;
    /// in closed form `xᵢ = h1 + i·y₀ + (i³ − i)/6`.
    ///
    /// Map each probe to a position with [`reduce`], which uses the high bits,
    /// so positions are uniform for any range up to 2⁶⁴.
    #[inline]
    pub const fn probes(self) -> Probes {
        Probes {
            x: self.h1,
            y: self.h2 | 1,
            i: 0,
        }
    }

    /// The first `k` probes of [`probes`](Self::probes): the same values,
    /// with the count kept in the sequence's own step counter, so that a
    /// filter's loop over its `k` probes carries one counter, not two.
    ///
    /// ```
    /// # extern crate approxset_core as approxset;
    /// use approxset::Digest;
    /// let d = Digest::new(3, 8);
    /// assert!(d.first_probes(5).eq(d.probes().take(5)));
    /// ```
    #[inline]
    pub const fn first_probes(self, k: u32) -> FirstProbes {
        FirstProbes {
            probes: self.probes(),
            left: k,
        }
    }

    /// Probe `i` of [`probes`](Self::probes) alone, by the closed form
    /// `h1 + i·y₀ + (i³ − i)/6`: for a filter that reads a key's probes in
    /// another order than the sequence's (the sliding filter's slices).
    #[inline]
    pub const fn probe(self, i: u32) -> u64 {
        // (i³ − i)/6 exactly, then modulo 2⁶⁴ as the recurrence's wrapping
        // sums are: in 64 bits while i³ fits (every filter's probe count),
        // in 128 bits past it (a 128-bit division is a library call).
        let tail = if i < 1 << 21 {
            let i = i as u64;
            (i * i * i - i) / 6
        } else {
            let wide = i as u128;
            ((wide * wide * wide - wide) / 6) as u64
        };
        self.h1
            .wrapping_add((i as u64).wrapping_mul(self.h2 | 1))
            .wrapping_add(tail)
    }
}

/// How a Bloom filter turns a digest's [`probes`](Digest::probes) into
/// positions, recorded in its saved file (`docs/format.md`).
///
/// Enhanced double hashing alone puts a key's probes on one arithmetic
/// progression of two parameters, so two keys whose `(h1, h2)` are close
/// share most positions: harmless in a filter of millions of bits, but in a
/// filter of a few dozen bits (a one-key filter at 0.1 % has 15) it made the
/// false-positive rate up to 22 times its target. Mixing each probe before
/// it is reduced ([`mix_probe`]) makes the positions depend on all 64 bits
/// of the probe, so they behave as independent at every size (why, and the
/// measurements: `docs/design.md`, "Small filters").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProbeScheme {
    /// Each probe of enhanced double hashing reduced as it is: the only
    /// scheme of format version 1, kept so that files written then answer
    /// as they always did.
    DoubleHashing,
    /// Each probe passed through [`mix_probe`] before it is reduced: the
    /// scheme of every Bloom filter built since format version 2.
    #[default]
    Mixed,
}

impl ProbeScheme {
    /// The scheme's number in the format: 0 for double hashing, 1 for mixed.
    pub const fn code(self) -> u32 {
        match self {
            ProbeScheme::DoubleHashing => 0,
            ProbeScheme::Mixed => 1,
        }
    }

    /// The scheme numbered `code` in the format, if any.
    pub const fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(ProbeScheme::DoubleHashing),
            1 => Some(ProbeScheme::Mixed),
            _ => None,
        }
    }

    /// The 64-bit hash of probe `x` under this scheme, ready for [`reduce`].
    #[inline(always)]
    pub const fn finish(self, x: u64) -> u64 {
        match self {
            ProbeScheme::DoubleHashing => x,
            ProbeScheme::Mixed => mix_probe(x),
        }
    }
}

/// The mix of [`ProbeScheme::Mixed`]: the probe's high half folded onto its
/// low half, then multiplied by 2⁶⁴/φ (Fibonacci hashing), so that the top
/// bits, which [`reduce`] reads, depend on every bit of the probe. One
/// multiply: SplitMix64's two-round [`mix64`](super::mix64) measured no better here
/// (`docs/design.md`, "Small filters") at twice the instructions.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::hash::mix_probe;
/// assert_eq!(mix_probe(1), 0x9E37_79B9_7F4A_7C15);
/// assert_eq!(mix_probe(1 << 32), 0x9E37_79B9_7F4A_7C15u64.wrapping_mul((1 << 32) | 1));
/// ```
#[inline(always)]
pub const fn mix_probe(x: u64) -> u64 {
    (x ^ (x >> 32)).wrapping_mul(SPLITMIX64_GAMMA)
}

/// The probe sequence of a [`Digest`]; see [`Digest::probes`].
#[derive(Clone, Debug)]
pub struct Probes {
    x: u64,
    y: u64,
    i: u64,
}

impl Iterator for Probes {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let out = self.x;
        self.x = self.x.wrapping_add(self.y);
        self.i = self.i.wrapping_add(1);
        self.y = self.y.wrapping_add(self.i);
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The first `k` probes of a [`Digest`]; see [`Digest::first_probes`].
#[derive(Clone, Debug)]
pub struct FirstProbes {
    probes: Probes,
    left: u32,
}

impl Iterator for FirstProbes {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.probes.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.left as usize;
        (left, Some(left))
    }
}

impl ExactSizeIterator for FirstProbes {}

/// Maps a uniform 64-bit hash to `0..range` by multiply-shift (Lemire):
/// `(hash · range) >> 64`, computed in 128 bits, so it is exact for every
/// range up to 2⁶⁴ and needs no division.
///
/// Returns 0 when `range` is 0.
#[inline]
pub const fn reduce(hash: u64, range: u64) -> u64 {
    ((hash as u128 * range as u128) >> 64) as u64
}
