//! The fingerprint widths of the binary fuse filter: one generic
//! construction and lookup over [`Fingerprint`], implemented for `u8`,
//! `u16` and `u32`; [`Table`], an array of cells checked against the
//! [`Layout`] it answers for, whose lookups read their three cells without
//! bounds checks; [`Cells`], the owned table of one of the widths, and
//! [`CellsView`], the same table read in place from a saved filter's
//! bytes; [`CellRead`], the one cell read the lookup makes of either.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{BitXor, Deref};

use approxset_core::{Digest, Error, Result};

use crate::layout::{Layout, fuse_hash};

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

    /// The owned table of this width.
    fn wrap(table: Table<Box<[Self]>>) -> Cells;
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

            fn wrap(table: Table<Box<[Self]>>) -> Cells {
                Cells::$variant(table)
            }
        }
    };
}

fingerprint!(u8, W8);
fingerprint!(u16, W16);
fingerprint!(u32, W32);

/// Cells of a fingerprint array read by index: the filter's own slice, or
/// a saved filter's little-endian bytes where they lie.
pub(crate) trait CellRead {
    /// The cells' fingerprint type.
    type F: Fingerprint;

    /// Number of whole cells.
    fn len(&self) -> usize;

    /// Cell `i`, without a bounds check.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[allow(unsafe_code)]
    unsafe fn get(&self, i: usize) -> Self::F;
}

/// The filter's own cells: a boxed slice, or a borrowed one.
impl<F: Fingerprint, S: Deref<Target = [F]>> CellRead for S {
    type F = F;

    #[inline(always)]
    fn len(&self) -> usize {
        (**self).len()
    }

    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn get(&self, i: usize) -> F {
        // SAFETY: the caller promises `i < self.len()`, the slice's length.
        unsafe { *(**self).get_unchecked(i) }
    }
}

/// Cells of `F`, little-endian, in borrowed bytes at any alignment.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Le<'a, F>(&'a [u8], PhantomData<F>);

impl<F: Fingerprint> CellRead for Le<'_, F> {
    type F = F;

    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len() / F::BYTES
    }

    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn get(&self, i: usize) -> F {
        // SAFETY: the caller promises `i < self.len()`, that is
        // `i < bytes.len() / BYTES`, so `(i + 1)·BYTES ≤ bytes.len()`: the
        // range is within the bytes (and does not overflow).
        F::read_le(unsafe { self.0.get_unchecked(i * F::BYTES..(i + 1) * F::BYTES) })
    }
}

/// A fingerprint array and the layout it answers for, checked against
/// each other when made: it holds exactly `layout.array_len()` cells, so
/// that every position of the layout is in bounds and the lookups read
/// their three cells unchecked. The fields are private to this module and
/// the cells immutable, so [`Table::new`] (or a conversion of a table of
/// the same count) is the only way to one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Table<S> {
    layout: Layout,
    cells: S,
}

impl<S: CellRead> Table<S> {
    /// `cells` for `layout`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `cells` holds other than
    /// `layout.array_len()` cells.
    pub(crate) fn new(layout: Layout, cells: S) -> Result<Self> {
        if cells.len() != layout.array_len() {
            return Err(Error::corrupt(format!(
                "{} cells where {} segments of {} take {}",
                cells.len(),
                u64::from(layout.segment_count()) + 2,
                layout.segment_length(),
                layout.array_len()
            )));
        }
        Ok(Table { layout, cells })
    }

    /// The cells.
    pub(crate) fn cells(&self) -> &S {
        &self.cells
    }

    /// Fingerprint bits `f`.
    pub(crate) fn bits(&self) -> u32 {
        S::F::BITS
    }

    /// Whether the key of fuse hash `hash` may be present: three reads,
    /// XOR, compare.
    #[inline(always)]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        let [a, b, c] = self.layout.positions(hash);
        #[allow(unsafe_code)]
        // SAFETY: `Layout::positions` is below `layout.array_len()` for
        // every hash and every layout (`Layout::new` makes `L` a power of
        // two and `c·L` the range of the first position), and
        // `cells.len() == layout.array_len()`, checked by `Table::new` and
        // kept by the private, immutable fields.
        let [x, y, z] = unsafe { [self.cells.get(a), self.cells.get(b), self.cells.get(c)] };
        S::F::from_hash(hash) ^ x ^ y ^ z == S::F::default()
    }

    /// [`contains`](Self::contains) of every digest under `seed`, appended
    /// to `out`.
    #[inline(always)]
    pub(crate) fn contains_all(&self, seed: u64, digests: &[Digest], out: &mut Vec<bool>) {
        out.extend(
            digests
                .iter()
                .map(|d| self.contains(fuse_hash(d.h1(), seed))),
        );
    }
}

