//! The fingerprint widths of the binary fuse filter: one generic
//! construction and lookup over [`Fingerprint`], implemented for `u8`,
//! `u16` and `u32`; [`Cells`], the array of one of them, and
//! [`CellsView`], the same array read in place from a saved filter's
//! bytes; [`CellRead`], the one cell read the lookup makes of either.

use std::fmt;
use std::marker::PhantomData;
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
    fn from_le(bytes: &[u8]) -> Vec<Self> {
        bytes.chunks_exact(Self::BYTES).map(Self::read_le).collect()
    }

    /// The cell whose little-endian bytes are `bytes` (exactly
    /// [`BYTES`](Self::BYTES) of them).
    fn read_le(bytes: &[u8]) -> Self;

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

            #[inline(always)]
            fn read_le(bytes: &[u8]) -> Self {
                <$ty>::from_le_bytes(bytes.try_into().expect("a whole cell"))
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

/// One cell of a fingerprint array, read by index: the filter's own
/// slice, or a saved filter's little-endian bytes where they lie.
pub(crate) trait CellRead {
    /// The cells' fingerprint type.
    type F: Fingerprint;
    /// Cell `i` (in bounds: a position of the filter's layout).
    fn cell(&self, i: usize) -> Self::F;
}

impl<F: Fingerprint> CellRead for [F] {
    type F = F;
    #[inline(always)]
    fn cell(&self, i: usize) -> F {
        self[i]
    }
}

impl<T: CellRead + ?Sized> CellRead for &T {
    type F = T::F;
    #[inline(always)]
    fn cell(&self, i: usize) -> T::F {
        (**self).cell(i)
    }
}

/// Cells of `F`, little-endian, in borrowed bytes at any alignment.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Le<'a, F>(&'a [u8], PhantomData<F>);

impl<F: Fingerprint> CellRead for Le<'_, F> {
    type F = F;
    #[inline(always)]
    fn cell(&self, i: usize) -> F {
        F::read_le(&self.0[i * F::BYTES..(i + 1) * F::BYTES])
    }
}

/// A saved filter's fingerprint array where it lies: the payload's bytes,
/// read a cell at a time (bytes alone for 8-bit cells).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellsView<'a> {
    /// 8-bit fingerprints.
    W8(&'a [u8]),
    /// 16-bit fingerprints.
    W16(Le<'a, u16>),
    /// 32-bit fingerprints.
    W32(Le<'a, u32>),
}

/// Runs `$body` with `$cells` bound to the view's cells (a `&[u8]` or an
/// [`Le`]), as [`with_cells!`] does for the owned array.
macro_rules! with_view {
    ($view:expr, $cells:ident => $body:expr) => {
        match $view {
            $crate::fingerprint::CellsView::W8($cells) => $body,
            $crate::fingerprint::CellsView::W16($cells) => $body,
            $crate::fingerprint::CellsView::W32($cells) => $body,
        }
    };
}
pub(crate) use with_view;

impl<'a> CellsView<'a> {
    /// The cells of `bits` bits (8, 16 or 32) in `bytes`, a whole number
    /// of them.
    pub(crate) fn new(bits: u32, bytes: &'a [u8]) -> Self {
        match bits {
            8 => CellsView::W8(bytes),
            16 => CellsView::W16(Le(bytes, PhantomData)),
            _ => CellsView::W32(Le(bytes, PhantomData)),
        }
    }

    /// The cells' bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        match *self {
            CellsView::W8(b) | CellsView::W16(Le(b, _)) | CellsView::W32(Le(b, _)) => b,
        }
    }

    /// Fingerprint bits `f`.
    pub(crate) fn bits(&self) -> u32 {
        match self {
            CellsView::W8(_) => 8,
            CellsView::W16(_) => 16,
            CellsView::W32(_) => 32,
        }
    }

    /// Bytes of the array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bytes().len()
    }

    /// The cells, little-endian (a copy of the bytes).
    pub(crate) fn to_le(self) -> Vec<u8> {
        self.bytes().to_vec()
    }

    /// The owned array of the same cells.
    pub(crate) fn to_cells(self) -> Cells {
        Cells::from_le(self.bits(), self.bytes())
    }
}

fn bits_of<F: Fingerprint>(_: &[F]) -> u32 {
    F::BITS
}

fn extend<F: Fingerprint>(cells: &[F], out: &mut Vec<u8>) {
    F::extend_le(cells, out)
}
