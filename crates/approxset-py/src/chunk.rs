//! A chunk of keys as read from Python (its bytes, and how they hold the
//! keys), decoded and hashed without the GIL. Every batch call reads its
//! keys a chunk at a time, so its extra memory is a chunk's, whatever the
//! input's size.

use approxset::{Digest, HashKey};

/// The most keys a chunk holds.
pub(crate) const CHUNK_KEYS: usize = 1 << 16;

/// The most bytes a chunk's keys take as read (a longer key is a chunk of
/// its own).
pub(crate) const CHUNK_BYTES: usize = 1 << 22;

/// How a chunk's bytes hold its keys.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Layout<'a> {
    /// Integers of `width` bytes (1, 2, 4 or 8) in the byte order `big`,
    /// each the key of its 64-bit value (sign-extended when `signed`), as
    /// the Python `int` of that value.
    Int {
        width: usize,
        signed: bool,
        big: bool,
    },
    /// Items of `width` bytes padded with NUL bytes, which are not part of
    /// the key (NumPy `S` arrays, as NumPy reads their items).
    NulPadded { width: usize },
    /// Items of `width` bytes of UTF-32 code units in the byte order `big`,
    /// NUL-padded (NumPy `U` arrays): each the key of its UTF-8.
    Utf32 { width: usize, big: bool },
    /// Keys back to back: key `i` ends at `ends[i]`, the first starts at 0.
    Offsets { ends: &'a [usize] },
}

/// The keys of a chunk: `len` keys in `data`, laid out as `layout` says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) layout: Layout<'a>,
    pub(crate) len: usize,
}

impl Raw<'_> {
    /// No keys.
    pub(crate) const EMPTY: Raw<'static> = Raw {
        data: &[],
        layout: Layout::Offsets { ends: &[] },
        len: 0,
    };
}

/// Why a chunk stopped.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    /// The key at `index` of the chunk is not a valid key (`message`); the
    /// keys before it were handed on.
    Key { index: usize, message: String },
    /// What the digests were handed to failed.
    Sink(E),
}

/// Buffers reused from chunk to chunk (the UTF-8 of UTF-32 keys).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    data: Vec<u8>,
    ends: Vec<usize>,
}

/// Hashes the keys of `raw` under `key` and hands their digests to `f`, in
/// order, 1024 at a time (so that they stay in the cache); the first error
/// stops it.
///
/// # Errors
/// [`Stop::Sink`] with `f`'s error; [`Stop::Key`] for a key that cannot be
/// decoded (a UTF-32 item that is not a code point), after the keys before
/// it were handed to `f`.
pub(crate) fn hash_raw<E>(
    raw: &Raw<'_>,
    key: &HashKey,
    scratch: &mut Scratch,
    mut f: impl FnMut(&[Digest]) -> Result<(), E>,
) -> Result<(), Stop<E>> {
    let data = raw.data;
    // One loop per layout, so that the key's bounds are not matched per key.
    let sunk = match raw.layout {
        Layout::Int { width, .. } | Layout::NulPadded { width } | Layout::Utf32 { width, .. }
            if width == 0 =>
        {
            hash_chunks(key, std::iter::repeat_n(&[][..], raw.len), f)
        }
        // The Python int key of an i64 or u64 is its 8 little-endian bytes.
        Layout::Int {
            width: 8,
            big: false,
            ..
        } => hash_chunks(key, data.chunks_exact(8), f),
        Layout::Int { width, signed, big } => hash_chunks(
            key,
            data.chunks_exact(width)
                .map(|item| int_key(item, signed, big)),
            f,
        ),
        Layout::NulPadded { width } => hash_chunks(
            key,
            data.chunks_exact(width).map(|item| {
                let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                &item[..end]
            }),
            f,
        ),
        Layout::Utf32 { width, big } => {
            let bad = utf32_to_utf8(data, width, big, scratch);
            hash_chunks(key, offsets(&scratch.data, &scratch.ends), &mut f).map_err(Stop::Sink)?;
            return match bad {
                None => Ok(()),
                Some((index, message)) => Err(Stop::Key { index, message }),
            };
        }
        Layout::Offsets { ends } => hash_chunks(key, offsets(data, ends), f),
    };
    sunk.map_err(Stop::Sink)
}

/// The keys of `data` ending at `ends`, the first starting at 0.
fn offsets<'a>(data: &'a [u8], ends: &'a [usize]) -> impl Iterator<Item = &'a [u8]> + 'a {
    std::iter::once(0)
        .chain(ends.iter().copied())
        .zip(ends)
        .map(move |(start, &end)| &data[start..end])
}

/// The key of an integer item: the 8 little-endian bytes of its value,
/// sign-extended when `signed`.
#[inline]
fn int_key(item: &[u8], signed: bool, big: bool) -> [u8; 8] {
    let mut bytes = [0u8; 8];
    let n = item.len().min(8);
    if big {
        for (b, &x) in bytes[..n].iter_mut().zip(item.iter().rev()) {
            *b = x;
        }
    } else {
        bytes[..n].copy_from_slice(&item[..n]);
    }
    if signed && n < 8 && bytes[n - 1] & 0x80 != 0 {
        bytes[n..].fill(0xff);
    }
    bytes
}

/// Re-encodes the UTF-32 items of `width` bytes as UTF-8 keys into
/// `scratch` (trailing NUL code units are padding); stops at the first item
/// that holds a value that is not a code point, returning its index and
/// the message.
fn utf32_to_utf8(
    data: &[u8],
    width: usize,
    big: bool,
    scratch: &mut Scratch,
) -> Option<(usize, String)> {
    scratch.data.clear();
    scratch.ends.clear();
    // One loop per byte order, so that the order is not tested per unit.
    if big {
        utf32_items::<true>(data, width, scratch)
    } else {
        utf32_items::<false>(data, width, scratch)
    }
}

