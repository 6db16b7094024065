//! The keys the commands insert and query: byte strings (`member-0`, …, or
//! the lines of a file, or command-line arguments) stored back to back, and
//! random 64-bit numbers from a seeded splitmix64 generator.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{self, BufRead};

use crate::error::CliError;

/// The sentence on keys that `--help` of the commands reading keys shows:
/// a literal, for `concat!`.
macro_rules! keys_note {
    () => {
        "Keys: the bytes of each line (without its line end; see --raw-keys) or \
of each argument are the key, the same key as the library's insert(\"line\") \
or insert_bytes(b\"line\"), so filters built by the library answer here and \
the other way round."
    };
}
pub(crate) use keys_note;

/// Byte-string keys stored back to back in one buffer.
#[derive(Debug, Default)]
pub(crate) struct KeyList {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyList {
    /// The keys `{prefix}0`, `{prefix}1`, …, `{prefix}{count − 1}`, as the
    /// seed's experiments name them (`member-{i}`, `nonmember-{i}`).
    ///
    /// # Errors
    /// A failure when the memory for them cannot be had.
    pub(crate) fn numbered(prefix: &str, count: usize) -> Result<Self, CliError> {
        let digits = count.max(1).ilog10() as usize + 1;
        let mut list = KeyList::default();
        list.reserve(count, count.saturating_mul(prefix.len() + digits))?;
        let mut number = itoa_buffer();
        for i in 0..count {
            list.bytes.extend_from_slice(prefix.as_bytes());
            list.bytes.extend_from_slice(format_number(&mut number, i));
            list.ends.push(list.bytes.len());
        }
        Ok(list)
    }

    /// Reserves room for `keys` more keys of `bytes` bytes in all.
    fn reserve(&mut self, keys: usize, bytes: usize) -> Result<(), CliError> {
        let fail = |_| CliError::failure(format!("cannot allocate memory for {keys} keys"));
        self.ends.try_reserve_exact(keys).map_err(fail)?;
        self.bytes.try_reserve_exact(bytes).map_err(fail)
    }

    /// Appends a key.
    fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The key at `index` (`index < len()`).
    #[inline]
    pub(crate) fn get(&self, index: usize) -> &[u8] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.bytes[start..self.ends[index]]
    }

    /// The keys in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// A stack buffer for [`format_number`].
fn itoa_buffer() -> [u8; 20] {
    [0; 20]
}

/// The decimal digits of `n`, written into `buffer` without allocating.
fn format_number(buffer: &mut [u8; 20], mut n: usize) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        buffer[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buffer[start..]
}

/// The UTF-8 byte-order mark some editors put at the start of a text file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The help of `--raw-keys`, shared by every subcommand that reads keys
/// from lines.
pub(crate) const RAW_KEYS_HELP: &str = "Keep the bytes of each line as they are, \
     removing only the LF that ends it. By default a UTF-8 byte-order mark at the \
     start of the input and one CR at the end of each line (CRLF line ends, or a \
     last line ending in CR) are dropped, so a key file saved on Windows gives the \
     same keys. Keys given as arguments are always taken as they are";

/// The keys of `query`, `add` and `remove`: the arguments, or the lines of
/// standard input when there is none.
#[derive(Debug, clap::Args)]
pub(crate) struct KeyArgs {
    /// Keys [default: the lines of standard input]. Put `--` before keys
    /// that start with `-`.
    #[arg(value_name = "KEY")]
    pub(crate) keys: Vec<OsString>,

    #[arg(long, help = RAW_KEYS_HELP)]
    pub(crate) raw_keys: bool,
}

impl KeyArgs {
    /// Whether the keys come from standard input (no key argument).
    pub(crate) fn read_stdin(&self) -> bool {
        self.keys.is_empty()
    }

    /// Calls `each` with every key, as [`for_each_key`] does.
    ///
    /// # Errors
    /// A failure reading standard input, or the first error of `each`.
    pub(crate) fn for_each(
        &self,
        each: impl FnMut(&[u8]) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        for_each_key(&self.keys, LineKeys::from_flag(self.raw_keys), each)
    }

    /// Every key, read in full: what `add` and `remove` do before they lock
    /// the filter file, so that the lock is not held while standard input
    /// is typed or piped.
    ///
    /// # Errors
    /// A failure reading standard input.
    pub(crate) fn collect(&self) -> Result<Vec<Vec<u8>>, CliError> {
        collect(&self.keys, LineKeys::from_flag(self.raw_keys))
    }
}

/// How the lines of a key file (or of standard input) become keys. Either
/// way lines end at `\n`, which is not part of the key, and empty lines are
/// skipped; the file need not be UTF-8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LineKeys {
    /// Text, the default: a UTF-8 byte-order mark at the very start of the
    /// input is dropped, and so is one `\r` at the end of each line (before
    /// its `\n`, or at the end of a last line without one).
    #[default]
    Text,
    /// Raw bytes (`--raw-keys`): only the `\n` is removed.
    Raw,
}

