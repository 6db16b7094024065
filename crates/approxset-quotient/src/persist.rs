//! Loading: the filter from the binary format of `approxset_core::format`
//! (tag 10, `docs/format.md`; `save.rs` writes it), and the checks a
//! loaded filter (or a view) passes.

use approxset_core::format::{Reader, Words, tag};
use approxset_core::{Error, HashKey, Result};

use crate::QuotientFilter;
use crate::filter::find;
use crate::sizing::{MAX_BITS, MIN_BITS, Plan};
use crate::table::{Table, data_words, offset_words};
use crate::update::Scratch;

/// Persistence in the binary format of `approxset_core::format`.
impl QuotientFilter {
    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// field checked against the others (so a loaded filter cannot panic
    /// or answer from inconsistent tables) and nothing larger than the
    /// input allocated.
    ///
    /// # Errors
    /// The envelope errors of `approxset_core::format::Reader::open`,
    /// [`Error::WrongVariant`], and [`Error::Corrupt`] for inconsistent
    /// fields: a plan other than the one `capacity` and `fp_rate` give,
    /// tables of other sizes or widths than the plan's, runs that do not
    /// decode, offsets, counts or `len` that the runs do not give, an
    /// entry that an older table's fingerprint should hold.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::parse(Reader::open_variant(bytes, tag::QUOTIENT)?)
    }

    /// The filter an opened reader holds, every invariant checked.
    pub(crate) fn parse(r: Reader<'_>) -> Result<Self> {
        let saved = Saved::read(r, |r, n, what| r.words(n, what))?;
        Ok(from_saved!(QuotientFilter { saved; max_bytes: None, scratch: Scratch::default() }))
    }

    approxset_core::stream_methods!();
}

/// `$ty` (the filter or its view) of the fields of `saved` (a [`Saved`])
/// and the `extra` fields given.
macro_rules! from_saved {
    ($ty:ident { $saved:expr; $($extra:ident: $value:expr),* }) => {{
        let saved = $saved;
        $ty {
            tables: saved.tables,
            plan: saved.plan,
            key: saved.key,
            len: saved.len,
            capacity: saved.capacity,
            fp_rate: saved.fp_rate,
            $($extra: $value),*
        }
    }};
}
pub(crate) use from_saved;

/// A saved filter's fields over tables of storage `S`.
pub(crate) struct Saved<S> {
    pub(crate) tables: Vec<Table<S>>,
    pub(crate) plan: Plan,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
}

/// One table's header fields.
struct Head {
    home: usize,
    bits: u32,
    blocks: usize,
    used: usize,
    entries: usize,
}

