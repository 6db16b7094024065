//! Word operations the tables are built from: masks, the position of the
//! `k`-th set bit of a word (broadword, with a table for the last byte),
//! and the write access to a table's words ([`Store`]) that both a
//! `Vec<u64>` and a shard's atomics give.

use approxset_core::format::Words;

/// The low `r` bits set (`r < 64`).
#[inline(always)]
pub(crate) const fn mask(r: u32) -> u64 {
    (1u64 << r) - 1
}

/// The bits `[a, b)` of a word set (`a ≤ b ≤ 64`).
#[inline(always)]
pub(crate) const fn range_mask(a: usize, b: usize) -> u64 {
    if a >= 64 {
        return 0;
    }
    let hi = if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    hi & !((1u64 << a) - 1)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// `SELECT_IN_BYTE[b][j]`: the position of the `j`-th (from 0) set bit of
/// byte `b` (8 when it has none).
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut j) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[b][j] = bit as u8;
                j += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The position of the `k`-th (from 1) set bit of `w` when it has at
/// least `k`, else the number of its set bits: byte counts summed by one
/// multiplication (the last byte is the count), the byte found by a
/// comparison of all eight at once, then the bit in the byte from a table.
/// (The count comes from the same sums, so a caller that walks words
/// counts each once.)
#[inline(always)]
pub(crate) fn select_or_count(w: u64, k: u32) -> Result<u32, u32> {
    debug_assert!(k >= 1);
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i: the set bits of bytes 0..=i (at most 64, so no carries).
    let sums = s.wrapping_mul(ONES);
    let total = (sums >> 56) as u32;
    if total < k {
        return Err(total);
    }
    let k = u64::from(k - 1);
    // High bit of byte i: sums_i ≤ k. The sums grow from byte to byte,
    // so those bytes come first, and their count is the byte that holds
    // the bit sought (below 8: sums_7 = total > k).
    let byte = ((!(((k * ONES) | HIGHS) - sums) & HIGHS).trailing_zeros()) / 8;
    let before = (sums << 8 >> (8 * byte)) & 0xFF;
    let b = ((w >> (8 * byte)) & 0xFF) as usize;
    Ok(8 * byte + u32::from(SELECT_IN_BYTE[b][(k - before) as usize]))
}

/// How a lookup finds the `k`-th set bit of a word ([`select_or_count`]'s
/// contract): with plain arithmetic ([`Portable`]), or with PDEP where the
/// processor has a fast one ([`Pdep`]), in the build [`Pdep::run`]
/// compiles for it.
pub(crate) trait Select: Copy {
    /// As [`select_or_count`].
    fn select_or_count(self, w: u64, k: u32) -> Result<u32, u32>;
}

/// [`select_or_count`] itself: any processor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Portable {
    /// `f`, out of line: the build for processors without a fast PDEP,
    /// kept out of its caller so that the caller's own code (the dispatch
    /// and what a lookup does before it) keeps few registers.
    #[inline(never)]
    pub(crate) fn run<T>(self, f: impl FnOnce() -> T) -> T {
        f()
    }
}

impl Select for Portable {
    #[inline(always)]
    fn select_or_count(self, w: u64, k: u32) -> Result<u32, u32> {
        select_or_count(w, k)
    }
}

/// Proof that the processor has POPCNT, BMI1 and a fast BMI2 PDEP (only
/// [`Pdep::detect`] makes one, and never off x86-64), and the build of a
/// lookup compiled for them: there the set bits are counted by one POPCNT
/// and the `k`-th is found by PDEP of `1 << (k − 1)` into the word and a
/// trailing-zero count. [`with_select!`] chooses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pdep(Proof);

#[cfg(target_arch = "x86_64")]
type Proof = ();
/// Off x86-64 no `Pdep` can be made.
#[cfg(not(target_arch = "x86_64"))]
type Proof = std::convert::Infallible;

impl Pdep {
    /// A `Pdep` when this processor has a fast PDEP
    /// ([`approxset_core::cpu::has_fast_pdep`], cached).
    #[inline(always)]
    pub(crate) fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        return approxset_core::cpu::has_fast_pdep().then_some(Self(()));
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// `f` compiled with POPCNT, BMI1 and BMI2 enabled, so that the
    /// selects and counts inlined into it use them.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn run<T>(self, f: impl FnOnce() -> T) -> T {
        #[cfg(target_arch = "x86_64")]
        {
            /// # Safety
            /// The processor must have POPCNT, BMI1 and BMI2. (An `unsafe
            /// fn`: a safe `#[target_feature]` one needs Rust 1.86, past
            /// the MSRV.)
            #[target_feature(enable = "popcnt,bmi1,bmi2")]
            #[inline(never)]
            unsafe fn with_bmi2<T>(f: impl FnOnce() -> T) -> T {
                f()
            }
            // SAFETY: a `Pdep` exists only when `has_fast_pdep` found
            // POPCNT, BMI1 and BMI2 on this processor; the body is safe
            // code.
            unsafe { with_bmi2(f) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            drop(f);
            match self.0 {}
        }
    }
}

