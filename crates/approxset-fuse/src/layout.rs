//! The layout of a binary fuse filter: `c` segments of `L` cells (a power
//! of two) plus two, a key's three cells one in each of three consecutive
//! segments (Graf and Lemire, 2022, section 4), and the sizing that picks
//! `L` and `c` for `n` keys.

use approxset_core::{Error, Result};

/// The longest segment, `2¹⁸` cells, as in the paper's code.
pub const MAX_SEGMENT_LENGTH: u32 = 1 << 18;

/// The most cells an array may have: cell indices are kept as `u32`
/// during construction.
pub(crate) const MAX_ARRAY_LEN: u64 = u32::MAX as u64;

/// Where a key's three fingerprints are: `segment_count` segments of
/// `segment_length` cells for the first one, two more segments for the
/// others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `L`, a power of two in `1..=MAX_SEGMENT_LENGTH`.
    segment_length: u32,
    /// `c ≥ 1`.
    segment_count: u32,
    /// `c·L`, the range of the first cell.
    count_length: u64,
    /// `L − 1`.
    mask: u64,
}

impl Layout {
    /// The layout of `segment_count` segments of `segment_length` cells,
    /// checked: a power of two up to [`MAX_SEGMENT_LENGTH`], at least one
    /// segment, at most [`MAX_ARRAY_LEN`] cells.
    pub(crate) fn new(segment_length: u32, segment_count: u32) -> Result<Self> {
        if !segment_length.is_power_of_two() || segment_length > MAX_SEGMENT_LENGTH {
            return Err(Error::corrupt(format!(
                "segment length {segment_length} is not a power of two up to {MAX_SEGMENT_LENGTH}"
            )));
        }
        if segment_count == 0 {
            return Err(Error::corrupt("segment count is 0"));
        }
        let layout = Layout {
            segment_length,
            segment_count,
            count_length: u64::from(segment_count) * u64::from(segment_length),
            mask: u64::from(segment_length - 1),
        };
        if layout.array_len_u64() > MAX_ARRAY_LEN {
            return Err(Error::corrupt(format!(
                "{segment_count} segments of {segment_length} cells pass {MAX_ARRAY_LEN} cells"
            )));
        }
        Ok(layout)
    }

    /// The layout the paper's sizing gives `n` keys (section 5.2 and the
    /// reference code): `L = 2^⌊ln n / ln 3.33 + 2.25⌋` (at most 2¹⁸), a
    /// size factor of `max(1.125, 0.875 + 0.25·ln 10⁶ / ln n)`, and the
    /// array rounded up to whole segments. From `L = 2048` on, `L` is
    /// halved once when that rounding would add more than 0.25 % to the
    /// array and the shorter segments round closer, so that a million keys
    /// take 9.01 rather than 9.04 bits each (`docs/design.md`, "Binary fuse
    /// filter").
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the array would pass [`MAX_ARRAY_LEN`]
    /// cells.
    pub(crate) fn plan(n: usize) -> Result<Self> {
        Self::plan_with(n, true)
    }

    /// The paper's layout for `n` keys, without the tighter rounding of
    /// [`plan`](Self::plan): what a construction falls back to after a
    /// seed fails on the tighter one, which peels less often (about 0.8
    /// per seed against 0.99 at 10⁶ keys, `docs/design.md`).
    ///
    /// # Errors
    /// As [`plan`](Self::plan).
    pub(crate) fn plan_loose(n: usize) -> Result<Self> {
        Self::plan_with(n, false)
    }

