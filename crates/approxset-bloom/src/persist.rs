//! The parameters every Bloom-family filter writes before its payload, and
//! their validation on load. The envelope (magic, version, checksum) is
//! `approxset_core::format`'s.

use approxset_core::format::{Reader, Writer};
use approxset_core::sizing::{MAX_BITS, MAX_HASHES};
use approxset_core::{Error, Result};

/// Cells (bits or counters), hashes and bookkeeping of one Bloom filter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellParams {
    pub(crate) cells: u64,
    pub(crate) hashes: u32,
    pub(crate) len: usize,
    pub(crate) capacity: usize,
    pub(crate) fp_rate: f64,
}

impl CellParams {
    /// Appends the parameters: cells u64, hashes u32, reserved u32 (0),
    /// len u64, capacity u64, fp_rate f64.
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u64(self.cells)
            .u32(self.hashes)
            .u32(0)
            .u64(self.len as u64)
            .u64(self.capacity as u64)
            .f64(self.fp_rate);
    }

    /// Reads and validates the parameters; `what` names the cells in errors.
    pub(crate) fn read(r: &mut Reader<'_>, what: &str) -> Result<Self> {
        let cells = r.u64(what)?;
        let hashes = r.u32("hashes")?;
        let reserved = r.u32("reserved")?;
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
        if reserved != 0 {
            return Err(Error::corrupt(format!(
                "reserved field is {reserved}, not 0"
            )));
        }
        if capacity == 0 {
            return Err(Error::corrupt("capacity is 0"));
        }
        if !(fp_rate > 0.0 && fp_rate <= 1.0) {
            return Err(Error::corrupt(format!("fp_rate {fp_rate} outside (0, 1]")));
        }
        Ok(CellParams {
            cells,
            hashes,
            len,
            capacity,
            fp_rate,
        })
    }
}