/// The fingerprint table of a filter, of one of the three widths.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Cells {
    /// 8-bit fingerprints.
    W8(Table<Box<[u8]>>),
    /// 16-bit fingerprints.
    W16(Table<Box<[u16]>>),
    /// 32-bit fingerprints.
    W32(Table<Box<[u32]>>),
}

/// Runs `$body` with `$table` bound to the filter's [`Table`] of `u8`,
/// `u16` or `u32` cells: the generic code is monomorphised per width and
/// picked by one predictable branch.
macro_rules! with_cells {
    ($cells:expr, $table:ident => $body:expr) => {
        match $cells {
            $crate::fingerprint::Cells::W8($table) => $body,
            $crate::fingerprint::Cells::W16($table) => $body,
            $crate::fingerprint::Cells::W32($table) => $body,
        }
    };
}

impl Cells {
    /// The table of `cells` for `layout`.
    ///
    /// # Errors
    /// As [`Table::new`].
    pub(crate) fn new<F: Fingerprint>(layout: Layout, cells: Box<[F]>) -> Result<Cells> {
        Ok(F::wrap(Table::new(layout, cells)?))
    }

    /// Fingerprint bits `f`.
    pub(crate) fn bits(&self) -> u32 {
        with_cells!(self, t => t.bits())
    }

    /// Number of cells.
    pub(crate) fn len(&self) -> usize {
        with_cells!(self, t => t.cells().len())
    }

    /// Bytes of the array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.len() * (self.bits() as usize / 8)
    }

    /// The cells, little-endian.
    pub(crate) fn to_le(&self) -> Vec<u8> {
        let mut out = Vec::new();
        with_cells!(self, t => extend(t.cells(), &mut out));
        out
    }

    /// The table of `bits`-bit cells (`bits` one of 8, 16, 32) from
    /// little-endian `bytes`, for `layout`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `bytes` are not `layout.array_len()` whole
    /// cells.
    pub(crate) fn from_le(layout: Layout, bits: u32, bytes: &[u8]) -> Result<Cells> {
        check_bytes(layout, bits, bytes)?;
        match bits {
            8 => Cells::new::<u8>(layout, bytes.into()),
            16 => Cells::new(layout, <u16 as Fingerprint>::from_le(bytes).into()),
            _ => Cells::new(layout, <u32 as Fingerprint>::from_le(bytes).into()),
        }
    }

    /// Whether the key of fuse hash `hash` may be present.
    #[inline(always)]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        with_cells!(self, t => t.contains(hash))
    }

    /// [`contains`](Self::contains) of every digest under `seed`.
    #[inline(always)]
    pub(crate) fn contains_all(&self, seed: u64, digests: &[Digest], out: &mut Vec<bool>) {
        with_cells!(self, t => t.contains_all(seed, digests, out))
    }
}

