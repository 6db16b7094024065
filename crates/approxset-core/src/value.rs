//! [`Value`]: one value of a filter's parameters.

use std::fmt;

/// One value of [`Membership::parameters`](crate::Membership::parameters): a count or a real number.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// A count (bits, hash functions, buckets, stages, bytes).
    Count(u64),
    /// A real number (a rate, a ratio, a load).
    Real(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Real(x) => write!(f, "{x}"),
        }
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Count(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Count(n.into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Self {
        Value::Count(n as u64)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Real(x)
    }
}