impl Select for Pdep {
    #[inline(always)]
    #[allow(unsafe_code)]
    fn select_or_count(self, w: u64, k: u32) -> Result<u32, u32> {
        debug_assert!(k >= 1);
        let total = w.count_ones();
        if total < k {
            return Err(total);
        }
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `self` proves the processor has BMI2 (`Pdep::detect`).
            let bit = unsafe { std::arch::x86_64::_pdep_u64(1 << (k - 1), w) };
            Ok(bit.trailing_zeros())
        }
        #[cfg(not(target_arch = "x86_64"))]
        match self.0 {}
    }
}

/// `$body` with `$sel` bound to the fastest [`Select`] of this processor:
/// compiled twice, run in the PDEP build ([`Pdep::run`]) where the
/// processor has a fast PDEP, else with [`Portable`] ([`Portable::run`]).
/// Both builds are out of line and the closure moves what it captures,
/// so a caller that passes two words (a reference and the hash) crosses
/// with them in registers and keeps few registers of its own.
macro_rules! with_select {
    (|$sel:ident| $body:expr) => {
        match $crate::bits::Pdep::detect() {
            Some($sel) => $sel.run(move || $body),
            None => $crate::bits::Portable.run(move || {
                let $sel = $crate::bits::Portable;
                $body
            }),
        }
    };
}
pub(crate) use with_select;

/// `PREFIX[x]`: byte `i` is the count of the set bits of byte `x` below
/// bit `i` (so the counts before each of its eight bits, side by side).
static PREFIX: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let (mut i, mut n, mut v) = (0, 0u64, 0u64);
        while i < 8 {
            v |= n << (8 * i);
            n += (x >> i & 1) as u64;
            i += 1;
        }
        t[x] = v;
        x += 1;
    }
    t
};

/// The set bits of each byte of `w`, in that byte.
#[inline(always)]
fn byte_counts(w: u64) -> u64 {
    let s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    let s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F
}

/// A balance that starts at `p ≥ 0` before bit 0 and, at each bit `i`,
/// gains bit `i` of `up` and loses bit `i` of `down`: `Ok(i)` for the
/// first bit before which it is 0, else `Err(its value after bit 63)`.
///
/// Broadword, a byte at a time: it falls within a byte by at most the
/// byte's bits of `down`, so a byte whose starting balance is above that
/// count cannot hold a zero; all eight are compared at once, with the
/// balances at their starts from one multiplication of the bytes' net
/// counts (as in [`select_or_count`]), and only bytes that may hold a zero
/// are looked into, all eight bits at once: the balance before each bit
/// from the counts of `up` and `down` before it in the byte ([`PREFIX`]).
#[inline(always)]
pub(crate) fn first_zero(p: i64, up: u64, down: u64) -> Result<u32, i64> {
    debug_assert!(p >= 0);
    let (cu, cd) = (byte_counts(up), byte_counts(down));
    // Byte k: the sum over bytes 0..=k of their net count plus 8 (at most
    // 16 each, so no carries).
    let sums = (cu + 8 * ONES - cd).wrapping_mul(ONES);
    let before = sums << 8;
    // Byte k: 63 + 8k + cd_k − before_k = 63 + cd_k − (its starting
    // balance − p), in [7, 127]: at least 63 + p exactly when the byte's
    // starting balance is at most its count of `down` bits. (Above 64,
    // `p` is taken as 64, which can only add a byte to walk.)
    const BIAS: u64 = 63 * ONES + 0x3830_2820_1810_0800;
    let g = (BIAS + cd) - before;
    let limit = (p.min(64) as u64 + 63) * ONES;
    let mut bytes = ((g | HIGHS) - limit) & HIGHS;
    while bytes != 0 {
        let k = bytes.trailing_zeros() & !7;
        // The balance at the byte's start (at least 0: no byte before it
        // reached 0), taken as at most 9, which no byte's bits bring to 0.
        let b = p + ((before >> k) & 0xFF) as i64 - i64::from(k);
        debug_assert!(b >= 0);
        // Byte i: the balance before the byte's bit i, less the bits of
        // `down` before it; at most those bits exactly where it is 0 (it
        // moves by at most one a bit, so its first such bit is its first
        // zero).
        let a = b.min(9) as u64 * ONES + PREFIX[((up >> k) & 0xFF) as usize];
        let d = PREFIX[((down >> k) & 0xFF) as usize] + ONES;
        let zeros = !((a | HIGHS) - d) & HIGHS;
        if zeros != 0 {
            return Ok(k + zeros.trailing_zeros() / 8);
        }
        bytes &= bytes - 1;
    }
    Err(p + (sums >> 56) as i64 - 64)
}

