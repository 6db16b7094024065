//! serde support shared by every filter (feature `serde`): a filter
//! serializes as its binary [format](crate::format) — a byte string holding
//! the format version and checksum — and deserializes through the same
//! validating loader, so a deserialized filter can never panic later.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;

/// Serializes a filter's binary form as a serde byte string.
///
/// # Errors
/// The serializer's.
pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// Deserializes a byte string (or, from formats without byte strings such
/// as JSON, a sequence of `u8`) and loads it with `from_bytes`; a load error
/// becomes the deserializer's error, with the loader's message.
///
/// # Errors
/// The deserializer's, and any error of `from_bytes`.
pub fn deserialize<'de, D, T>(
    deserializer: D,
    from_bytes: fn(&[u8]) -> crate::Result<T>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_bytes(FilterVisitor {
        from_bytes,
        marker: PhantomData,
    })
}

struct FilterVisitor<T> {
    from_bytes: fn(&[u8]) -> crate::Result<T>,
    marker: PhantomData<fn() -> T>,
}

impl<'de, T> Visitor<'de> for FilterVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an approxset filter in its binary format")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        (self.from_bytes)(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        // Grow with the elements actually present, whatever the size hint says.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        (self.from_bytes)(&bytes).map_err(de::Error::custom)
    }
}

/// Implements `serde::Serialize` and `serde::Deserialize` for a filter type
/// with an inherent `to_bytes(&self) -> Result<Vec<u8>>` and `from_bytes(&[u8]) ->
/// Result<Self>`: it serializes as its binary format ([`serialize`]) and
/// deserializes through `from_bytes` ([`deserialize`]). The brackets hold
/// the impl's generic parameters, as for
/// [`impl_approx_set!`](crate::impl_approx_set). The calling crate must
/// depend on `serde`.
///
/// ```ignore
/// approxset_core::serde_as_binary_format!([L: Layout, C: Cells<L>] Bloom<L, C>);
/// approxset_core::serde_as_binary_format!([] CuckooFilter);
/// ```
#[macro_export]
macro_rules! serde_as_binary_format {
    ([$($gen:tt)*] $ty:ty) => {
        impl<$($gen)*> ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                let bytes = self.to_bytes().map_err(::serde::ser::Error::custom)?;
                $crate::serde_support::serialize(&bytes, serializer)
            }
        }

        impl<'de, $($gen)*> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::serde_support::deserialize(deserializer, Self::from_bytes)
            }
        }
    };
}
