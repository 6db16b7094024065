//! The [`Header`]: the envelope of a serialized filter as its first 16
//! bytes state it.

use super::{CHECKSUM_LEN, HASH_FUNCTION_VERSION, HEADER_LEN, MAGIC, VERSION, tag};
use crate::error::{Error, Result};
use crate::hash::HashFunction;

/// The envelope of a serialized filter as its first 16 bytes state it:
/// format version, variant tag, hash function byte and total length. The one place that
/// reads them, for the loaders, the stream reader and tools such as
/// `approxset info`.
///
/// ```
/// # extern crate approxset_core as approxset;
/// use approxset::format::{Header, Writer, tag};
/// use approxset::HashKey;
/// let bytes = Writer::new(tag::CLASSIC, HashKey::from_seed(1), 0).finish();
/// let header = Header::parse(&bytes)?;
/// assert_eq!(header.variant(), Some("classic"));
/// assert_eq!(header.total_len(), bytes.len() as u64);
/// # Ok::<(), approxset_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    version: u16,
    tag: u8,
    hash_code: u8,
    total_len: u64,
}

impl Header {
    /// Reads the first 16 bytes of `bytes`, checking the magic, the version
    /// and that the announced length holds at least a header. The tag and
    /// the hash function byte are reported as found; [`Reader::open`](super::Reader::open)
    /// checks them after the checksum, so that damage is reported as damage.
    ///
    /// # Errors
    /// [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::Truncated`] for fewer than 16 bytes, [`Error::Corrupt`] for
    /// a total length shorter than a header.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let truncated = || Error::Truncated {
            needed: (HEADER_LEN + CHECKSUM_LEN) as u64,
            available: bytes.len() as u64,
        };
        if bytes.len() < 8 {
            // Name the magic problem first if even the first bytes are wrong.
            let n = bytes.len().min(4);
            if bytes[..n] != MAGIC[..n] {
                let mut found = [0u8; 4];
                found[..n].copy_from_slice(&bytes[..n]);
                return Err(Error::BadMagic { found });
            }
            return Err(truncated());
        }
        let magic: [u8; 4] = bytes[..4].try_into().expect("4 bytes");
        if magic != MAGIC {
            return Err(Error::BadMagic { found: magic });
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version > VERSION || version == 0 {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        if bytes.len() < 16 {
            return Err(truncated());
        }
        let total_len = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
        if total_len < (HEADER_LEN + CHECKSUM_LEN) as u64 {
            return Err(Error::corrupt(format!(
                "total length {total_len} is shorter than a header"
            )));
        }
        Ok(Header {
            version,
            tag: bytes[6],
            hash_code: bytes[7],
            total_len,
        })
    }

    /// The format version.
    pub fn version(&self) -> u16 {
        self.version
    }

    /// The variant tag (see [`tag`]).
    pub fn tag(&self) -> u8 {
        self.tag
    }

    /// The variant's name, if the tag is known.
    pub fn variant(&self) -> Option<&'static str> {
        tag::name(self.tag)
    }

    /// The total length in bytes, checksum included.
    pub fn total_len(&self) -> u64 {
        self.total_len
    }

    /// The hash function byte 7 names: SipHash-1-3 before version 3, which
    /// reserved the byte (as flags, 0).
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a byte that is not 0 before version 3, or
    /// not a known function's code from version 3.
    pub fn hash_function(&self) -> Result<HashFunction> {
        let code = self.hash_code;
        if self.version < HASH_FUNCTION_VERSION {
            return match code {
                0 => Ok(HashFunction::SipHash13),
                _ => Err(Error::corrupt(format!(
                    "unknown flags {code:#04x} (format version {} has none; the hash \
                     function is recorded from version {HASH_FUNCTION_VERSION})",
                    self.version
                ))),
            };
        }
        HashFunction::from_code(code)
            .ok_or_else(|| Error::corrupt(format!("unknown hash function code {code}")))
    }

    /// Checks the tag, the hash function byte and that the variant can be
    /// hashed with that function, which it returns.
    ///
    /// # Errors
    /// [`Error::UnknownVariant`], [`Error::Corrupt`] for the hash function.
    pub(crate) fn check_tag_and_hash(&self) -> Result<HashFunction> {
        // The tag first: a newer variant may well use a newer function.
        let Some(name) = tag::name(self.tag) else {
            return Err(Error::UnknownVariant { tag: self.tag });
        };
        let function = self.hash_function()?;
        if !tag::supports_hash(self.tag, function) {
            return Err(Error::corrupt(format!(
                "hash function {function} on a {name} filter, which cannot use it"
            )));
        }
        Ok(function)
    }
}
