//! The methods a filter and a view of it share, in one home: both hold
//! `tables` (a chain of [`Table`](crate::table::Table)s), `plan`, `key`,
//! `len`, `capacity` and `fp_rate`.

/// Defines `len`, `is_empty`, `capacity`, `estimated_fp_rate`,
/// `estimated_items`, `memory_bytes`, `parameters` and `to_bytes` over the
/// fields of a quotient filter or view; `len` documented as given.
macro_rules! chain_methods {
    (len = $len:literal) => {
        approxset_core::bookkeeping_methods!(len = $len);

        /// The number of items the filter was sized for (it grows past it).
        pub fn capacity(&self) -> usize {
            self.capacity
        }

        /// The rate at the current fill: the sum over tables of distinct
        /// fingerprints over fingerprint range.
        pub fn estimated_fp_rate(&self) -> f64 {
            $crate::filter::estimated_fp_rate(&self.tables)
        }

        /// The distinct items it holds, estimated: the distinct fingerprints.
        pub fn estimated_items(&self) -> f64 {
            self.tables.iter().map(|t| t.entries as f64).sum()
        }

        /// Bytes of the tables' blocks and offsets.
        pub fn memory_bytes(&self) -> usize {
            self.tables
                .iter()
                .map($crate::table::Table::memory_bytes)
                .sum()
        }

        /// The parameters by name: `tables`, `remainder_bits` (of the first
        /// table), `slots` (home slots of all tables), `load` (slots in use /
        /// home slots, all tables) and `entries` (distinct fingerprints).
        pub fn parameters(&self) -> Vec<(&'static str, approxset_core::Value)> {
            $crate::filter::parameters(&self.tables, &self.plan)
        }

        /// The filter in the versioned binary format (see `docs/format.md`).
        ///
        /// # Errors
        /// None: every filter serializes. The `Result` is the trait's
        /// signature.
        pub fn to_bytes(&self) -> approxset_core::Result<Vec<u8>> {
            Ok($crate::save::write(
                &self.tables,
                &self.plan,
                self.key,
                self.len,
                self.capacity,
                self.fp_rate,
            ))
        }
    };
}
