//! Byte columns (`Utf8`, `Binary` and their `Large` forms) gathered from
//! several batches by (batch, row) index: what Arrow's `interleave` gives
//! for them, made faster for the short values of most tables (a CSV's
//! every column is text):
//! - a value of at most [`SHORT`] bytes is copied as one fixed copy of
//!   [`SHORT`] bytes (the bytes past its end are overwritten by the next
//!   value, or lie past the result's length), not by a call to `memcpy`
//!   for each value;
//! - the offsets and bytes of the rows a few places ahead are loaded early
//!   (software prefetching, as `knuffle::gather`: Chen, Ailamaki, Gibbons
//!   and Mowry, "Improving hash join performance through prefetching",
//!   ICDE 2004), so that the misses of a random order overlap.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanBufferBuilder, GenericByteArray};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{ArrowNativeType, ByteArrayType};
use arrow::error::ArrowError;
use knuffle::gather::{PREFETCH_DISTANCE, prefetch};

/// The longest value copied as one fixed copy.
const SHORT: usize = 16;

/// One byte column of several batches, ready to gather from (what each
/// gather needs of the batches, found once).
pub(crate) struct ByteColumn<'a, T: ByteArrayType> {
    arrays: Vec<&'a dyn Array>,
    /// Each array's offsets and bytes.
    sources: Vec<(&'a [T::Offset], &'a [u8])>,
    /// Whether any array has a null.
    nulls: bool,
    /// The arrays' bytes per row, on average.
    row_bytes: usize,
}