/// [`utf32_to_utf8`] for the byte order `BIG`.
///
/// An item all of whose units are ASCII (the common case) is copied a unit
/// to a byte in one pass that also ORs the units, and its trailing NULs are
/// cut from the output; any other item is taken back out and goes through
/// the encoder a unit at a time. Measured under callgrind on 16-character
/// keys (`U16`, blocked filter, `contains_many`): 96 instructions per key
/// in this function, against 369 for the encoder on every unit (see
/// `docs/guide.md`, "Speed against rbloom").
fn utf32_items<const BIG: bool>(
    data: &[u8],
    width: usize,
    scratch: &mut Scratch,
) -> Option<(usize, String)> {
    let (out, ends) = (&mut scratch.data, &mut scratch.ends);
    let unit = |c: &[u8]| {
        let c: [u8; 4] = c.try_into().unwrap_or_default();
        if BIG {
            u32::from_be_bytes(c)
        } else {
            u32::from_le_bytes(c)
        }
    };
    for (i, item) in data.chunks_exact(width).enumerate() {
        let units = &item[..item.len() / 4 * 4];
        let start = out.len();
        let mut all = 0;
        out.extend(units.chunks_exact(4).map(|c| {
            let p = unit(c);
            all |= p;
            p as u8
        }));
        if all < 0x80 {
            let used = out[start..]
                .iter()
                .rposition(|&b| b != 0)
                .map_or(0, |p| p + 1);
            out.truncate(start + used);
            ends.push(out.len());
            continue;
        }
        out.truncate(start);
        let used = units
            .chunks_exact(4)
            .rposition(|c| c != [0, 0, 0, 0])
            .map_or(0, |p| p + 1);
        for c in units.chunks_exact(4).take(used) {
            let p = unit(c);
            let Some(ch) = char::from_u32(p) else {
                return Some((i, format!("invalid code point {p:#x} in a str key")));
            };
            let mut utf8 = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
        }
        ends.push(out.len());
    }
    None
}

/// Hashes `keys` under `key` 1024 at a time and hands each group's digests
/// to `f`, stopping at the first error.
fn hash_chunks<K: AsRef<[u8]>, E>(
    key: &HashKey,
    keys: impl Iterator<Item = K>,
    mut f: impl FnMut(&[Digest]) -> Result<(), E>,
) -> Result<(), E> {
    const GROUP: usize = 1024;
    let mut buf = [Digest::new(0, 0); GROUP];
    let mut n = 0;
    for k in keys {
        buf[n] = key.digest_bytes(k.as_ref());
        n += 1;
        if n == GROUP {
            f(&buf)?;
            n = 0;
        }
    }
    if n > 0 {
        f(&buf[..n])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_items_are_the_keys_of_their_values() {
        assert_eq!(int_key(&[0xfe], true, false), (-2i64).to_le_bytes());
        assert_eq!(int_key(&[0xfe], false, false), 254u64.to_le_bytes());
        assert_eq!(int_key(&[0x01, 0x02], false, true), 0x0102u64.to_le_bytes());
        assert_eq!(
            int_key(&[0xff, 0xff, 0xff, 0x7f], true, false),
            i64::from(i32::MAX).to_le_bytes()
        );
        assert_eq!(
            int_key(&u64::MAX.to_be_bytes(), false, true),
            u64::MAX.to_le_bytes()
        );
    }

    /// Every item shape against a decoder written the plain way: ASCII
    /// with and without padding, interior NULs, non-ASCII, an empty item,
    /// in both byte orders.
    #[test]
    fn utf32_fast_path_matches_the_plain_decoding() {
        let items = [
            "member-1",
            "",
            "a\0b",
            "\0\0x",
            "日本語",
            "ascii then é",
            "12345678",
        ];
        for big in [false, true] {
            let mut data = Vec::new();
            for s in items {
                let mut units: Vec<u32> = s.chars().map(u32::from).collect();
                units.resize(16, 0);
                for u in units {
                    data.extend(if big {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    });
                }
            }
            let mut scratch = Scratch::default();
            assert!(utf32_to_utf8(&data, 64, big, &mut scratch).is_none());
            let keys: Vec<&[u8]> = offsets(&scratch.data, &scratch.ends).collect();
            let want: Vec<&[u8]> = items.iter().map(|s| s.as_bytes()).collect();
            assert_eq!(keys, want, "big = {big}");
        }
    }

    #[test]
    fn utf32_items_are_their_utf8_and_stop_at_a_bad_one() {
        let mut data = Vec::new();
        for s in ["a", "", "日本"] {
            let mut units: Vec<u32> = s.chars().map(u32::from).collect();
            units.resize(2, 0);
            data.extend(units.iter().flat_map(|u| u.to_le_bytes()));
        }
        data.extend([0x0011_0000u32, 0].iter().flat_map(|u| u.to_le_bytes()));
        let mut scratch = Scratch::default();
        let bad = utf32_to_utf8(&data, 8, false, &mut scratch);
        assert_eq!(bad.map(|b| b.0), Some(3));
        let keys: Vec<&[u8]> = offsets(&scratch.data, &scratch.ends).collect();
        assert_eq!(keys, ["a".as_bytes(), b"", "日本".as_bytes()]);
    }
}
