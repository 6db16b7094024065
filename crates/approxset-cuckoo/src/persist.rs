//! Saving and loading: the filter in the binary format of
//! `approxset_core::format`, and the checks a loaded filter passes.

use approxset_core::format::{self, PageRead, Reader, Words, Writer, tag};
use approxset_core::{Error, HashKey, Result};

use crate::filter::CuckooFilter;
use crate::kick::{Victim, Xorshift};
use crate::table::{MAX_BITS, MIN_BITS, SLOTS, Table, supported};

/// Persistence in the binary format of `approxset_core::format`.
impl CuckooFilter {
    /// The filter in the versioned binary format (see `docs/format.md`).
    ///
    /// # Errors
    /// None: every filter of the crate serializes. The `Result` is the
    /// trait's signature ([`Membership::to_bytes`](approxset_core::Membership::to_bytes)).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(self.saved().write())
    }

    /// Writes [`to_bytes`](Self::to_bytes) to `sink` page by page, without
    /// a copy of the table.
    ///
    /// # Errors
    /// [`Error::Io`] from the sink.
    pub fn write_into(&self, sink: &mut dyn std::io::Write) -> Result<()> {
        self.saved().write_into(sink)
    }

    fn saved(&self) -> Saved<&crate::table::Table<Vec<u64>>> {
        Saved {
            table: &self.table,
            victim: self.victim,
            rng: self.rng.0,
            key: self.key,
            len: self.len,
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// invariant checked (so a loaded filter cannot panic later) and nothing
    /// larger than the input allocated.
    ///
    /// # Errors
    /// The envelope errors of `approxset_core::format::Reader::open`,
    /// [`Error::WrongVariant`], and [`Error::Corrupt`] for inconsistent
    /// parameters (a width outside 4..=32, an odd or tiny bucket count,
    /// a payload of the wrong size, a stored count that does not match the
    /// occupied slots, a stash outside the table).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::parse(Reader::open_variant(bytes, tag::CUCKOO)?)
    }

    /// The filter an opened reader holds, every invariant checked.
    pub(crate) fn parse(r: Reader<'_>) -> Result<Self> {
        Self::from_saved(Saved::read(r, |r, count| r.words(count, "slots"))?)
    }

    /// [`from_bytes`](Self::from_bytes) of the file of `total` bytes that
    /// `source` reads, filled straight into the table in bounded chunks (no
    /// copy of the file is held), every byte checked before the filter is
    /// returned.
    ///
    /// ```
    /// # extern crate approxset_cuckoo as approxset;
    /// use approxset::CuckooFilter;
    /// let mut f = CuckooFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
    /// f.insert("alice")?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(CuckooFilter::load_streamed(&bytes, bytes.len() as u64)?, f);
    /// # Ok::<(), approxset_cuckoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), and [`Error::Io`] from the
    /// source.
    pub fn load_streamed(source: &dyn PageRead, total: u64) -> Result<Self> {
        format::load_streamed(source, total, tag::CUCKOO, |r, payload| {
            Self::from_saved(Saved::read(r, |r, count| payload.words(r, count, "slots"))?)
        })
    }

    /// The filter of checked saved fields, once its count is checked too.
    fn from_saved(saved: Saved<Table<Vec<u64>>>) -> Result<Self> {
        saved.check_count()?;
        Ok(CuckooFilter {
            table: saved.table,
            victim: saved.victim,
            rng: Xorshift(saved.rng),
            key: saved.key,
            len: saved.len,
            capacity: saved.capacity,
            fp_rate: saved.fp_rate,
        })
    }

    approxset_core::stream_methods!();
}

/// A saved filter's fields over its slot table `T` (a `Table` of the
/// filter's own words or a view's bytes, or a reference to one), read,
/// checked and written in one place for both.
pub(crate) struct Saved<T> {
    pub(crate) table: T,
    pub(crate) victim: Option<Victim>,
    pub(crate) rng: u64,
    pub(crate) key: HashKey,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
}

impl<S: Words> Saved<&Table<S>> {
    /// The filter in the binary format.
    pub(crate) fn write(&self) -> Vec<u8> {
        let mut w = Writer::new(tag::CUCKOO, self.key, self.table.memory_bytes() + 80);
        self.write_body(&mut w);
        w.finish()
    }

    /// The filter in the binary format, written to `sink` page by page.
    pub(crate) fn write_into(&self, sink: &mut dyn std::io::Write) -> Result<()> {
        approxset_core::format::write_streamed(tag::CUCKOO, self.key, sink, |w| self.write_body(w))
    }