impl LineKeys {
    /// [`LineKeys::Raw`] when `raw` (the `--raw-keys` flag), else [`LineKeys::Text`].
    pub(crate) fn from_flag(raw: bool) -> Self {
        if raw { LineKeys::Raw } else { LineKeys::Text }
    }

    /// The key of `line` (without its `\n`); `first` says whether it is the
    /// first line of the input, where a byte-order mark may be.
    fn key(self, line: &[u8], first: bool) -> &[u8] {
        match self {
            LineKeys::Raw => line,
            LineKeys::Text => {
                let line = if first {
                    line.strip_prefix(BOM).unwrap_or(line)
                } else {
                    line
                };
                line.strip_suffix(b"\r").unwrap_or(line)
            }
        }
    }
}

/// The keys of a key file: its lines as `how` reads them, as raw bytes (the
/// file need not be UTF-8); empty lines are skipped.
pub(crate) fn lines(data: &[u8], how: LineKeys) -> impl Iterator<Item = &[u8]> + '_ {
    data.split(|&b| b == b'\n')
        .enumerate()
        .map(move |(i, line)| how.key(line, i == 0))
        .filter(|line| !line.is_empty())
}

/// Calls `each` with every key: the `args` given on the command line (as
/// their bytes, untouched; an empty argument is the empty key), or, when
/// there is none, the lines of standard input as [`lines`] reads a file,
/// one at a time as they arrive.
///
/// # Errors
/// A failure reading standard input, or the first error of `each`.
pub(crate) fn for_each_key(
    args: &[OsString],
    how: LineKeys,
    mut each: impl FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if !args.is_empty() {
        for arg in args {
            each(arg.as_encoded_bytes())?;
        }
        return Ok(());
    }
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| CliError::io("cannot read standard input", &e))?;
        if read == 0 {
            return Ok(());
        }
        let without_lf = line.strip_suffix(b"\n").unwrap_or(&line);
        let key = how.key(without_lf, first);
        first = false;
        if !key.is_empty() {
            each(key)?;
        }
    }
}

/// Every key, as [`for_each_key`] reads them, collected: what `add` and
/// `remove` read in full before they lock the filter file.
///
/// # Errors
/// A failure reading standard input.
pub(crate) fn collect(args: &[OsString], how: LineKeys) -> Result<Vec<Vec<u8>>, CliError> {
    let mut keys = Vec::new();
    for_each_key(args, how, |key| {
        keys.push(key.to_vec());
        Ok(())
    })?;
    Ok(keys)
}

/// Characters of a key shown in a message before it is cut short.
const SHOWN_CHARS: usize = 40;