/// A saved filter's fingerprint table where it lies: the payload's bytes,
/// read a cell at a time (bytes alone for 8-bit cells).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellsView<'a> {
    /// 8-bit fingerprints.
    W8(Table<&'a [u8]>),
    /// 16-bit fingerprints.
    W16(Table<Le<'a, u16>>),
    /// 32-bit fingerprints.
    W32(Table<Le<'a, u32>>),
}

/// Runs `$body` with `$table` bound to the view's [`Table`] (of a `&[u8]`
/// or an [`Le`]), as [`with_cells!`] does for the owned table.
macro_rules! with_view {
    ($view:expr, $table:ident => $body:expr) => {
        match $view {
            $crate::fingerprint::CellsView::W8($table) => $body,
            $crate::fingerprint::CellsView::W16($table) => $body,
            $crate::fingerprint::CellsView::W32($table) => $body,
        }
    };
}

impl<'a> CellsView<'a> {
    /// The table of `bits`-bit cells (8, 16 or 32) in `bytes`, for
    /// `layout`: foreign bytes, checked before any lookup trusts them.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `bytes` are not `layout.array_len()` whole
    /// cells.
    pub(crate) fn new(layout: Layout, bits: u32, bytes: &'a [u8]) -> Result<Self> {
        check_bytes(layout, bits, bytes)?;
        Ok(match bits {
            8 => CellsView::W8(Table::new(layout, bytes)?),
            16 => CellsView::W16(Table::new(layout, Le(bytes, PhantomData))?),
            _ => CellsView::W32(Table::new(layout, Le(bytes, PhantomData))?),
        })
    }

    /// The cells' bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        match *self {
            CellsView::W8(t) => t.cells,
            CellsView::W16(t) => t.cells.0,
            CellsView::W32(t) => t.cells.0,
        }
    }

    /// Fingerprint bits `f`.
    pub(crate) fn bits(&self) -> u32 {
        with_view!(self, t => t.bits())
    }

    /// Bytes of the array.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bytes().len()
    }

    /// The cells, little-endian (a copy of the bytes).
    pub(crate) fn to_le(self) -> Vec<u8> {
        self.bytes().to_vec()
    }

    /// The owned table of the same cells.
    pub(crate) fn to_cells(self) -> Cells {
        // The same count of cells for the same layout as this view, which
        // `new` checked: a table without a second check.
        fn owned<F: Fingerprint>(layout: Layout, cells: Vec<F>) -> Cells {
            debug_assert_eq!(cells.len(), layout.array_len());
            F::wrap(Table {
                layout,
                cells: cells.into_boxed_slice(),
            })
        }
        match self {
            CellsView::W8(t) => owned(t.layout, t.cells.to_vec()),
            CellsView::W16(t) => owned(t.layout, <u16 as Fingerprint>::from_le(t.cells.0)),
            CellsView::W32(t) => owned(t.layout, <u32 as Fingerprint>::from_le(t.cells.0)),
        }
    }

    /// Whether the key of fuse hash `hash` may be present.
    #[inline(always)]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        with_view!(self, t => t.contains(hash))
    }

    /// [`contains`](Self::contains) of every digest under `seed`.
    #[inline(always)]
    pub(crate) fn contains_all(&self, seed: u64, digests: &[Digest], out: &mut Vec<bool>) {
        with_view!(self, t => t.contains_all(seed, digests, out))
    }
}

/// Checks that `bytes` are exactly `layout.array_len()` cells of `bits`
/// bits (8, 16 or 32).
fn check_bytes(layout: Layout, bits: u32, bytes: &[u8]) -> Result<()> {
    if !matches!(bits, 8 | 16 | 32) {
        return Err(Error::corrupt(format!(
            "fingerprint width {bits} is not 8, 16 or 32"
        )));
    }
    let want = layout.array_len_u64() * u64::from(bits / 8);
    if bytes.len() as u64 != want {
        return Err(Error::corrupt(format!(
            "{} bytes of {bits}-bit fingerprints where the layout takes {want}",
            bytes.len()
        )));
    }
    Ok(())
}

fn extend<F: Fingerprint>(cells: &[F], out: &mut Vec<u8>) {
    F::extend_le(cells, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_of_the_wrong_length_are_refused() {
        let layout = Layout::new(4, 1).unwrap();
        assert_eq!(layout.array_len(), 12);
        for n in [0usize, 11, 13, 24] {
            let cells: Box<[u16]> = vec![0; n].into();
            assert!(Cells::new(layout, cells).is_err(), "{n} cells");
        }
        assert!(Cells::new::<u16>(layout, vec![0; 12].into()).is_ok());
        for bits in [8u32, 16, 32] {
            let whole = 12 * bits as usize / 8;
            for len in [0, whole - 1, whole + 1, whole * 2] {
                let bytes = vec![0u8; len];
                let what = format!("{len} bytes of {bits}-bit cells");
                let err = CellsView::new(layout, bits, &bytes).err();
                assert!(matches!(err, Some(Error::Corrupt { .. })), "{what}");
                assert!(Cells::from_le(layout, bits, &bytes).is_err(), "{what}");
            }
            let bytes = vec![0u8; whole];
            let view = CellsView::new(layout, bits, &bytes).unwrap();
            assert_eq!(view.bits(), bits);
            let owned = view.to_cells();
            assert!(owned == Cells::from_le(layout, bits, &bytes).unwrap());
            assert_eq!(owned.to_le(), bytes);
            // Every cell 0: a hash is found where its fingerprint is 0.
            for hash in [0u64, 1 << 40, u64::MAX, 0x1234_5678_9abc_def0] {
                let found = (hash ^ (hash >> 32)) & ((1u64 << bits) - 1) == 0;
                assert_eq!(owned.contains(hash), found, "{bits}: {hash:#x}");
                assert_eq!(view.contains(hash), found, "{bits}: {hash:#x}");
            }
        }
        assert!(CellsView::new(layout, 24, &[0; 36]).is_err());
    }
}
