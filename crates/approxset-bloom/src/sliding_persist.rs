//! Persistence of the sliding-window filter: its fields in the binary
//! format, each checked against the others on load.

use approxset_core::format::{Reader, Writer, tag};
use approxset_core::sizing::{SlidingParams, validate_bloom_fp_rate};
use approxset_core::{Error, HashKey, Result};

use crate::bits::BitVec;
use crate::sliding::SlidingBloomFilter;

/// The format version that has the sliding filter's tag.
const FORMAT_VERSION: u16 = 3;

impl SlidingBloomFilter {
    /// The filter in the versioned binary format (`docs/format.md`).
    ///
    /// # Errors
    /// None: the `Result` is the trait's signature.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let p = self.params;
        let mut w = Writer::new(
            tag::SLIDING,
            self.key,
            self.bits.memory_bytes() + 8 * self.counts.len() + 80,
        );
        w.require_version(FORMAT_VERSION);
        w.u32(p.hashes())
            .u32(p.generations())
            .u64(p.generation_size())
            .u64(p.slice_bits())
            .u64(self.capacity as u64)
            .f64(self.fp_rate)
            .u64(self.interval)
            .u64(self.tick)
            .u64(self.generation)
            .u64(u64::from(self.newest))
            .words(&self.counts)
            .words(self.bits.words());
        Ok(w.finish())
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes), every
    /// field checked against the others, so a loaded filter cannot panic.
    ///
    /// # Errors
    /// The envelope errors of [`BloomFilter::from_bytes`](crate::BloomFilter::from_bytes),
    /// and [`Error::Corrupt`] for parameters out of range or inconsistent
    /// with each other (sizes, the target rate they must meet, the newest
    /// block, the generation counts, the payload length).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::open_variant(bytes, tag::SLIDING)?;
        if r.version() < FORMAT_VERSION {
            return Err(Error::corrupt(format!(
                "a sliding filter in a version-{} file: the variant is new in version \
                 {FORMAT_VERSION}",
                r.version()
            )));
        }
        let key = r.key();
        let filter = Self::read_body(&mut r, key)?;
        r.finish()?;
        Ok(filter)
    }

    approxset_core::stream_methods!();

    fn read_body(r: &mut Reader<'_>, key: HashKey) -> Result<Self> {
        let k = r.u32("hashes")?;
        let gens = r.u32("generations")?;
        let g = r.u64("generation size")?;
        let m = r.u64("block bits")?;
        let capacity = r.usize("capacity")?;
        let fp_rate = r.f64("fp_rate")?;
        let interval = r.u64("generation interval")?;
        let tick = r.u64("tick")?;
        let generation = r.u64("generation")?;
        let newest = r.u64("newest block")?;
        let corrupt = |e: Error| Error::corrupt(e.to_string());
        let params = SlidingParams::new(k, gens, g, m).map_err(corrupt)?;
        validate_bloom_fp_rate(fp_rate).map_err(corrupt)?;
        // The sizes must meet the target they were built for (a loose
        // margin for another platform's last bits of rounding).
        let worst = params.fp_rate();
        if worst > fp_rate * (1.0 + 1e-9) {
            return Err(Error::corrupt(format!(
                "k {k}, r {gens}, g {g} and m {m} give {worst:e} at the worst moment, above \
                 the target {fp_rate:e}"
            )));
        }
        usize::try_from(params.window())
            .map_err(|_| Error::corrupt(format!("window {} does not fit", params.window())))?;
        // g = ⌈capacity / r⌉, as the builder makes it.
        if capacity == 0 || (capacity as u64).div_ceil(u64::from(gens)) != g {
            return Err(Error::corrupt(format!(
                "capacity {capacity} over {gens} generations of {g} (g is ⌈capacity / r⌉)"
            )));
        }
        if interval == 0 {
            if tick != 0 {
                return Err(Error::corrupt(format!(
                    "tick {tick} on a filter without a clock"
                )));
            }
        } else if interval.checked_mul(u64::from(gens) + 1).is_none() {
            return Err(Error::corrupt(format!(
                "generation interval {interval} times {} generations passes u64",
                gens + 1
            )));
        }
        let slices = params.slices();
        if newest >= u64::from(slices) {
            return Err(Error::corrupt(format!("newest block {newest} of {slices}")));
        }
        let newest = newest as u32;
        let s = u64::from(slices);
        if generation < s && u64::from(newest) != (s - generation % s) % s {
            return Err(Error::corrupt(format!(
                "newest block {newest} after {generation} generations (expected {})",
                (s - generation % s) % s
            )));
        }
        let counts = r.words(s, "generation counts")?;
        for (age, physical) in (0..slices).map(|a| (a, (newest + a) % slices)) {
            let count = counts[physical as usize];
            if interval == 0 && count > g {
                return Err(Error::corrupt(format!(
                    "generation {age} back holds {count} inserts, more than {g}"
                )));
            }
            if u64::from(age) > generation && count > 0 {
                return Err(Error::corrupt(format!(
                    "generation {age} back holds {count} inserts, but only {generation} \
                     generations have ended"
                )));
            }
        }
        let bits = BitVec::read(r, params.bits(), "bits")?;
        Ok(SlidingBloomFilter {
            bits,
            params,
            newest,
            generation,
            counts,
            interval,
            tick,
            capacity,
            key,
            fp_rate,
        })
    }
}
