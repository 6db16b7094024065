//! Persistence of the Bloom family in the binary format: the parameters
//! every Bloom filter writes before its payload and their validation on
//! load, the Bloom core's body, and the scalable filter's chain of bodies.
//! The envelope (magic, version, checksum) is `approxset_core::format`'s.

use std::marker::PhantomData;

use approxset_core::format::{self, PageRead, Payload, Reader, Writer, tag};
use approxset_core::sizing::{self, MAX_BITS, MAX_HASHES};
use approxset_core::{Error, HashKey, ProbeScheme, Result};

use crate::bits::BitVec;
use crate::bloom::Bloom;
use crate::cell_traits::{Cells, CellsRead};
use crate::counters::Counters;
use crate::layout::Classic;
use crate::layout::Layout;
use crate::partitioned::PartitionedBloomFilter;
use crate::scalable::ScalableBloomFilter;

/// Cells (bits or counters), hashes and bookkeeping of one Bloom filter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellParams {
    pub(crate) cells: u64,
    pub(crate) hashes: u32,
    pub(crate) scheme: ProbeScheme,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
}

impl CellParams {
    /// Appends the parameters: cells u64, hashes u32, probe scheme u32
    /// (version 2; 0, reserved, in version 1), len u64, capacity u64,
    /// fp_rate f64. A mixed scheme needs version 2, so it raises the
    /// envelope's version; double hashing is written as version 1 wrote it.
    pub(crate) fn write(&self, w: &mut Writer) {
        if self.scheme != ProbeScheme::DoubleHashing {
            w.require_version(2);
        }
        w.u64(self.cells)
            .u32(self.hashes)
            .u32(self.scheme.code())
            .u64(self.len as u64)
            .u64(self.capacity as u64)
            .f64(self.fp_rate);
    }

    /// Reads and validates the parameters; `what` names the cells in errors.
    pub(crate) fn read(r: &mut Reader<'_>, what: &str) -> Result<Self> {
        let cells = r.u64(what)?;
        let hashes = r.u32("hashes")?;
        let code = r.u32("probe scheme")?;
        let len = r.usize("len")?;
        let capacity = r.usize("capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        if cells == 0 || cells > MAX_BITS {
            return Err(Error::corrupt(format!("{what} {cells} outside 1..=2^63")));
        }
        if hashes == 0 || hashes > MAX_HASHES {
            return Err(Error::corrupt(format!(
                "hashes {hashes} outside 1..={MAX_HASHES}"
            )));
        }
        let scheme = match (r.version(), ProbeScheme::from_code(code)) {
            (1, Some(ProbeScheme::DoubleHashing)) => ProbeScheme::DoubleHashing,
            (1, _) => {
                return Err(Error::corrupt(format!(
                    "reserved field is {code}, not 0 (format version 1)"
                )));
            }
            (_, Some(scheme)) => scheme,
            (_, None) => return Err(Error::corrupt(format!("unknown probe scheme {code}"))),
        };
        if capacity == 0 {
            return Err(Error::corrupt("capacity is 0"));
        }
        if !(fp_rate > 0.0 && fp_rate <= 1.0) {
            return Err(Error::corrupt(format!("fp_rate {fp_rate} outside (0, 1]")));
        }
        Ok(CellParams {
            cells,
            hashes,
            scheme,
            len,
            capacity,
            fp_rate,
        })
    }
}