impl<'a, T: ByteArrayType> ByteColumn<'a, T> {
    /// The column whose arrays (all of type `T`) are `arrays`.
    pub(crate) fn new(arrays: &[&'a dyn Array]) -> ByteColumn<'a, T> {
        let sources: Vec<(&'a [T::Offset], &'a [u8])> = arrays
            .iter()
            .map(|&array| {
                let array = array.as_bytes::<T>();
                (array.value_offsets(), array.value_data())
            })
            .collect();
        let (rows, bytes) = arrays.iter().zip(&sources).fold((0, 0), |(r, b), (a, s)| {
            (r + a.len(), b + s.0[a.len()].as_usize() - s.0[0].as_usize())
        });
        ByteColumn {
            arrays: arrays.to_vec(),
            sources,
            nulls: arrays.iter().any(|a| a.null_count() > 0),
            row_bytes: bytes / rows.max(1),
        }
    }

    /// The values at `indices` ((array, row) pairs), as one array.
    pub(crate) fn take(&self, indices: &[(usize, usize)]) -> Result<ArrayRef, ArrowError> {
        let sources = &self.sources;
        let mut values: Vec<u8> = Vec::with_capacity(self.row_bytes * indices.len() + SHORT);
        let mut offsets: Vec<T::Offset> = Vec::with_capacity(indices.len() + 1);
        offsets.push(T::Offset::usize_as(0));
        for (i, &(array, row)) in indices.iter().enumerate() {
            if let Some(&(a, r)) = indices.get(i + 2 * PREFETCH_DISTANCE) {
                prefetch(sources[a].0[r..].as_ptr().cast());
            }
            if let Some(&(a, r)) = indices.get(i + PREFETCH_DISTANCE) {
                let (offsets, data) = sources[a];
                prefetch(data.as_ptr().wrapping_add(offsets[r].as_usize()));
            }
            let (source_offsets, data) = sources[array];
            let (start, end) = (
                source_offsets[row].as_usize(),
                source_offsets[row + 1].as_usize(),
            );
            let value = &data[start..end];
            if values.capacity() - values.len() < value.len() + SHORT {
                values.reserve(value.len() + SHORT);
            }
            let at = values.len();
            // SAFETY: `values` has room for `value.len() + SHORT` bytes past
            // its length (reserved above); a fixed copy reads `SHORT` bytes
            // of `data` from `start`, within it (checked), and writes them
            // there; only the value's own bytes are then counted in the
            // length.
            unsafe {
                let to = values.as_mut_ptr().add(at);
                if value.len() <= SHORT && start + SHORT <= data.len() {
                    std::ptr::copy_nonoverlapping(data.as_ptr().add(start), to, SHORT);
                } else {
                    std::ptr::copy_nonoverlapping(value.as_ptr(), to, value.len());
                }
                values.set_len(at + value.len());
            }
            offsets.push(T::Offset::usize_as(values.len()));
        }
        if T::Offset::from_usize(values.len()).is_none() {
            return Err(ArrowError::OffsetOverflowError(values.len()));
        }
        let nulls = self.nulls.then(|| {
            let mut valid = BooleanBufferBuilder::new(indices.len());
            for &(array, row) in indices {
                valid.append(self.arrays[array].is_valid(row));
            }
            NullBuffer::new(valid.finish())
        });
        // SAFETY: the offsets start at 0 and never decrease (each adds a
        // value's length), the last is the values' length (checked to fit
        // `T::Offset` above, so none wrapped); each value is a whole value
        // of a valid array of `T` (UTF-8 when `T` is text).
        let array = unsafe {
            GenericByteArray::<T>::new_unchecked(
                OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
                Buffer::from_vec(values),
                nulls,
            )
        };
        Ok(Arc::new(array))
    }
}

#[cfg(test)]
mod tests {
    use arrow::array::{BinaryArray, LargeStringArray, StringArray};
    use arrow::datatypes::{BinaryType, LargeUtf8Type, Utf8Type};
    use proptest::prelude::*;

    use super::*;

    fn value() -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            1 => Just(None),
            6 => "[a-z\u{e9}]{0,20}".prop_map(Some),
            1 => "[a-z]{15,40}".prop_map(Some),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The same array as Arrow's `interleave`, for text, large text and
        /// binary, from sliced arrays with and without nulls.
        #[test]
        fn gathers_what_interleave_gives(
            columns in prop::collection::vec(
                (prop::collection::vec(value(), 1..30), 0usize..3), 1..5),
            picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..80),
        ) {
            let arrays: Vec<StringArray> = columns
                .iter()
                .map(|(values, skip)| {
                    let array = StringArray::from(values.clone());
                    let skip = (*skip).min(array.len() - 1);
                    array.slice(skip, array.len() - skip)
                })
                .collect();
            let indices: Vec<(usize, usize)> = picks
                .iter()
                .map(|(a, r)| {
                    let a = a.index(arrays.len());
                    (a, r.index(arrays[a].len()))
                })
                .collect();
            let text: Vec<&dyn Array> = arrays.iter().map(|a| a as &dyn Array).collect();
            let expected = arrow::compute::interleave(&text, &indices).unwrap();
            let got = ByteColumn::<Utf8Type>::new(&text).take(&indices).unwrap();
            prop_assert_eq!(got.to_data(), expected.to_data());

            let large: Vec<LargeStringArray> = arrays.iter().map(|a| a.iter().collect()).collect();
            let large: Vec<&dyn Array> = large.iter().map(|a| a as &dyn Array).collect();
            let expected = arrow::compute::interleave(&large, &indices).unwrap();
            let got = ByteColumn::<LargeUtf8Type>::new(&large).take(&indices).unwrap();
            prop_assert_eq!(got.to_data(), expected.to_data());

            let binary: Vec<BinaryArray> = arrays
                .iter()
                .map(|a| a.iter().map(|v| v.map(str::as_bytes)).collect())
                .collect();
            let binary: Vec<&dyn Array> = binary.iter().map(|a| a as &dyn Array).collect();
            let expected = arrow::compute::interleave(&binary, &indices).unwrap();
            let got = ByteColumn::<BinaryType>::new(&binary).take(&indices).unwrap();
            prop_assert_eq!(got.to_data(), expected.to_data());
        }
    }
}
