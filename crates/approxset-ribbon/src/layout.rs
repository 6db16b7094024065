//! The shape of a Ribbon filter's solution: blocks of 128 slots, the
//! columns (result bits) each block stores, and the sizing that picks both
//! for `n` keys at a target rate (`ribbon.rs` explains the math).

use approxset_core::{Error, Result};

/// Bits of a coefficient row, `w`: a key's equation spans 128 consecutive
/// slots, and the solution is stored in blocks of 128 slots.
pub const COEFFICIENT_BITS: u32 = 128;

/// `w` as an index.
pub(crate) const W: usize = COEFFICIENT_BITS as usize;

/// The most columns (result bits) a block stores: 32, a rate of 2⁻³².
pub const MAX_COLUMNS: u32 = 32;

/// The least false-positive rate a filter reaches: 2⁻³², with 32 columns.
pub const MIN_FP_RATE: f64 = 1.0 / 4_294_967_296.0;

/// The most blocks a filter may have (2³² − 1, some 5.5·10¹¹ slots).
pub(crate) const MAX_BLOCKS: u64 = u32::MAX as u64;

/// Slots over keys for which construction succeeds with probability about
/// 0.95, at `2^k` slots for `k = 8…17` (RocksDB's measurements for
/// `w = 128` without smashing, `util/ribbon_config.cc`, `kOneIn20`); past
/// 2¹⁷ slots the factor grows by [`FACTOR_PER_DOUBLING`] per doubling.
const KNOWN_FACTORS: [f64; 10] = [
    1.0287, 1.0250, 1.0227, 1.0220, 1.0226, 1.0240, 1.0262, 1.0295, 1.0329, 1.0361,
];

/// Growth of the slots-over-keys factor per doubling of the slots past 2¹⁷.
const FACTOR_PER_DOUBLING: f64 = 0.0038;

/// Slots over keys that `n` keys need for a construction to succeed with
/// probability about 0.95 (see [`KNOWN_FACTORS`]).
pub(crate) fn slot_factor(n: usize) -> f64 {
    let log2_slots = (n as f64 * 1.03).max(1.0).log2();
    if log2_slots <= 8.0 {
        KNOWN_FACTORS[0]
    } else if log2_slots >= 17.0 {
        KNOWN_FACTORS[9] + FACTOR_PER_DOUBLING * (log2_slots - 17.0)
    } else {
        let i = (log2_slots - 8.0).floor() as usize;
        let t = log2_slots - 8.0 - i as f64;
        KNOWN_FACTORS[i] * (1.0 - t) + KNOWN_FACTORS[(i + 1).min(9)] * t
    }
}

/// The blocks `n` keys take: `⌈n · factor / 128⌉`, at least one for a key.
pub(crate) fn blocks_for(n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    let slots = (n as f64 * slot_factor(n)).ceil();
    ((slots / W as f64).ceil() as u64).max(1)
}

/// The columns a rate needs: `r = ⌊log₂(1/p)⌋` for the lower blocks, and
/// the share `φ` of start positions that may fall in them (the others
/// have `r + 1` columns) for an expected rate of exactly `p`:
/// `φ·2⁻ʳ + (1 − φ)·2⁻⁽ʳ⁺¹⁾ = p`, so `φ = 2ʳ⁺¹·p − 1`.
///
/// # Errors
/// [`Error::InvalidParameter`] named `fp_rate` outside (0, 1) or below
/// [`MIN_FP_RATE`].
pub fn columns_for(fp_rate: f64) -> Result<(u32, f64)> {
    if !(fp_rate > 0.0 && fp_rate < 1.0) {
        return Err(Error::invalid(
            "fp_rate",
            format!("must be in (0, 1), got {fp_rate}"),
        ));
    }
    if fp_rate < MIN_FP_RATE {
        return Err(Error::invalid(
            "fp_rate",
            format!("{fp_rate:e} is below 2^-32, what 32 columns reach"),
        ));
    }
    // 2^-(r+1) < p ≤ 2^-r, the float estimate corrected either way.
    let mut r = (-fp_rate.log2()).floor().clamp(0.0, 32.0) as u32;
    while r > 0 && (-f64::from(r)).exp2() < fp_rate {
        r -= 1;
    }
    while r < MAX_COLUMNS && (-f64::from(r + 1)).exp2() >= fp_rate {
        r += 1;
    }
    let lower_share = ((f64::from(r) + 1.0).exp2() * fp_rate - 1.0).clamp(0.0, 1.0);
    Ok((r, if r == MAX_COLUMNS { 1.0 } else { lower_share }))
}

/// Where a filter's solution lies: `blocks` blocks of 128 slots, those
/// before `upper_start` with `lower` columns, the others with `lower + 1`;
/// each column of a block is one 128-bit word, the block's words together
/// (interleaved column-major storage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    blocks: usize,
    lower: u32,
    upper_start: usize,
    /// Start positions: `128·(blocks − 1) + 1`, or 0 for no blocks.
    starts: u64,
}