/// Persistence in the binary format of `approxset_core::format`, for a
/// filter and a view of a saved one alike.
impl<L: Layout, C: CellsRead<L>> Bloom<L, C> {
    /// The filter in the versioned binary format (see `docs/format.md`):
    /// the same bytes on every platform (a view gives the bytes it views,
    /// with their checksum recomputed).
    ///
    /// # Errors
    /// None: every filter of the crate serializes. The `Result` is the
    /// trait's signature ([`Membership::to_bytes`](approxset_core::Membership::to_bytes)).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(C::TAG, self.key, self.cells.memory_bytes() + 40);
        self.write_body(&mut w);
        Ok(w.finish())
    }

    /// Writes [`to_bytes`](Self::to_bytes) to `sink` page by page, without
    /// a copy of the cells.
    ///
    /// # Errors
    /// [`Error::Io`] from the sink.
    pub fn write_into(&self, sink: &mut dyn std::io::Write) -> Result<()> {
        approxset_core::format::write_streamed(C::TAG, self.key, sink, |w| self.write_body(w))
    }

    pub(crate) fn write_body(&self, w: &mut Writer) {
        w.require_version(L::FORMAT_VERSION);
        CellParams {
            cells: self.cells.cell_count(),
            hashes: self.hashes,
            scheme: self.scheme,
            len: self.len(),
            capacity: self.capacity,
            fp_rate: self.fp_rate,
        }
        .write(w);
        self.cells.write_words(w);
    }

    /// Reads and validates the parameters of a body of this layout and
    /// storage: every check but those of the cells themselves, the one
    /// home of the checks for a loaded filter and a view.
    pub(crate) fn read_params(r: &mut Reader<'_>) -> Result<CellParams> {
        if r.version() < L::FORMAT_VERSION {
            return Err(Error::corrupt(format!(
                "a {} filter in a version-{} file: the variant is new in version {}",
                L::NAME,
                r.version(),
                L::FORMAT_VERSION
            )));
        }
        let p = CellParams::read(r, C::WHAT)?;
        L::check(p.cells, p.hashes).map_err(|e| Error::corrupt(e.to_string()))?;
        if L::round_bits(p.cells, p.hashes) != p.cells {
            // Slices of the partitioned layout, blocks of the blocked ones.
            return Err(Error::corrupt(format!(
                "{} {} are not a {} filter's whole units with {} hashes (the next is {})",
                p.cells,
                C::WHAT,
                L::NAME,
                p.hashes,
                L::round_bits(p.cells, p.hashes)
            )));
        }
        // The blocked and split-block layouts place their own positions:
        // they have no scheme to choose, and record 0.
        if L::NEW_SCHEME == ProbeScheme::DoubleHashing && p.scheme != ProbeScheme::DoubleHashing {
            return Err(Error::corrupt(format!(
                "probe scheme {} on a {} filter, which has none (0)",
                p.scheme.code(),
                L::NAME
            )));
        }
        Ok(p)
    }

    /// A body from its checked parameters and cells.
    pub(crate) fn from_parts(p: CellParams, cells: C, key: HashKey) -> Self {
        Bloom {
            cells,
            hashes: p.hashes,
            scheme: p.scheme,
            key,
            len: p.len,
            capacity: p.capacity,
            fp_rate: p.fp_rate,
            layout: PhantomData,
        }
    }
}

/// Loading and viewing in the binary format of `approxset_core::format`.
impl<L: Layout, C: Cells<L>> Bloom<L, C> {
    /// A filter from bytes written by [`to_bytes`](Self::to_bytes). Every
    /// invariant is checked, so a loaded filter cannot panic later, and
    /// nothing larger than the input is allocated.
    ///
    /// # Errors
    /// The envelope errors (`Truncated`, `TrailingBytes`, `BadMagic`,
    /// `UnsupportedVersion`, `ChecksumMismatch`, `UnknownVariant`,
    /// `WrongVariant`) and [`Error::Corrupt`] for inconsistent parameters.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::parse(Reader::open_variant(bytes, C::TAG)?)
    }

    /// The filter an opened reader holds, to its end.
    pub(crate) fn parse(mut r: Reader<'_>) -> Result<Self> {
        let key = r.key();
        let filter = Self::read_body(&mut r, key)?;
        r.finish()?;
        Ok(filter)
    }

    /// A read-only view of bytes written by [`to_bytes`](Self::to_bytes),
    /// answering from them where they lie (no copy, any alignment): every
    /// check of [`from_bytes`](Self::from_bytes) but the checksum, in time
    /// independent of the filter's size. Check the checksum with
    /// [`verify`](Bloom::verify) (or open with
    /// [`view_verified`](Self::view_verified)) for bytes from elsewhere.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    /// let mut f = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
    /// f.insert("alice")?;
    /// let bytes = f.to_bytes()?;
    /// let view = BloomFilter::view(&bytes)?;
    /// assert!(view.contains("alice"));
    /// assert_eq!(view.into_owned()?, f);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), except
    /// [`Error::ChecksumMismatch`].
    pub fn view(bytes: &[u8]) -> Result<Bloom<L, C::View<'_>>> {
        let mut r = Reader::open_variant_unverified(bytes, C::TAG)?;
        let key = r.key();
        let p = Bloom::<L, C::View<'_>>::read_params(&mut r)?;
        let cells = C::view(&mut r, p.cells)?;
        r.finish()?;
        Ok(Bloom::from_parts(p, cells, key))
    }

    /// [`view`](Self::view), after checking the checksum (which reads every
    /// byte once): for bytes from elsewhere.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    pub fn view_verified(bytes: &[u8]) -> Result<Bloom<L, C::View<'_>>> {
        Reader::open_variant(bytes, C::TAG)?;
        Self::view(bytes)
    }

    approxset_core::stream_methods!();

    /// A filter of the file of `total` bytes that `source` reads, its
    /// cells made by `cells` from the parameters' cell count, with the words
    /// filled from the file in bounded chunks ([`format::load_streamed`]).
    fn load_streamed_with(
        source: &dyn PageRead,
        total: u64,
        cells: impl FnOnce(&mut Reader<'_>, &mut Payload<'_>, u64) -> Result<C>,
    ) -> Result<Self> {
        format::load_streamed(source, total, C::TAG, |mut r, payload| {
            let key = r.key();
            let p = Self::read_params(&mut r)?;
            let cells = cells(&mut r, payload, p.cells)?;
            r.finish()?;
            Ok(Self::from_parts(p, cells, key))
        })
    }

    pub(crate) fn read_body(r: &mut Reader<'_>, key: HashKey) -> Result<Self> {
        let p = Self::read_params(r)?;
        Ok(Self::from_parts(p, C::read(r, p.cells)?, key))
    }
}