    fn plan_with(n: usize, tight: bool) -> Result<Self> {
        let nf = n as f64;
        let mut length = if n == 0 {
            4
        } else {
            let exp = (nf.ln() / 3.33f64.ln() + 2.25).floor() as u32;
            1u32.checked_shl(exp)
                .unwrap_or(u32::MAX)
                .min(MAX_SEGMENT_LENGTH)
        };
        let factor = if n <= 1 {
            0.0
        } else {
            f64::max(1.125, 0.875 + 0.25 * 1e6f64.ln() / nf.ln())
        };
        let capacity = (nf * factor).round();
        if capacity > MAX_ARRAY_LEN as f64 {
            return Err(Error::TooLarge {
                needed: capacity as u128,
                limit: u128::from(MAX_ARRAY_LEN),
            });
        }
        let capacity = capacity as u64;
        let whole = |length: u32| capacity.div_ceil(u64::from(length)).max(3);
        let array = |length: u32| whole(length) * u64::from(length);
        if tight
            && length >= 2048
            && array(length) * 400 > capacity * 401
            && array(length / 2) < array(length)
        {
            length /= 2;
        }
        let count = whole(length) - 2;
        let count = u32::try_from(count).map_err(|_| Error::TooLarge {
            needed: u128::from(capacity),
            limit: u128::from(MAX_ARRAY_LEN),
        })?;
        Layout::new(length, count).map_err(|_| Error::TooLarge {
            needed: u128::from(capacity),
            limit: u128::from(MAX_ARRAY_LEN),
        })
    }

    /// The same array cut into segments half as long (`2c + 2` of them),
    /// which a construction tries on every other seed when there are fewer
    /// than 16 segments: just after the sizing doubles `L`, few long
    /// segments peel poorly (FastFilter/xorfilter#50 takes the same step),
    /// while with many segments shorter ones peel worse. `None` from 16
    /// segments on, or below 4 cells.
    pub(crate) fn halved(self) -> Option<Self> {
        if self.segment_length < 4 || self.segment_count >= 16 {
            return None;
        }
        let count = self.segment_count.checked_mul(2)?.checked_add(2)?;
        Layout::new(self.segment_length / 2, count).ok()
    }

    /// `L`.
    pub(crate) fn segment_length(self) -> u32 {
        self.segment_length
    }

    /// `c`.
    pub(crate) fn segment_count(self) -> u32 {
        self.segment_count
    }

    /// Cells of the array, `(c + 2)·L`.
    pub(crate) fn array_len_u64(self) -> u64 {
        (u64::from(self.segment_count) + 2) * u64::from(self.segment_length)
    }

    /// Cells of the array, `(c + 2)·L`, as an index (it fits: at most
    /// [`MAX_ARRAY_LEN`]).
    pub(crate) fn array_len(self) -> usize {
        self.array_len_u64() as usize
    }

    /// The three cells of a key's fuse hash, one in each of segments
    /// `s`, `s + 1`, `s + 2`: the first is `⌊hash·c·L / 2⁶⁴⌋`, the others
    /// the same offset in the next segments with bits 18… and 0… of the
    /// hash XORed into it. Always `p₀ < p₁ < p₂ < (c + 2)·L`, for every
    /// hash and every layout [`new`](Self::new) made (`L` a power of two,
    /// `c·L` the range of `p₀`): the bound the fingerprint tables' unchecked
    /// reads rely on.
    #[inline(always)]
    pub(crate) fn positions(self, hash: u64) -> [usize; 3] {
        let h0 = ((u128::from(hash) * u128::from(self.count_length)) >> 64) as u64;
        let length = u64::from(self.segment_length);
        let h1 = (h0 + length) ^ ((hash >> 18) & self.mask);
        let h2 = (h0 + 2 * length) ^ (hash & self.mask);
        [h0 as usize, h1 as usize, h2 as usize]
    }
}

