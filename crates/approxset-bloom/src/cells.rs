//! The storage a [`Bloom`](crate::Bloom) filter keeps at its positions: one
//! bit each ([`BitVec`], the classic and partitioned filters) or a 4-bit
//! counter each ([`Counters`], the counting filter). The filter's hashing,
//! sizing, persistence and bookkeeping are written once over
//! [`Cells`].

pub use crate::atomic::AtomicBits;
pub use crate::bits::BitVec;
pub use crate::cell_traits::{Cells, CellsRead, Combine, ViewCells};
pub use crate::counters::Counters;
pub use crate::shared_counting::AtomicCounters;
pub use crate::view::{BitsView, CountersView};