/// Streamed loading of the Bloom filters of bits.
impl<L: Layout> Bloom<L, BitVec> {
    /// [`from_bytes`](Self::from_bytes) of the file of `total` bytes that
    /// `source` reads, filled straight into the filter's cells in bounded
    /// chunks (no copy of the file is held), every byte checked before the
    /// filter is returned.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    /// let mut f = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
    /// f.insert("alice")?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(BloomFilter::load_streamed(&bytes, bytes.len() as u64)?, f);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), and [`Error::Io`] from the
    /// source.
    pub fn load_streamed(source: &dyn PageRead, total: u64) -> Result<Self> {
        Self::load_streamed_with(source, total, |r, payload, bits| {
            BitVec::read_streamed(r, payload, bits, "bits")
        })
    }
}

/// Streamed loading of the counting filter.
impl Bloom<Classic, Counters> {
    /// [`from_bytes`](Self::from_bytes) of the file of `total` bytes that
    /// `source` reads, filled straight into the filter's cells in bounded
    /// chunks (no copy of the file is held), every byte checked before the
    /// filter is returned.
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::CountingBloomFilter;
    /// let mut f = CountingBloomFilter::with_fp_rate(0.01).seed(1).expected_items(1000)?;
    /// f.insert("alice")?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(CountingBloomFilter::load_streamed(&bytes, bytes.len() as u64)?, f);
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes), and [`Error::Io`] from the
    /// source.
    pub fn load_streamed(source: &dyn PageRead, total: u64) -> Result<Self> {
        Self::load_streamed_with(source, total, |r, payload, counters| {
            Counters::from_words(
                payload.words(r, counters.div_ceil(16), "counters")?,
                counters,
            )
        })
    }
}

