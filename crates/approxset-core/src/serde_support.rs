//! serde support shared by every filter (feature `serde`): a filter
//! serializes as its binary [format](crate::format), the bytes holding the
//! format version and checksum, and deserializes through the same
//! validating loader, so a deserialized filter can never panic later.
//!
//! A binary serializer (bincode, postcard) gets a byte string. A
//! human-readable one (JSON, YAML, TOML) gets the same bytes as one base64
//! string (RFC 4648, standard alphabet, padded): 4 characters per 3 bytes,
//! where JSON's array of numbers took up to 4 per byte. Reading accepts the
//! base64 string, a byte string and the array of numbers that versions
//! before the string form wrote.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;

/// Serializes a filter's binary form: a byte string for a binary
/// serializer, one base64 string for a human-readable one
/// ([`Serializer::is_human_readable`]).
///
/// # Errors
/// The serializer's.
pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.serialize_str(&base64::encode(bytes))
    } else {
        serializer.serialize_bytes(bytes)
    }
}

/// Deserializes a filter's binary form and loads it with `from_bytes`: a
/// byte string, a base64 string (what [`serialize`] writes to a
/// human-readable format) or a sequence of `u8` (what it wrote before); a
/// load error becomes the deserializer's error, with the loader's message.
///
/// # Errors
/// The deserializer's, a string that is not base64, and any error of
/// `from_bytes`.
pub fn deserialize<'de, D, T>(
    deserializer: D,
    from_bytes: fn(&[u8]) -> crate::Result<T>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let visitor = FilterVisitor {
        from_bytes,
        marker: PhantomData,
    };
    if deserializer.is_human_readable() {
        // A string or an array: only the input says which (serde_json's
        // `deserialize_bytes` would hand over a string's text as its bytes).
        deserializer.deserialize_any(visitor)
    } else {
        deserializer.deserialize_bytes(visitor)
    }
}

struct FilterVisitor<T> {
    from_bytes: fn(&[u8]) -> crate::Result<T>,
    marker: PhantomData<fn() -> T>,
}

impl<'de, T> Visitor<'de> for FilterVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an approxset filter in its binary format (bytes or a base64 string)")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        (self.from_bytes)(bytes).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        let bytes = base64::decode(text).map_err(E::custom)?;
        self.visit_bytes(&bytes)
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

/// Base64 of RFC 4648 §4 (alphabet `A–Z a–z 0–9 + /`, `=` padding), the
/// few lines serde support needs rather than a dependency.
mod base64 {
    use std::fmt;

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// `bytes` as padded base64.
    pub(super) fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
                out.push(if i <= chunk.len() {
                    char::from(ALPHABET[((n >> shift) & 63) as usize])
                } else {
                    '='
                });
            }
        }
        out
    }

    /// Why a string is not base64.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) enum DecodeError {
        /// The length is not a multiple of 4.
        Length(usize),
        /// A character outside the alphabet, or `=` other than at the end,
        /// at this byte offset.
        Character(usize),
        /// Padding whose discarded bits are not zero (not canonical).
        Trailing,
    }

    impl fmt::Display for DecodeError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                Self::Length(n) => {
                    write!(f, "invalid base64: {n} characters, not a multiple of 4")
                }
                Self::Character(at) => write!(f, "invalid base64: bad character at offset {at}"),
                Self::Trailing => f.write_str("invalid base64: nonzero bits in the padding"),
            }
        }
    }

    fn value(c: u8) -> Option<u32> {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        Some(u32::from(v))
    }

    /// Decodes padded base64, strictly: the canonical encoding of some
    /// bytes and nothing else.
    pub(super) fn decode(text: &str) -> Result<Vec<u8>, DecodeError> {
        let text = text.as_bytes();
        if text.len() % 4 != 0 {
            return Err(DecodeError::Length(text.len()));
        }
        let mut out = Vec::with_capacity(text.len() / 4 * 3);
        let quads = text.len() / 4;
        for (q, quad) in text.chunks_exact(4).enumerate() {
            // `=` only in the last quad, as its last one or two characters.
            let pad = if q + 1 == quads {
                quad.iter().rev().take_while(|&&c| c == b'=').count()
            } else {
                0
            };
            if pad > 2 {
                return Err(DecodeError::Character(q * 4 + 4 - pad));
            }
            let mut n = 0u32;
            for (i, &c) in quad[..4 - pad].iter().enumerate() {
                let v = value(c).ok_or(DecodeError::Character(q * 4 + i))?;
                n = (n << 6) | v;
            }
            n <<= 6 * pad as u32;
            let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            if three[3 - pad..].iter().any(|&b| b != 0) {
                return Err(DecodeError::Trailing);
            }
            out.extend_from_slice(&three[..3 - pad]);
        }
        Ok(out)
    }

    #[cfg(test)]
    mod tests {
        use super::{DecodeError, decode, encode};

        #[test]
        fn rfc_4648_vectors() {
            let vectors = [
                ("", ""),
                ("f", "Zg=="),
                ("fo", "Zm8="),
                ("foo", "Zm9v"),
                ("foob", "Zm9vYg=="),
                ("fooba", "Zm9vYmE="),
                ("foobar", "Zm9vYmFy"),
            ];
            for (plain, coded) in vectors {
                assert_eq!(encode(plain.as_bytes()), coded);
                assert_eq!(decode(coded).unwrap(), plain.as_bytes());
            }
        }

        #[test]
        fn every_byte_and_length_round_trips() {
            let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
            for len in 0..bytes.len() {
                let coded = encode(&bytes[..len]);
                assert_eq!(coded.len(), len.div_ceil(3) * 4);
                assert_eq!(decode(&coded).unwrap(), &bytes[..len], "length {len}");
            }
            assert_eq!(encode(&[0xfb, 0xff]), "+/8=");
        }

        #[test]
        fn malformed_input_is_an_error() {
            assert_eq!(decode("Zg="), Err(DecodeError::Length(3)));
            assert_eq!(decode("Zm9v Yg=="), Err(DecodeError::Length(9)));
            assert_eq!(decode("Zm9-"), Err(DecodeError::Character(3)));
            assert_eq!(decode("Zg==Zm9v"), Err(DecodeError::Character(2)));
            assert_eq!(decode("Z==="), Err(DecodeError::Character(1)));
            assert_eq!(decode("===="), Err(DecodeError::Character(0)));
            assert_eq!(decode("Zm=v"), Err(DecodeError::Character(2)));
            assert_eq!(decode("Zh=="), Err(DecodeError::Trailing));
            assert_eq!(decode("Zm9="), Err(DecodeError::Trailing));
            assert_eq!(decode("é12"), Err(DecodeError::Character(0)));
        }
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
