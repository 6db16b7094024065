//! The split-block kernel: Parquet's block and bit choice, and the lookup
//! and insert of one 256-bit block, compiled portably and for AVX2 (see the
//! [split-block filter](crate::SplitBlockBloomFilter) for the layout).

use approxset_core::Digest;
use approxset_core::format::Words;
use approxset_core::sizing::SPLIT_BLOCK_BITS;

/// Parquet's salts: the odd multipliers of the eight words.
pub(crate) const SALTS: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// `u64` words per block.
pub(crate) const BLOCK_WORDS: usize = (SPLIT_BLOCK_BITS / 64) as usize;

/// The block of `hash` among `blocks` (at most 2^32): Parquet's
/// multiply-shift of the high 32 bits.
#[inline(always)]
pub(crate) fn block_index(hash: u64, blocks: u64) -> u64 {
    ((hash >> 32) * blocks) >> 32
}

/// The bit of word `i` that `hash` sets: the top five bits of its low 32
/// bits times the word's salt.
#[inline(always)]
pub(crate) fn bit_in_word(hash: u64, i: usize) -> u32 {
    (hash as u32).wrapping_mul(SALTS[i]) >> 27
}

/// The eight one-bit word masks of `hash`, one per 32-bit word.
#[inline(always)]
fn masks(hash: u64) -> [u32; 8] {
    let mut lanes = [0u32; 8];
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane = 1 << bit_in_word(hash, i);
    }
    lanes
}

/// The block's eight 32-bit words: word 2w is the low half of `u64` word
/// w, word 2w + 1 the high half (a reinterpretation on a little-endian
/// processor, which the compiler sees through).
#[inline(always)]
fn lanes(block: &[u64; BLOCK_WORDS]) -> [u32; 8] {
    let mut lanes = [0u32; 8];
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane = (block[i / 2] >> (32 * (i % 2))) as u32;
    }
    lanes
}

/// A block operation, written once and compiled both portably and for AVX2
/// ([`run`]).
trait BlockOp {
    type Out;
    fn apply(self) -> Self::Out;
}

/// Whether every mask bit of a key is set in its block (read from the
/// filter's words or a view's bytes: one 32-byte load either way).
struct Lookup<'a, W: Words + ?Sized> {
    words: &'a W,
    hash: u64,
}

impl<W: Words + ?Sized> BlockOp for Lookup<'_, W> {
    type Out = bool;
    #[inline(always)]
    fn apply(self) -> bool {
        // The block is read here, inside the build that tests it: read by
        // the caller and passed by value into the AVX2 function, it went
        // through the stack as four 8-byte stores and one 32-byte load,
        // which the store buffer cannot forward (twice the time per lookup).
        let block = block(self.words, self.hash);
        let masks = masks(self.hash);
        // One OR of what is missing, one comparison: no branch per word.
        let missing = lanes(&block)
            .iter()
            .zip(masks)
            .fold(0, |missing, (word, mask)| missing | (mask & !word));
        missing == 0
    }
}

/// Appends to `out` whether each digest may be in the filter whose bits
/// are `words`: the whole loop is one operation, so on the AVX2 build the
/// lookup is inlined into it and the build is chosen once per batch.
struct Lookups<'a, W: Words + ?Sized> {
    words: &'a W,
    digests: &'a [Digest],
    out: &'a mut Vec<bool>,
}

impl<W: Words + ?Sized> BlockOp for Lookups<'_, W> {
    type Out = ();
    #[inline(always)]
    fn apply(self) {
        // A plain loop, not `extend(map(..))`: the iterator's `fold` is a
        // function of its own, built without AVX2, and the lookup inlined
        // into it would be the portable one.
        self.out.reserve(self.digests.len());
        for digest in self.digests {
            let hash = digest.h1();
            let found = Lookup {
                words: self.words,
                hash,
            }
            .apply();
            self.out.push(found);
        }
    }
}

/// Sets a key's mask bits in its block; how many were clear.
struct Insert<'a> {
    block: &'a mut [u64; BLOCK_WORDS],
    hash: u64,
}

impl BlockOp for Insert<'_> {
    type Out = u32;
    #[inline(always)]
    fn apply(self) -> u32 {
        let masks = masks(self.hash);
        // One bit per word: a word gains a bit exactly when its mask bit
        // was clear (a lane comparison, not a population count).
        let new = lanes(self.block)
            .iter()
            .zip(masks)
            .map(|(word, mask)| u32::from(mask & !word != 0))
            .sum();
        for (w, word) in self.block.iter_mut().enumerate() {
            *word |= u64::from(masks[2 * w]) | (u64::from(masks[2 * w + 1]) << 32);
        }
        new
    }
}

/// Choosing the build at run time: on x86-64 compiled without AVX2 (the
/// default target), detect it once and call the AVX2 build through one
/// `unsafe` call. (Compiled for AVX2, `-C target-cpu=native` on such a
/// processor, there is nothing to choose; elsewhere there is no AVX2.)
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
mod dispatch {
    use super::BlockOp;

    /// `op` compiled for AVX2 (the 32-bit lane multiply and per-lane
    /// shifts).
    ///
    /// # Safety
    /// The processor must have AVX2. (An `unsafe fn` rather than a safe
    /// `#[target_feature]` one, which needs Rust 1.86, past the MSRV.)
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    unsafe fn apply_avx2<O: BlockOp>(op: O) -> O::Out {
        op.apply()
    }

    /// `op` on the portable build, out of line: inlined beside the AVX2
    /// call, its scalar code's registers made every lookup save and
    /// restore five (52 instructions per lookup from a digest, against 25
    /// without; `docs/design.md`, "Split-block and fast hashes: measured").
    #[inline(never)]
    fn apply_portable<O: BlockOp>(op: O) -> O::Out {
        op.apply()
    }