/// Write access to a table's words: a `Vec<u64>` (an owned filter) or a
/// shard's atomic words (through its writer).
pub(crate) trait Store: Words {
    /// Sets word `i`.
    fn set_word(&mut self, i: usize, value: u64);
    /// Extends the words with zeros to `n` words, or says `false` when
    /// the storage cannot (then nothing changes).
    fn extend_to(&mut self, n: usize) -> bool;

    /// Words `[at, at + n)` (`at ≥ 1`), with word `at − 1` below them read
    /// as one bit string, moved up by `sh` bits (`0 < sh < 64`): each word
    /// becomes `w << sh | below >> (64 − sh)`, `below` the old word before
    /// it. (A `Vec` does it over a slice, with no bounds check a word.)
    #[inline(always)]
    fn words_up(&mut self, at: usize, n: usize, sh: u32) {
        for i in (at..at + n).rev() {
            self.set_word(i, (self.word(i) << sh) | (self.word(i - 1) >> (64 - sh)));
        }
    }

    /// Words `[at, at + n)`, with word `at + n` above them read as one bit
    /// string, moved down by `sh` bits (`0 < sh < 64`): each word becomes
    /// `w >> sh | above << (64 − sh)`, `above` the old word after it.
    #[inline(always)]
    fn words_down(&mut self, at: usize, n: usize, sh: u32) {
        for i in at..at + n {
            self.set_word(i, (self.word(i) >> sh) | (self.word(i + 1) << (64 - sh)));
        }
    }
}

impl Store for Vec<u64> {
    #[inline(always)]
    fn set_word(&mut self, i: usize, value: u64) {
        self[i] = value;
    }

    #[inline(always)]
    fn words_up(&mut self, at: usize, n: usize, sh: u32) {
        // (Bottom up, the old word below carried.)
        let mut below = self[at - 1];
        for w in &mut self[at..at + n] {
            (*w, below) = ((*w << sh) | (below >> (64 - sh)), *w);
        }
    }

    #[inline(always)]
    fn words_down(&mut self, at: usize, n: usize, sh: u32) {
        // (Top down, the old word above carried.)
        let mut above = self[at + n];
        for w in self[at..at + n].iter_mut().rev() {
            (*w, above) = ((*w >> sh) | (above << (64 - sh)), *w);
        }
    }

    fn extend_to(&mut self, n: usize) -> bool {
        if n > self.len() {
            self.resize(n, 0);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_finds_every_bit() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for w in [x, x & (x >> 1), x | (x << 3), u64::MAX, 1 << 63, 1] {
                let mut rest = w;
                for k in 1..=w.count_ones() {
                    assert_eq!(
                        select_or_count(w, k),
                        Ok(rest.trailing_zeros()),
                        "{w:#x} {k}"
                    );
                    rest &= rest - 1;
                }
                assert_eq!(select_or_count(w, w.count_ones() + 1), Err(w.count_ones()));
            }
        }
    }

    /// The PDEP select against the portable one, where the processor has
    /// a fast PDEP (else there is nothing to compare).
    #[test]
    fn pdep_select_matches_the_portable_one() {
        let Some(pdep) = Pdep::detect() else { return };
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        pdep.run(|| {
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for w in [x, x & (x >> 1), x | (x << 3), u64::MAX, 1 << 63, 1, 0] {
                    for k in 1..=66 {
                        assert_eq!(
                            pdep.select_or_count(w, k),
                            select_or_count(w, k),
                            "{w:#x} {k}"
                        );
                    }
                }
            }
        });
    }

    /// [`first_zero`] against its definition, bit by bit.
    #[test]
    fn first_zero_matches_a_bit_by_bit_walk() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = move || approxset_core::hash::splitmix64(&mut x);
        for _ in 0..20_000 {
            let (a, b) = (rand(), rand());
            // Dense and sparse words, and ones with more of either bit.
            for (up, down) in [(a, b), (a & b, a | b), (a | b, a & b), (a & rand(), b)] {
                for p in (0..70).chain([100, 1000]) {
                    let mut bal = p;
                    let mut want = None;
                    for i in 0..64 {
                        if bal == 0 {
                            want = Some(i);
                            break;
                        }
                        bal += ((up >> i) & 1) as i64 - ((down >> i) & 1) as i64;
                    }
                    let got = first_zero(p, up, down);
                    match want {
                        Some(i) => assert_eq!(got, Ok(i), "{up:#x} {down:#x} {p}"),
                        None => assert_eq!(got, Err(bal), "{up:#x} {down:#x} {p}"),
                    }
                }
            }
        }
    }

    #[test]
    fn masks() {
        assert_eq!(range_mask(0, 64), u64::MAX);
        assert_eq!(range_mask(3, 3), 0);
        assert_eq!(range_mask(1, 4), 0b1110);
        assert_eq!(range_mask(60, 64), 0xF << 60);
        assert_eq!(mask(7), 127);
    }
}