impl Layout {
    /// The layout of these fields, checked against each other: at most
    /// [`MAX_BLOCKS`] blocks and [`MAX_COLUMNS`] columns in any block,
    /// `upper_start ≤ blocks`, and no blocks but for an empty layout.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the field.
    pub(crate) fn new(blocks: u64, lower: u32, upper_start: u64) -> Result<Self> {
        if blocks > MAX_BLOCKS {
            return Err(Error::corrupt(format!(
                "{blocks} blocks pass the limit of {MAX_BLOCKS}"
            )));
        }
        if upper_start > blocks {
            return Err(Error::corrupt(format!(
                "the upper columns start at block {upper_start}, past the {blocks} blocks"
            )));
        }
        if lower > MAX_COLUMNS {
            return Err(Error::corrupt(format!(
                "blocks of {lower} columns pass the limit of {MAX_COLUMNS}"
            )));
        }
        if lower == MAX_COLUMNS && upper_start < blocks {
            return Err(Error::corrupt(format!(
                "upper blocks of {} columns pass the limit of {MAX_COLUMNS}",
                MAX_COLUMNS + 1
            )));
        }
        if blocks == 0 && (lower != 0 || upper_start != 0) {
            return Err(Error::corrupt(
                "an empty filter has no columns and no upper start",
            ));
        }
        // Within u64: at most 2³² blocks of 128 slots. On a 32-bit target
        // the sizes are checked against the bytes read before use.
        let to_usize = |v: u64| {
            usize::try_from(v).map_err(|_| Error::corrupt(format!("{v} does not fit in usize")))
        };
        Ok(Layout {
            blocks: to_usize(blocks)?,
            lower,
            upper_start: to_usize(upper_start)?,
            starts: if blocks == 0 {
                0
            } else {
                (blocks - 1) * W as u64 + 1
            },
        })
    }

    /// The layout of `blocks` blocks for a target rate: the lower blocks
    /// as many as the rate's lower share of start positions allows.
    ///
    /// # Errors
    /// As [`columns_for`]; [`Error::TooLarge`] past [`MAX_BLOCKS`].
    pub(crate) fn for_rate(blocks: u64, fp_rate: f64) -> Result<Self> {
        let (lower, share) = columns_for(fp_rate)?;
        if blocks > MAX_BLOCKS {
            // Reported in bytes of solution, as every size limit is.
            return Err(Error::TooLarge {
                needed: u128::from(blocks) * 16 * u128::from(lower + 1),
                limit: u128::from(MAX_BLOCKS) * 16 * u128::from(lower + 1),
            });
        }
        if blocks == 0 {
            return Layout::new(0, 0, 0);
        }
        let starts = (blocks - 1) * W as u64 + 1;
        let upper_start = if share >= 1.0 {
            blocks
        } else {
            // The lower blocks' starts are at most the share: the rate is
            // then at most the target.
            ((share * starts as f64) / W as f64).floor() as u64
        };
        Layout::new(blocks, lower, upper_start.min(blocks))
    }

    /// The planned layout for `n` keys at a target rate.
    ///
    /// # Errors
    /// As [`for_rate`](Self::for_rate).
    pub(crate) fn plan(n: usize, fp_rate: f64) -> Result<Self> {
        Self::for_rate(blocks_for(n), fp_rate)
    }

    /// Blocks of 128 slots.
    pub(crate) fn blocks(&self) -> usize {
        self.blocks
    }

    /// Slots, `128·blocks`.
    pub(crate) fn slots(&self) -> usize {
        self.blocks * W
    }

    /// Start positions of a key's equation, `slots − 127` (0 when empty).
    #[inline(always)]
    pub(crate) fn starts(&self) -> u64 {
        self.starts
    }

    /// Columns of the lower blocks, `r`.
    pub(crate) fn lower_columns(&self) -> u32 {
        self.lower
    }

    /// The first block with `r + 1` columns (`blocks` when none has).
    pub(crate) fn upper_start(&self) -> usize {
        self.upper_start
    }

    /// Columns of block `b`.
    #[inline(always)]
    pub(crate) fn columns(&self, b: usize) -> u32 {
        self.lower + u32::from(b >= self.upper_start)
    }

    /// Index of block `b`'s first word.
    #[inline(always)]
    pub(crate) fn offset(&self, b: usize) -> usize {
        b * self.lower as usize + b.saturating_sub(self.upper_start)
    }

    /// 128-bit words of the solution.
    pub(crate) fn words(&self) -> usize {
        self.offset(self.blocks)
    }

    /// 128-bit words of the solution, as `u64` (for the file's checks).
    pub(crate) fn words_u64(&self) -> u64 {
        self.blocks as u64 * u64::from(self.lower) + (self.blocks - self.upper_start) as u64
    }

    /// Bits of the solution per slot on average: `r` plus the upper share.
    pub(crate) fn columns_per_slot(&self) -> f64 {
        if self.blocks == 0 {
            return 0.0;
        }
        self.words() as f64 / self.blocks as f64
    }

    /// The false-positive rate a key that is not in the filter sees: a
    /// start in a lower block (share `φ`) matches with probability `2⁻ʳ`,
    /// in an upper block `2⁻⁽ʳ⁺¹⁾`; 0 for an empty filter.
    pub(crate) fn expected_fp(&self) -> f64 {
        if self.blocks == 0 {
            return 0.0;
        }
        let lower_starts = (self.upper_start as u64 * W as u64).min(self.starts);
        let share = lower_starts as f64 / self.starts as f64;
        let r = f64::from(self.lower);
        share * (-r).exp2() + (1.0 - share) * (-(r + 1.0)).exp2()
    }
}