/// Persistence in the binary format of `approxset_core::format`.
impl ScalableBloomFilter {
    /// The filter in the versioned binary format (see `docs/format.md`):
    /// its parameters, then every stage as a partitioned filter body.
    ///
    /// # Errors
    /// None: every filter of the crate serializes. The `Result` is the
    /// trait's signature ([`Membership::to_bytes`](approxset_core::Membership::to_bytes)).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new(
            tag::SCALABLE,
            self.key,
            self.memory_bytes() + 64 * self.stages.len(),
        );
        w.u64(self.initial_capacity as u64)
            .f64(self.fp_rate)
            .f64(self.growth)
            .f64(self.tightening)
            .u64(self.max_bytes.map_or(u64::MAX, |m| m as u64))
            .u64(self.len as u64)
            .u64(self.stages.len() as u64);
        for stage in &self.stages {
            stage.write_body(&mut w);
        }
        Ok(w.finish())
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// parameter and stage checked.
    ///
    /// # Errors
    /// As [`BloomFilter::from_bytes`](crate::BloomFilter::from_bytes), and
    /// [`Error::Corrupt`] for a parameter outside the builder's range
    /// (growth, tightening, rate) or stages that contradict the chain's
    /// parameters (a stage's capacity, rate or size, a stage holding more
    /// than its capacity, a stage before the newest not full, `len` below
    /// the stages' sum, memory over `max_bytes`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::open_variant(bytes, tag::SCALABLE)?;
        let key = r.key();
        let initial_capacity = r.usize("initial capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        let growth = r.f64("growth")?;
        let tightening = r.f64("tightening")?;
        let max_bytes = match r.u64("max_bytes")? {
            u64::MAX => None,
            m => Some(usize::try_from(m).map_err(|_| {
                Error::corrupt(format!("max_bytes {m} does not fit this platform"))
            })?),
        };
        let len = r.usize("len")?;
        let count = r.u64("stage count")?;
        // Validate like the builder does.
        ScalableBloomFilter::with_fp_rate(fp_rate)
            .growth(growth)
            .tightening(tightening)
            .validate(initial_capacity)
            .map_err(|e| Error::corrupt(e.to_string()))?;
        // Each stage takes at least 48 bytes: bound the count by the input
        // before reserving anything.
        if count == 0 || count > bytes.len() as u64 / 48 {
            return Err(Error::corrupt(format!(
                "{count} stages in {} bytes",
                bytes.len()
            )));
        }
        let mut stages = Vec::with_capacity(count as usize);
        for _ in 0..count {
            stages.push(PartitionedBloomFilter::read_body(&mut r, key)?);
        }
        r.finish()?;
        let filter = ScalableBloomFilter {
            stages,
            key,
            initial_capacity,
            fp_rate,
            growth,
            tightening,
            max_bytes,
            len,
        };
        filter.check_stages()?;
        Ok(filter)
    }

    approxset_core::stream_methods!();

    /// Checks a loaded chain against its parameters: stage `i` has the
    /// capacity and error rate the chain gives it and the bits they plan
    /// (so a capacity is paid for by bits in the file, and the next stage
    /// is at most about `2·growth` times the newest), holds at most its
    /// capacity, every stage but the newest is full, `len` (inserts
    /// accepted) is at least the sum of the stages' items, and the stages
    /// fit `max_bytes`. Whatever passes stays loadable after any operation:
    /// an insert adds to a stage only below its capacity.
    fn check_stages(&self) -> Result<()> {
        let mut sum: usize = 0;
        let newest = self.stages.len() - 1;
        for (i, stage) in self.stages.iter().enumerate() {
            let (capacity, error) = self
                .stage_params(i)
                .map_err(|e| Error::corrupt(format!("stage {}: {e}", i + 1)))?;
            // Allow the last bit of rounding of another platform's powi.
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
            if !close(stage.capacity() as f64, capacity as f64) || !close(stage.fp_rate(), error) {
                return Err(Error::corrupt(format!(
                    "stage {} holds {} items at {:e}, the chain gives it {capacity} at {error:e}",
                    i + 1,
                    stage.capacity(),
                    stage.fp_rate()
                )));
            }
            // Within 1 % of the plan, allowing for another platform's
            // rounding in the sizing search.
            let planned = sizing::partitioned_params(capacity, error)
                .map_err(|e| Error::corrupt(format!("stage {}: {e}", i + 1)))?;
            if !(stage.bits() as f64 >= planned.bits() as f64 * 0.99
                && stage.bits() as f64 <= planned.bits() as f64 * 1.01)
            {
                return Err(Error::corrupt(format!(
                    "stage {} has {} bits, its capacity and rate plan {}",
                    i + 1,
                    stage.bits(),
                    planned.bits()
                )));
            }
            if stage.len() > stage.capacity() {
                return Err(Error::corrupt(format!(
                    "stage {} holds {} items, more than its capacity {}",
                    i + 1,
                    stage.len(),
                    stage.capacity()
                )));
            }
            if i < newest && stage.len() < stage.capacity() {
                return Err(Error::corrupt(format!(
                    "stage {} holds {} of {} items, yet a later stage exists",
                    i + 1,
                    stage.len(),
                    stage.capacity()
                )));
            }
            sum = sum
                .checked_add(stage.len())
                .ok_or_else(|| Error::corrupt("the stages' items overflow a count"))?;
        }
        // Every insert counts in `len`, but only those not already present
        // are stored in a stage.
        if sum > self.len {
            return Err(Error::corrupt(format!(
                "len {} is below the {sum} items of the stages",
                self.len
            )));
        }
        if let Some(max) = self.max_bytes {
            if self.memory_bytes() > max {
                return Err(Error::corrupt(format!(
                    "stages take {} bytes, more than max_bytes {max}",
                    self.memory_bytes()
                )));
            }
        }
        Ok(())
    }
}