/// A key for a message: lossy UTF-8, cut after 40 characters (marked with
/// `…`), quoted and escaped so it stays on one line.
pub(crate) fn shown(key: &[u8]) -> String {
    let text = String::from_utf8_lossy(key);
    let mut chars = text.chars();
    let mut shown: String = chars.by_ref().take(SHOWN_CHARS).collect();
    if chars.next().is_some() {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Splits the lines of a key file in two: the first half to insert, and the
/// second half, less any line also in the first half, to query as
/// non-members. Lines are read as [`lines`] reads them with `how`; empty
/// lines are skipped. Keys are bytes: the file need not be UTF-8.
///
/// # Errors
/// A usage error when there are fewer than two keys or no non-member is left.
pub(crate) fn split_lines(
    data: &[u8],
    file: &str,
    how: LineKeys,
) -> Result<(KeyList, KeyList), CliError> {
    let lines: Vec<&[u8]> = lines(data, how).collect();
    if lines.len() < 2 {
        return Err(CliError::usage(format!(
            "invalid --keys: '{file}' has {} non-empty lines, need at least 2 \
             (the first half is inserted, the second half queried)",
            lines.len()
        )));
    }
    let (first, second) = lines.split_at(lines.len() / 2);
    let members_set: HashSet<&[u8]> = first.iter().copied().collect();
    let mut members = KeyList::default();
    members.reserve(first.len(), first.iter().map(|l| l.len()).sum())?;
    for line in first {
        members.push(line);
    }
    let mut others = KeyList::default();
    for line in second.iter().filter(|l| !members_set.contains(*l)) {
        others.push(line);
    }
    if others.len() == 0 {
        return Err(CliError::usage(format!(
            "invalid --keys: every line of the second half of '{file}' is also in the \
             first half, so there is no non-member to query"
        )));
    }
    Ok((members, others))
}

/// The splitmix64 generator (Steele, Lea and Flood): enough for test keys.
/// Its outputs over one period (2⁶⁴ calls) are all distinct, since it mixes
/// a counter with a bijection: keys drawn later never repeat earlier ones.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next number.
    pub(crate) fn next_u64(&mut self) -> u64 {
        approxset::hash::splitmix64(&mut self.state)
    }

    /// The next `count` numbers.
    ///
    /// # Errors
    /// A failure when the memory for them cannot be had.
    pub(crate) fn take(&mut self, count: usize) -> Result<Vec<u64>, CliError> {
        let mut keys = Vec::new();
        keys.try_reserve_exact(count)
            .map_err(|_| CliError::failure(format!("cannot allocate memory for {count} keys")))?;
        keys.extend((0..count).map(|_| self.next_u64()));
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_keys() {
        let keys = KeyList::numbered("member-", 12).unwrap();
        assert_eq!(keys.len(), 12);
        assert_eq!(keys.get(0), b"member-0");
        assert_eq!(keys.get(11), b"member-11");
        let all: Vec<&[u8]> = keys.iter().collect();
        assert_eq!(all[10], b"member-10");
        assert_eq!(KeyList::numbered("x", 0).unwrap().len(), 0);
    }

    #[test]
    fn lines_split_in_halves_without_overlap() {
        let (members, others) =
            split_lines(b"a\r\nb\n\nc\na\nd\nb\n", "f", LineKeys::Text).unwrap();
        let m: Vec<&[u8]> = members.iter().collect();
        let o: Vec<&[u8]> = others.iter().collect();
        assert_eq!(m, [b"a", b"b", b"c"]);
        assert_eq!(o, [b"d"]);
        assert!(split_lines(b"only\n", "f", LineKeys::Text).is_err());
        assert!(split_lines(b"a\na\n", "f", LineKeys::Text).is_err());
        // A byte-order mark does not make the first key differ from a later one.
        assert!(split_lines(b"\xEF\xBB\xBFa\r\na\r\n", "f", LineKeys::Text).is_err());
        assert!(split_lines(b"\xEF\xBB\xBFa\r\na\r\n", "f", LineKeys::Raw).is_ok());
    }

    #[test]
    fn lines_are_raw_bytes_without_line_ends() {
        let text: Vec<&[u8]> = lines(b"a\r\n\n\xffb\nc\r\r\n\r\nlast\r", LineKeys::Text).collect();
        assert_eq!(text, [&b"a"[..], b"\xffb", b"c\r", b"last"]);
        let raw: Vec<&[u8]> = lines(b"a\r\n\n\xffb\nc\r\r\n\r\nlast\r", LineKeys::Raw).collect();
        assert_eq!(raw, [&b"a\r"[..], b"\xffb", b"c\r\r", b"\r", b"last\r"]);
        for how in [LineKeys::Text, LineKeys::Raw] {
            assert_eq!(lines(b"", how).count(), 0);
            assert_eq!(lines(b"\n\n", how).count(), 0);
        }
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped_unless_raw() {
        let bom_crlf = b"\xEF\xBB\xBFalice\r\nbob\r\n\xEF\xBB\xBFcarol\r\n";
        let text: Vec<&[u8]> = lines(bom_crlf, LineKeys::Text).collect();
        // Only the mark at the start of the input is one; later it is data.
        assert_eq!(text, [&b"alice"[..], b"bob", b"\xEF\xBB\xBFcarol"]);
        let raw: Vec<&[u8]> = lines(bom_crlf, LineKeys::Raw).collect();
        assert_eq!(
            raw,
            [
                &b"\xEF\xBB\xBFalice\r"[..],
                b"bob\r",
                b"\xEF\xBB\xBFcarol\r"
            ]
        );
        // A mark alone on the first line leaves an empty, skipped line.
        assert_eq!(lines(b"\xEF\xBB\xBF\r\nx", LineKeys::Text).count(), 1);
        assert_eq!(LineKeys::from_flag(true), LineKeys::Raw);
        assert_eq!(LineKeys::from_flag(false), LineKeys::Text);
    }

    #[test]
    fn keys_from_arguments_keep_empty_ones() {
        let args = [OsString::from("\u{FEFF}x\r"), OsString::from("")];
        let mut seen = Vec::new();
        for_each_key(&args, LineKeys::Text, |k| {
            seen.push(k.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [b"\xEF\xBB\xBFx\r".to_vec(), Vec::new()]);
    }

    #[test]
    fn long_keys_are_cut_and_escaped() {
        assert_eq!(shown(b"apple"), "\"apple\"");
        let long = "é".repeat(50);
        assert_eq!(shown(long.as_bytes()), format!("\"{}…\"", "é".repeat(40)));
        assert_eq!(shown(b"a\nb\xff"), "\"a\\nb\u{FFFD}\"");
    }

    #[test]
    fn generated_keys_are_distinct() {
        let a = SplitMix64::new(9).take(1000).unwrap();
        let unique: HashSet<u64> = a.iter().copied().collect();
        assert_eq!(unique.len(), 1000);
    }
}
