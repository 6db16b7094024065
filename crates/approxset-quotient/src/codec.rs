//! The run codec: the entries of one run, `(remainder, count)` sorted by
//! remainder, as the slot values that hold them (after the counting
//! quotient filter of Pandey et al., SIGMOD 2017, with a simpler code).
//!
//! An entry of remainder `x` and count `c` takes:
//! - `c = 1`: `[x]`; `c = 2`: `[x, x]`;
//! - `c ≥ 3`, `x > 0`: `[x, d…, x]`, the digits of `c − 3` in base
//!   `2^r − 1`, most significant first, each digit `d` written as `d`
//!   below `x` and `d + 1` from `x` on (so no digit reads as `x`), with a
//!   leading `0` when the first would be above `x`: a value below `x`
//!   after `x` opens a counter, which `x` closes;
//! - `c ≥ 3`, `x = 0`: `[0, 0, 0, d + 1…, 0]` (nothing is below 0, so
//!   three zeros open the counter, and the first 0 after it closes it).
//!
//! Entries are sorted by remainder, so a value above `x` after `x` is the
//! next entry. Every count takes at most `3 + ⌈64/log₂(2^r − 1)⌉` slots.

/// One entry of a run: remainder and count (at least 1).
pub(crate) type Entry = (u64, u64);

/// Appends the slots of `(rem, count)` (`count ≥ 1`) for remainders of `r`
/// bits (`2 ≤ r ≤ 63`).
pub(crate) fn encode(rem: u64, count: u64, r: u32, out: &mut Vec<u64>) {
    debug_assert!(count >= 1 && (2..=63).contains(&r));
    if count <= 2 {
        out.extend(std::iter::repeat_n(rem, count as usize));
        return;
    }
    let base = (1u64 << r) - 1;
    let mut digits = [0u64; 64];
    let mut n = 0;
    let mut v = count - 3;
    loop {
        digits[n] = v % base;
        n += 1;
        v /= base;
        if v == 0 {
            break;
        }
    }
    let digits = &mut digits[..n];
    digits.reverse();
    if rem == 0 {
        out.extend([0, 0, 0]);
        out.extend(digits.iter().map(|&d| d + 1));
        out.push(0);
    } else {
        out.push(rem);
        let symbol = |d: u64| if d < rem { d } else { d + 1 };
        if symbol(digits[0]) > rem {
            out.push(0);
        }
        out.extend(digits.iter().map(|&d| symbol(d)));
        out.push(rem);
    }
}

/// The most slots an entry of count `count` takes with `r`-bit remainders.
pub(crate) fn max_len(count: u64, r: u32) -> usize {
    if count <= 2 {
        return count as usize;
    }
    let base = (1u64 << r) - 1;
    let (mut v, mut digits) = (count - 3, 1);
    while v >= base {
        v /= base;
        digits += 1;
    }
    digits + 4
}

/// The entry that starts at slot `i` of a run of `len` slots (`slot(j)`
/// reads slot `j` of the run), and the slot after it; `None` when the
/// slots do not decode (a counter with no end, or past 2⁶⁴), which a
/// checked table never has.
#[inline]
pub(crate) fn decode(
    slot: impl Fn(usize) -> u64,
    i: usize,
    len: usize,
    r: u32,
) -> Option<(Entry, usize)> {
    let x = slot(i);
    if i + 1 >= len {
        return Some(((x, 1), i + 1));
    }
    let next = slot(i + 1);
    let digits_from = if next == x {
        if x == 0 && i + 2 < len && slot(i + 2) == 0 {
            i + 3
        } else {
            return Some(((x, 2), i + 2));
        }
    } else if next < x {
        i + 1
    } else {
        return Some(((x, 1), i + 1));
    };
    let base = (1u64 << r) - 1;
    let mut value = 0u64;
    let mut j = digits_from;
    loop {
        if j >= len {
            return None;
        }
        let s = slot(j);
        if s == x {
            break;
        }
        let d = if x == 0 || s > x { s - 1 } else { s };
        value = value.checked_mul(base)?.checked_add(d)?;
        j += 1;
    }
    if j == digits_from {
        return None;
    }
    Some(((x, value.checked_add(3)?), j + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(entries: &[Entry], r: u32) {
        let mut slots = Vec::new();
        for &(x, c) in entries {
            encode(x, c, r, &mut slots);
        }
        let mut got = Vec::new();
        let mut i = 0;
        while i < slots.len() {
            let (e, next) = decode(|j| slots[j], i, slots.len(), r).expect("decodes");
            got.push(e);
            i = next;
        }
        assert_eq!(got, entries, "r = {r}, slots {slots:?}");
        assert!(slots.iter().all(|&s| s < 1 << r));
    }

    #[test]
    fn counts_round_trip() {
        for r in [2, 3, 7, 10, 20, 57, 63] {
            let top = (1u64 << r) - 1;
            for c in [1, 2, 3, 4, 5, 15, 16, 17, 255, 1000, 1 << 40, u64::MAX] {
                for mut xs in [
                    vec![0],
                    vec![1],
                    vec![top],
                    vec![0, 1, top],
                    vec![0, 2, top - 1],
                ] {
                    xs.dedup();
                    let entries: Vec<Entry> = xs.iter().map(|&x| (x, c)).collect();
                    round_trip(&entries, r);
                    let mixed: Vec<Entry> = xs
                        .iter()
                        .enumerate()
                        .map(|(k, &x)| (x, c.saturating_sub(k as u64).max(1)))
                        .collect();
                    round_trip(&mixed, r);
                }
            }
        }
    }

    #[test]
    fn small_counts_cost_their_copies() {
        let mut s = Vec::new();
        encode(5, 3, 7, &mut s);
        assert_eq!(s, [5, 0, 5]);
        s.clear();
        encode(0, 3, 7, &mut s);
        assert_eq!(s, [0, 0, 0, 1, 0]);
        s.clear();
        encode(1, 3 + 126, 7, &mut s);
        // 126 = one digit 126, written 127 (> 1): a leading 0 first.
        assert_eq!(s, [1, 0, 127, 1]);
    }

    #[test]
    fn unterminated_counters_do_not_decode() {
        assert_eq!(decode(|j| [5u64, 3][j], 0, 2, 7), None);
        assert_eq!(decode(|j| [0u64, 0, 0, 4][j], 0, 4, 7), None);
        assert_eq!(decode(|j| [5u64, 5][j], 0, 2, 7), Some(((5, 2), 2)));
    }
}