/// The 64-bit fuse hash of a key under `seed`: the MurmurHash3 finalizer
/// of `h1 + seed`, a bijection of `h1` for every seed, so a new seed
/// reshuffles every position while equal keys stay equal.
#[inline(always)]
pub(crate) fn fuse_hash(h1: u64, seed: u64) -> u64 {
    let mut h = h1.wrapping_add(seed);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sizes_follow_the_reference_code() {
        // n = 0 and 1: three segments of 4 cells.
        for n in [0, 1] {
            let l = Layout::plan(n).unwrap();
            assert_eq!((l.segment_length(), l.segment_count()), (4, 1), "{n}");
            assert_eq!(l.array_len(), 12);
        }
        // n = 2: capacity 12, L = 4, one segment.
        let l = Layout::plan(2).unwrap();
        assert_eq!((l.segment_length(), l.array_len()), (4, 12));
        // n = 10: L = 16, capacity 24, one segment and the two extra.
        let l = Layout::plan(10).unwrap();
        assert_eq!((l.segment_length(), l.array_len()), (16, 48));
    }

    #[test]
    fn large_sizes_stay_within_a_quarter_percent_of_the_factor() {
        for n in [100_000usize, 1_000_000, 3_000_000, 10_000_000, 100_000_000] {
            let l = Layout::plan(n).unwrap();
            let factor = l.array_len() as f64 / n as f64;
            assert!(factor >= 1.125, "{n}: {factor}");
            let target = f64::max(1.125, 0.875 + 0.25 * 1e6f64.ln() / (n as f64).ln());
            assert!(
                factor <= target * 1.0025 + 1e-9,
                "{n}: {factor} vs {target}"
            );
            assert!(l.segment_count() >= 1);
        }
        // n = 10⁶: the paper's L = 8192 would round to 9.04 bits per key.
        let l = Layout::plan(1_000_000).unwrap();
        assert_eq!(l.segment_length(), 4096);
        assert_eq!(l.array_len(), 1_126_400);
        let loose = Layout::plan_loose(1_000_000).unwrap();
        assert_eq!(
            (loose.segment_length(), loose.array_len()),
            (8192, 1_130_496)
        );
        // Where the rounding is close already, both are the paper's.
        assert_eq!(
            Layout::plan_loose(10_000_000).unwrap(),
            Layout::plan(10_000_000).unwrap()
        );
    }

    #[test]
    fn positions_are_in_three_consecutive_segments() {
        let mut state = 5u64;
        for n in [0usize, 1, 2, 3, 10, 1000, 11_504, 1 << 20] {
            let l = Layout::plan(n).unwrap();
            for layout in [Some(l), l.halved()].into_iter().flatten() {
                let len = u64::from(layout.segment_length());
                for _ in 0..1000 {
                    let hash = approxset_core::hash::splitmix64(&mut state);
                    let [a, b, c] = layout.positions(hash);
                    assert!(a < b && b < c && c < layout.array_len(), "{n}");
                    let s = a as u64 / len;
                    assert_eq!(b as u64 / len, s + 1);
                    assert_eq!(c as u64 / len, s + 2);
                }
                for hash in [0, u64::MAX] {
                    assert!(layout.positions(hash)[2] < layout.array_len());
                }
            }
        }
    }

    #[test]
    fn halving_keeps_the_array() {
        let l = Layout::plan(11_504).unwrap();
        assert_eq!((l.segment_length(), l.segment_count()), (1024, 12));
        let h = l.halved().unwrap();
        assert_eq!(h.array_len(), l.array_len());
        assert_eq!(h.segment_length() * 2, l.segment_length());
        assert_eq!(Layout::new(2, 1).unwrap().halved(), None);
        assert_eq!(Layout::plan(100_000).unwrap().halved(), None);
    }

    #[test]
    fn bad_layouts_are_refused() {
        assert!(Layout::new(3, 1).is_err());
        assert!(Layout::new(0, 1).is_err());
        assert!(Layout::new(1 << 19, 1).is_err());
        assert!(Layout::new(4, 0).is_err());
        assert!(Layout::new(1 << 18, u32::MAX).is_err());
        assert!(Layout::new(1, 1).is_ok());
        assert!(matches!(
            Layout::plan(usize::MAX),
            Err(Error::TooLarge { .. })
        ));
    }
}