impl<S: Words> Saved<S> {
    /// Reads and checks every field, taking each table's words with
    /// `words` (a copy, or a borrow for a view).
    pub(crate) fn read<'a>(
        mut r: Reader<'a>,
        mut words: impl FnMut(&mut Reader<'a>, u64, &str) -> Result<S>,
    ) -> Result<Self> {
        let corrupt = |s: String| Error::corrupt(s);
        let key = r.key();
        let r0 = r.u32("remainder bits")?;
        let gap = r.u32("remainder gap")?;
        let home = r.usize("home slots")?;
        let len = r.usize("len")?;
        let capacity = r.usize("capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        let count = r.u64("tables")?;
        let plan = Plan::new(capacity, fp_rate)
            .map_err(|e| corrupt(format!("capacity {capacity} and fp_rate {fp_rate}: {e}")))?;
        if plan != (Plan { home, r0, gap }) {
            return Err(corrupt(format!(
                "plan of {home} slots, {r0} bits, gap {gap}; capacity {capacity} at fp_rate \
                 {fp_rate} gives {} slots, {} bits, gap {}",
                plan.home, plan.r0, plan.gap
            )));
        }
        if count == 0 || count > 64 {
            return Err(corrupt(format!("{count} tables, not 1 to 64")));
        }
        let mut heads = Vec::new();
        for i in 0..count as usize {
            let t_home = r.usize("table home slots")?;
            let bits = r.u32("table remainder bits")?;
            let reserved = r.u32("reserved")?;
            let blocks = r.usize("table blocks")?;
            let used = r.usize("table slots used")?;
            let entries = r.usize("table entries")?;
            if reserved != 0 {
                return Err(corrupt(format!(
                    "reserved field of table {i} is {reserved}, not 0"
                )));
            }
            let (Some(planned), Some(_)) = (plan.home(i), plan.range(i)) else {
                return Err(corrupt(format!(
                    "table {i} is past the plan's 64-bit fingerprints"
                )));
            };
            let widened = plan
                .bits(i)
                .checked_sub(bits)
                .filter(|_| (MIN_BITS..=MAX_BITS).contains(&bits));
            let ok = widened.is_some_and(|w| {
                planned
                    .checked_shl(w)
                    .is_some_and(|h| h == t_home && h >> w == planned)
            });
            if !ok {
                return Err(corrupt(format!(
                    "table {i} has {t_home} slots of {bits} bits, the plan {planned} of {}",
                    plan.bits(i)
                )));
            }
            if blocks < t_home / 64 + 1 {
                return Err(corrupt(format!(
                    "table {i} has {blocks} blocks, fewer than its {t_home} slots need"
                )));
            }
            heads.push(Head {
                home: t_home,
                bits,
                blocks,
                used,
                entries,
            });
        }
        let mut tables = Vec::new();
        for (i, h) in heads.iter().enumerate() {
            let n = (h.blocks as u128) * (2 + h.bits as u128);
            let n = u64::try_from(n).map_err(|_| corrupt(format!("table {i} is too large")))?;
            let data = words(&mut r, n, "table blocks")?;
            let offsets = words(&mut r, offset_words(h.blocks) as u64, "table offsets")?;
            debug_assert_eq!(data.word_count(), data_words(h.blocks, h.bits));
            let t = Table {
                home: h.home,
                bits: h.bits,
                blocks: h.blocks,
                data,
                offsets,
                used: h.used,
                entries: h.entries,
            };
            t.check().map_err(|e| corrupt(format!("table {i}: {e}")))?;
            tables.push(t);
        }
        r.finish()?;
        if !(fp_rate > 0.0 && fp_rate < 1.0) {
            return Err(corrupt(format!("fp_rate {fp_rate} outside (0, 1)")));
        }
        check_counts(&tables, &plan, len)?;
        Ok(Saved {
            tables,
            plan,
            key,
            len,
            capacity,
            fp_rate,
        })
    }
}

/// Checks that `len` is the sum of the counts, and that no entry of a
/// table has its fingerprint in an older one (where inserts and removes
/// of its items would go).
pub(crate) fn check_counts<S: Words>(tables: &[Table<S>], plan: &Plan, len: usize) -> Result<()> {
    let mut total: Option<u64> = Some(0);
    let mut misplaced = None;
    for (i, t) in tables.iter().enumerate() {
        let range = plan.range(i).expect("checked ranges");
        t.for_each(|fp, c| {
            total = total.and_then(|s| s.checked_add(c));
            if i > 0 && misplaced.is_none() {
                // The h1 prefix of this fingerprint: any h1 whose
                // fingerprint in table i is `fp` has it in older tables.
                let h1 = fp_to_h1(fp, range);
                let older = find(&tables[..i], approxset_core::Digest::new(h1, 0));
                if older.is_some() {
                    misplaced = Some(i);
                }
            }
        });
    }
    if let Some(i) = misplaced {
        return Err(Error::corrupt(format!(
            "table {i} holds a fingerprint an older table holds"
        )));
    }
    if total != Some(len as u64) {
        return Err(Error::corrupt(format!(
            "len is {len}, the tables count {}",
            total.map_or("more than 2^64".into(), |t| t.to_string())
        )));
    }
    Ok(())
}

/// The least `h1` whose fingerprint in `[0, range)` is `fp`.
fn fp_to_h1(fp: u64, range: u64) -> u64 {
    // h1 = ⌈fp·2⁶⁴ / range⌉.
    let num = (u128::from(fp) << 64).div_ceil(u128::from(range));
    u64::try_from(num).unwrap_or(u64::MAX)
}
