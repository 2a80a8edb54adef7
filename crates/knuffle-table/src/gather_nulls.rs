//! The validity of gathered rows: per (batch, row) index, whether that
//! row of that batch is valid, read from the batches' validity bitmaps
//! found once per column (not through each array's `is_valid`, a dynamic
//! call for every value).

use arrow::array::{Array, BooleanBufferBuilder};
use arrow::buffer::NullBuffer;

/// The validity bitmaps of one column's arrays, or `None` when none of
/// them has a null.
pub(crate) struct Validity(Option<Vec<Option<NullBuffer>>>);

impl Validity {
    /// The validity of `arrays`.
    pub(crate) fn of(arrays: &[&dyn Array]) -> Validity {
        let any = arrays.iter().any(|a| a.null_count() > 0);
        Validity(any.then(|| arrays.iter().map(|a| a.nulls().cloned()).collect()))
    }

    /// The validity of the rows at `indices` ((array, row) pairs), or
    /// `None` when every row is valid.
    pub(crate) fn at(&self, indices: &[(usize, usize)]) -> Option<NullBuffer> {
        let nulls = self.0.as_ref()?;
        let mut valid = BooleanBufferBuilder::new(indices.len());
        for &(array, row) in indices {
            valid.append(nulls[array].as_ref().is_none_or(|n| n.is_valid(row)));
        }
        Some(NullBuffer::new(valid.finish()))
    }
}
