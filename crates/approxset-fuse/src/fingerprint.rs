//! The fingerprint widths of the binary fuse filter: one generic
//! construction and lookup over [`Fingerprint`], implemented for `u8`,
//! `u16` and `u32`, and [`Cells`], the array of one of them.

use std::fmt;
use std::ops::BitXor;

/// An `f`-bit fingerprint cell (`f` = 8, 16 or 32).
pub(crate) trait Fingerprint:
    Copy + Eq + Default + BitXor<Output = Self> + fmt::Debug + Send + Sync + 'static
{
    /// Bits `f`.
    const BITS: u32;
    /// Bytes of a cell in the format, `f / 8`.
    const BYTES: usize;

    /// The fingerprint of a key's fuse hash: its low `f` bits after folding
    /// the high half onto the low one, `hash ⊕ (hash ≫ 32)`, so that it
    /// draws on bits the positions use least.
    fn from_hash(hash: u64) -> Self;

    /// Appends `cells` little-endian.
    fn extend_le(cells: &[Self], out: &mut Vec<u8>);

    /// Cells from little-endian bytes (`bytes.len()` a multiple of
    /// [`BYTES`](Self::BYTES)).
    fn from_le(bytes: &[u8]) -> Vec<Self>;

    /// The array of this width.
    fn wrap(cells: Box<[Self]>) -> Cells;
}

macro_rules! fingerprint {
    ($ty:ty, $variant:ident) => {
        impl Fingerprint for $ty {
            const BITS: u32 = <$ty>::BITS;
            const BYTES: usize = std::mem::size_of::<$ty>();

            #[inline(always)]
            fn from_hash(hash: u64) -> Self {
                (hash ^ (hash >> 32)) as $ty
            }

            fn extend_le(cells: &[Self], out: &mut Vec<u8>) {
                out.reserve(cells.len() * Self::BYTES);
                for c in cells {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }

            fn from_le(bytes: &[u8]) -> Vec<Self> {
                bytes
                    .chunks_exact(Self::BYTES)
                    .map(|c| <$ty>::from_le_bytes(c.try_into().expect("a whole cell")))
                    .collect()
            }

            fn wrap(cells: Box<[Self]>) -> Cells {
                Cells::$variant(cells)
            }
        }
    };
}

fingerprint!(u8, W8);
fingerprint!(u16, W16);
fingerprint!(u32, W32);

/// The fingerprint array of a filter, of one of the three widths.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Cells {
    /// 8-bit fingerprints.
    W8(Box<[u8]>),
    /// 16-bit fingerprints.
    W16(Box<[u16]>),
    /// 32-bit fingerprints.
    W32(Box<[u32]>),
}

/// Runs `$body` with `$cells` bound to the filter's fingerprint slice, of
/// type `&[u8]`, `&[u16]` or `&[u32]`: the generic code is monomorphised
/// per width and picked by one predictable branch.
macro_rules! with_cells {
    ($table:expr, $cells:ident => $body:expr) => {
        match $table {
            $crate::fingerprint::Cells::W8($cells) => $body,
            $crate::fingerprint::Cells::W16($cells) => $body,
            $crate::fingerprint::Cells::W32($cells) => $body,
        }
    };
}
pub(crate) use with_cells;

impl Cells {
    /// Fingerprint bits `f`.
    pub(crate) fn bits(&self) -> u32 {
        with_cells!(self, c => bits_of(c))
    }

    /// Number of cells.
    pub(crate) fn len(&self) -> usize {
        with_cells!(self, c => c.len())
    }

    /// Bytes of the array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.len() * (self.bits() as usize / 8)
    }

    /// The cells, little-endian.
    pub(crate) fn to_le(&self) -> Vec<u8> {
        let mut out = Vec::new();
        with_cells!(self, c => extend(c, &mut out));
        out
    }

    /// Cells of `bits` bits from little-endian bytes (a whole number of
    /// cells; `bits` one of 8, 16, 32).
    pub(crate) fn from_le(bits: u32, bytes: &[u8]) -> Cells {
        match bits {
            8 => Cells::W8(bytes.into()),
            16 => Cells::W16(<u16 as Fingerprint>::from_le(bytes).into()),
            _ => Cells::W32(<u32 as Fingerprint>::from_le(bytes).into()),
        }
    }
}

fn bits_of<F: Fingerprint>(_: &[F]) -> u32 {
    F::BITS
}

fn extend<F: Fingerprint>(cells: &[F], out: &mut Vec<u8>) {
    F::extend_le(cells, out)
}