    fn write_body(&self, w: &mut Writer<'_>) {
        let table = self.table;
        let (victim_fp, victim_bucket) = self.victim.map_or((0, 0), |v| (v.fp, v.bucket as u64));
        w.u32(table.bits())
            .u32(0)
            .u64(table.buckets() as u64)
            .u64(self.len as u64)
            .u64(self.capacity as u64)
            .f64(self.fp_rate)
            .u64(victim_fp)
            .u64(victim_bucket)
            .u64(self.rng)
            .words_from(table.words());
    }
}

impl<S: Words> Saved<Table<S>> {
    /// Reads the fields from an opened reader, taking the slot words with
    /// `slots` (a copy, or a borrow for a view), and checks every
    /// invariant that does not need a scan of the table: width, buckets,
    /// payload size, padding, rate, generator, stash. The count of stored
    /// fingerprints is [`check_count`](Self::check_count)'s.
    pub(crate) fn read<'a>(
        mut r: Reader<'a>,
        slots: impl FnOnce(&mut Reader<'a>, u64) -> Result<S>,
    ) -> Result<Self> {
        let key = r.key();
        let bits = r.u32("fingerprint bits")?;
        let reserved = r.u32("reserved")?;
        let buckets = r.u64("buckets")?;
        let len = r.usize("len")?;
        let capacity = r.usize("capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        let victim_fp = r.u64("stash fingerprint")?;
        let victim_bucket = r.u64("stash bucket")?;
        let rng = r.u64("kick generator")?;
        if reserved != 0 {
            return Err(Error::corrupt(format!(
                "reserved field is {reserved}, not 0"
            )));
        }
        if !supported(bits) {
            return Err(Error::corrupt(format!(
                "fingerprint width {bits} is outside {MIN_BITS}..={MAX_BITS}"
            )));
        }
        if buckets < 2 {
            return Err(Error::corrupt(format!("bucket count {buckets} is below 2")));
        }
        let words = Table::bytes_for(u128::from(buckets), bits) / 8;
        let words = slots(&mut r, u64::try_from(words).unwrap_or(u64::MAX))?;
        let table = Table::from_words(words, buckets, bits)?;
        r.finish()?;
        if capacity == 0 {
            return Err(Error::corrupt("capacity is 0"));
        }
        if !(fp_rate > 0.0 && fp_rate < 1.0) {
            return Err(Error::corrupt(format!("fp_rate {fp_rate} outside (0, 1)")));
        }
        if rng == 0 {
            return Err(Error::corrupt("kick generator state is 0"));
        }
        let lane = (1u64 << bits) - 1;
        let victim = match victim_fp {
            0 if victim_bucket == 0 => None,
            0 => return Err(Error::corrupt("stash bucket set without a fingerprint")),
            fp if fp > lane => {
                return Err(Error::corrupt(format!(
                    "stashed fingerprint {fp} wider than {bits} bits"
                )));
            }
            fp if victim_bucket >= buckets => {
                return Err(Error::corrupt(format!(
                    "stash bucket {victim_bucket} outside {buckets} buckets (fingerprint {fp})"
                )));
            }
            fp => Some(Victim {
                fp,
                bucket: victim_bucket as usize,
            }),
        };
        // Cheap, so a view makes it too: the exact count is `check_count`'s.
        let room = u128::from(buckets) * SLOTS as u128 + u128::from(victim.is_some());
        if len as u128 > room {
            return Err(Error::corrupt(format!(
                "len {len} is more than the {room} fingerprints the table and stash hold"
            )));
        }
        Ok(Saved {
            table,
            victim,
            rng,
            key,
            len,
            capacity,
            fp_rate,
        })
    }

    /// Checks that `len` counts the stored fingerprints: a scan of the
    /// whole table, the one check a view leaves to `verify`.
    pub(crate) fn check_count(&self) -> Result<()> {
        check_count(&self.table, self.victim, self.len)
    }
}

/// Checks that `len` counts the fingerprints of `table` and `victim`.
pub(crate) fn check_count<S: Words>(
    table: &Table<S>,
    victim: Option<Victim>,
    len: usize,
) -> Result<()> {
    let stored = table.count_occupied() + usize::from(victim.is_some());
    if stored != len {
        return Err(Error::corrupt(format!(
            "{len} items recorded, {stored} fingerprints stored"
        )));
    }
    Ok(())
}
