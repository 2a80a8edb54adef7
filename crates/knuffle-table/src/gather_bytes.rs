//! Byte columns (`Utf8`, `Binary` and their `Large` forms) gathered from
//! several batches by (batch, row) index: what Arrow's `interleave` gives
//! for them, made faster for the short values of most tables (a CSV's
//! every column is text):
//! - a value of at most [`SHORT`] bytes is copied as one fixed copy of
//!   [`SHORT`] bytes (the bytes past its end are overwritten by the next
//!   value, or lie past the result's length), not by a call to `memcpy`
//!   for each value;
//! - the offsets of the rows a few places ahead are loaded early (software
//!   prefetching, as `knuffle::gather`: Chen, Ailamaki, Gibbons and Mowry,
//!   "Improving hash join performance through prefetching", ICDE 2004), so
//!   that the misses of a random order overlap; the bytes are copied in a
//!   second pass, once every value's place is known, their loads started
//!   as far ahead (a load of bytes no longer waits on a load of offsets:
//!   at 10^7 values of 14 bytes, 1.1x-1.4x faster than one pass; BENCHMARKS.md,
//!   "Tables").

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, GenericByteArray};
use arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{ArrowNativeType, ByteArrayType};
use arrow::error::ArrowError;
use knuffle::gather::{PREFETCH_DISTANCE, prefetch};

use crate::gather_nulls::Validity;

/// The longest value copied as one fixed copy.
const SHORT: usize = 16;

/// Where a value to gather lies.
struct Span {
    at: *const u8,
    len: usize,
    /// Whether `SHORT` bytes from `at` lie within its array's data and
    /// the value within them (it is then copied as one fixed copy).
    fixed: bool,
}

/// One byte column of several batches, ready to gather from (what each
/// gather needs of the batches, found once).
pub(crate) struct ByteColumn<'a, T: ByteArrayType> {
    /// Each array's offsets and bytes.
    sources: Vec<(&'a [T::Offset], &'a [u8])>,
    validity: Validity,
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
        ByteColumn {
            sources,
            validity: Validity::of(arrays),
        }
    }

    /// The values at `indices` ((array, row) pairs), as one array: first
    /// where each value lies and its length (random reads of the offsets
    /// only), then the bytes (random reads whose addresses are already
    /// known, so that their loads can start well ahead).
    pub(crate) fn take(&self, indices: &[(usize, usize)]) -> Result<ArrayRef, ArrowError> {
        let sources = &self.sources;
        let mut spans: Vec<Span> = Vec::with_capacity(indices.len());
        let mut offsets: Vec<T::Offset> = Vec::with_capacity(indices.len() + 1);
        offsets.push(T::Offset::usize_as(0));
        let mut total = 0usize;
        for (i, &(array, row)) in indices.iter().enumerate() {
            if let Some(&(a, r)) = indices.get(i + PREFETCH_DISTANCE) {
                prefetch(sources[a].0[r..].as_ptr().cast());
            }
            let (source_offsets, data) = sources[array];
            let (start, end) = (
                source_offsets[row].as_usize(),
                source_offsets[row + 1].as_usize(),
            );
            let value = &data[start..end];
            spans.push(Span {
                at: value.as_ptr(),
                len: value.len(),
                fixed: value.len() <= SHORT && start + SHORT <= data.len(),
            });
            total += value.len();
            offsets.push(T::Offset::usize_as(total));
        }
        if T::Offset::from_usize(total).is_none() {
            return Err(ArrowError::OffsetOverflowError(total));
        }
        let mut values: Vec<u8> = Vec::with_capacity(total + SHORT);
        let to = values.as_mut_ptr();
        let mut written = 0;
        for (i, span) in spans.iter().enumerate() {
            if let Some(ahead) = spans.get(i + PREFETCH_DISTANCE) {
                prefetch(ahead.at);
            }
            // SAFETY: `span` is a value of `sources`, borrowed for this
            // call: `len` bytes at `at`, and `SHORT` when `fixed` (checked
            // within its array's data above); `values` has room for `total`
            // (the sum of the lengths) plus `SHORT` bytes, so each copy,
            // fixed ones included, lands within it; only the values' own
            // bytes are then counted in the length.
            unsafe {
                if span.fixed {
                    std::ptr::copy_nonoverlapping(span.at, to.add(written), SHORT);
                } else {
                    std::ptr::copy_nonoverlapping(span.at, to.add(written), span.len);
                }
            }
            written += span.len;
        }
        // SAFETY: `written` bytes were written (`total`, within capacity).
        unsafe { values.set_len(written) };
        let nulls = self.validity.at(indices);
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
    use arrow::array::{ArrayData, BinaryArray, LargeStringArray, StringArray};
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

    /// The gather's array of `arrays` at `indices`, and Arrow's
    /// `interleave`'s.
    fn gathered<T: ByteArrayType>(
        arrays: &[ArrayRef],
        indices: &[(usize, usize)],
    ) -> (ArrayData, ArrayData) {
        let arrays: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
        let got = ByteColumn::<T>::new(&arrays).take(indices).unwrap();
        let expected = arrow::compute::interleave(&arrays, indices).unwrap();
        (got.to_data(), expected.to_data())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The same array as Arrow's `interleave`, for text, large text and
        /// binary, from arrays sliced at both ends, with and without nulls.
        #[test]
        fn gathers_what_interleave_gives(
            columns in prop::collection::vec(
                (prop::collection::vec(value(), 1..30), 0usize..3, 0usize..3), 1..5),
            picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..80),
        ) {
            // Each type's arrays, each without its first `skip` and last
            // `tail` values (one value at least is kept).
            let cut = |make: &dyn Fn(&[Option<String>]) -> ArrayRef| -> Vec<ArrayRef> {
                columns
                    .iter()
                    .map(|(values, skip, tail)| {
                        let all = make(values);
                        let skip = (*skip).min(all.len() - 1);
                        let tail = (*tail).min(all.len() - skip - 1);
                        all.slice(skip, all.len() - skip - tail)
                    })
                    .collect()
            };
            let text = cut(&|v| Arc::new(StringArray::from(v.to_vec())));
            let large = cut(&|v| Arc::new(LargeStringArray::from(v.to_vec())));
            let binary = cut(&|v| {
                Arc::new(v.iter().map(|v| v.as_deref().map(str::as_bytes)).collect::<BinaryArray>())
            });
            let lens: Vec<usize> = text.iter().map(|a| a.len()).collect();
            let indices = crate::gather::picked(&picks, &lens);
            for (got, expected) in [
                gathered::<Utf8Type>(&text, &indices),
                gathered::<LargeUtf8Type>(&large, &indices),
                gathered::<BinaryType>(&binary, &indices),
            ] {
                prop_assert_eq!(got, expected);
            }
        }
    }
}