    /// Runs `op` on the AVX2 build when `avx2` is asked for and the
    /// processor has it, else on the portable build. The one `unsafe`
    /// call of the layout.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(super) fn run<O: BlockOp>(op: O, avx2: bool) -> O::Out {
        if avx2 && approxset_core::cpu::has_avx2() {
            // SAFETY: `apply_avx2` needs AVX2, and `has_avx2` has just
            // found it on this processor (`is_x86_feature_detected!`,
            // cached); the function's body is safe code with no other
            // precondition.
            return unsafe { apply_avx2(op) };
        }
        apply_portable(op)
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
use dispatch::run;

/// Runs `op` as it is compiled: for AVX2 where the target has it, portably
/// elsewhere.
#[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx2"))))]
#[inline(always)]
fn run<O: BlockOp>(op: O, _avx2: bool) -> O::Out {
    op.apply()
}

/// The index of the first word of `hash`'s block in `words` (whole
/// blocks).
#[inline(always)]
fn block_start<W: Words + ?Sized>(words: &W, hash: u64) -> usize {
    let blocks = (words.word_count() / BLOCK_WORDS) as u64;
    block_index(hash, blocks) as usize * BLOCK_WORDS
}

/// The block of `hash` in `words` (whole blocks), by value: one 32-byte
/// load from a filter's words or (little-endian) from a view's bytes.
#[inline(always)]
fn block<W: Words + ?Sized>(words: &W, hash: u64) -> [u64; BLOCK_WORDS] {
    words.block(block_start(words, hash))
}

/// Whether `digest` may be in the filter whose bits are `words`.
#[inline]
pub(crate) fn contains<W: Words + ?Sized>(words: &W, digest: Digest) -> bool {
    contains_on(words, digest, true)
}

/// [`contains`], on the AVX2 build when `avx2` and the processor has it.
#[inline]
fn contains_on<W: Words + ?Sized>(words: &W, digest: Digest, avx2: bool) -> bool {
    let hash = digest.h1();
    run(Lookup { words, hash }, avx2)
}

/// Appends to `out` whether each of `digests` may be in the filter whose
/// bits are `words`, in order.
#[inline]
pub(crate) fn contains_all<W: Words + ?Sized>(words: &W, digests: &[Digest], out: &mut Vec<bool>) {
    contains_all_on(words, digests, out, true)
}

/// [`contains_all`], on the AVX2 build when `avx2` and the processor has it.
#[inline]
fn contains_all_on<W: Words + ?Sized>(
    words: &W,
    digests: &[Digest],
    out: &mut Vec<bool>,
    avx2: bool,
) {
    run(
        Lookups {
            words,
            digests,
            out,
        },
        avx2,
    )
}

/// Sets `digest`'s eight bits in `words`; how many were clear.
#[inline]
pub(crate) fn insert(words: &mut [u64], digest: Digest) -> u32 {
    insert_on(words, digest, true)
}

/// [`insert`], on the AVX2 build when `avx2` and the processor has it.
#[inline]
fn insert_on(words: &mut [u64], digest: Digest, avx2: bool) -> u32 {
    let hash = digest.h1();
    let at = block_start(&*words, hash);
    let block = (&mut words[at..at + BLOCK_WORDS])
        .try_into()
        .expect("a whole block");
    run(Insert { block, hash }, avx2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approxset_core::hash::splitmix64;

    fn digest(state: &mut u64) -> Digest {
        Digest::new(splitmix64(state), splitmix64(state))
    }

    #[test]
    fn the_portable_and_avx2_builds_answer_alike() {
        // On a processor without AVX2 both calls run the portable build;
        // the cached detection agrees with the processor's (twice: the
        // second call reads the cache).
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        for _ in 0..2 {
            assert_eq!(
                approxset_core::cpu::has_avx2(),
                std::is_x86_feature_detected!("avx2")
            );
        }
        let mut state = 0x5B_BF00;
        let (mut hits, mut misses) = (0, 0);
        for blocks in [1usize, 3, 64, 1000] {
            let mut portable = vec![0u64; blocks * BLOCK_WORDS];
            let mut avx2 = portable.clone();
            // Fill to 60 keys per block (a false-positive rate of about a
            // quarter), asking both builds along the way: a growing mix of
            // hits and misses.
            for step in 0..blocks * 60 {
                let d = digest(&mut state);
                assert_eq!(
                    insert_on(&mut portable, d, false),
                    insert_on(&mut avx2, d, true),
                    "insert {step}"
                );
                assert_eq!(portable, avx2);
                for _ in 0..4 {
                    let q = digest(&mut state);
                    let a = contains_on(&portable, q, false);
                    assert_eq!(a, contains_on(&portable, q, true), "lookup at {step}");
                    if a { hits += 1 } else { misses += 1 }
                }
                assert!(contains_on(&portable, d, false) && contains_on(&portable, d, true));
            }
            // The batched loop, on both builds, answers each key as one
            // lookup does, appending to what `out` held.
            let queries: Vec<Digest> = (0..4_000).map(|_| digest(&mut state)).collect();
            let one: Vec<bool> = queries.iter().map(|&q| contains(&portable, q)).collect();
            for avx2 in [false, true] {
                let mut out = vec![true];
                contains_all_on(&portable, &queries, &mut out, avx2);
                assert!(out[0], "what out held stays");
                assert_eq!(out[1..], one, "{blocks} blocks, avx2 {avx2}");
            }
        }
        assert!(hits > 1000 && misses > 1000, "{hits} hits, {misses} misses");
    }
}
