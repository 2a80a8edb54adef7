//! Fixed-width columns (every primitive type: integers, floats, decimals,
//! dates, times, timestamps, durations, intervals; and fixed-size binary)
//! gathered from several batches by (batch, row) index: what Arrow's
//! `interleave` gives for them, made faster for the random order of a
//! shuffle:
//! - what each gather needs of the batches (their values and whether any
//!   has a null) is found once per column, not once per gather;
//! - a value is one copy of its width, known when the code is compiled for
//!   the widths of the primitive types;
//! - the values of the rows a few places ahead are loaded early (software
//!   prefetching, as in gather_bytes.rs), so that the misses of a random
//!   order overlap.

use arrow::array::{Array, ArrayRef, make_array};
use arrow::array::{ArrayData, ArrayDataBuilder};
use arrow::buffer::{Buffer, MutableBuffer};
use arrow::datatypes::DataType;
use arrow::error::ArrowError;
use knuffle::gather::{PREFETCH_DISTANCE, prefetch};

use crate::gather_nulls::Validity;

/// One fixed-width column of several batches, ready to gather from.
pub(crate) struct FixedColumn {
    data_type: DataType,
    /// Bytes of one value.
    width: usize,
    /// Each array's values, from its first row to its last.
    values: Vec<Buffer>,
    validity: Validity,
}

impl FixedColumn {
    /// The column whose arrays (all of type `data_type`) are `arrays`, or
    /// `None` when that type's values are not of one fixed width.
    pub(crate) fn of(arrays: &[&dyn Array], data_type: &DataType) -> Option<FixedColumn> {
        let width = match data_type {
            DataType::FixedSizeBinary(width) => usize::try_from(*width).ok()?,
            other => other.primitive_width()?,
        };
        if width == 0 {
            return None;
        }
        let values = arrays
            .iter()
            .map(|array| {
                let data = array.to_data();
                let values = data.buffers().first()?;
                // (Arrow's arrays of these types give their data at offset
                // 0, their buffers cut; the offset is honoured anyway.)
                let start = data.offset().checked_mul(width)?;
                let bytes = data.len().checked_mul(width)?;
                (start.checked_add(bytes)? <= values.len())
                    .then(|| values.slice_with_length(start, bytes))
            })
            .collect::<Option<Vec<Buffer>>>()?;
        Some(FixedColumn {
            data_type: data_type.clone(),
            width,
            values,
            validity: Validity::of(arrays),
        })
    }

    /// The values at `indices` ((array, row) pairs), as one array.
    pub(crate) fn take(&self, indices: &[(usize, usize)]) -> Result<ArrayRef, ArrowError> {
        // The widths of the primitive types, each a copy of a size known
        // when compiled; fixed-size binary of any other width.
        let values = match self.width {
            1 => self.values_at(indices, 1),
            2 => self.values_at(indices, 2),
            4 => self.values_at(indices, 4),
            8 => self.values_at(indices, 8),
            16 => self.values_at(indices, 16),
            32 => self.values_at(indices, 32),
            width => self.values_at(indices, width),
        }?;
        let nulls = self.validity.at(indices);
        let builder = ArrayDataBuilder::new(self.data_type.clone())
            .len(indices.len())
            .add_buffer(values)
            .nulls(nulls);
        // SAFETY: the buffer holds `indices.len()` values of the type's
        // width, each copied whole from a valid array of the same type
        // (every bit pattern a valid array holds is valid again); it is
        // aligned as Arrow allocates (`arrow::alloc::ALIGNMENT`, at least
        // 32 bytes, the widest value); the nulls have a bit for every value.
        let data: ArrayData = unsafe { builder.build_unchecked() };
        Ok(make_array(data))
    }

    /// The values at `indices`, of `width` bytes each (inlined, so that a
    /// constant `width` makes each copy one move).
    #[inline(always)]
    fn values_at(&self, indices: &[(usize, usize)], width: usize) -> Result<Buffer, ArrowError> {
        let bytes = indices.len().checked_mul(width).ok_or_else(|| {
            ArrowError::ComputeError(format!("{} values of {width} bytes", indices.len()))
        })?;
        let mut out = MutableBuffer::with_capacity(bytes);
        let to = out.as_mut_ptr();
        for (i, &(array, row)) in indices.iter().enumerate() {
            if let Some(&(a, r)) = indices.get(i + PREFETCH_DISTANCE) {
                prefetch(self.values[a].as_ptr().wrapping_add(r * width));
            }
            let from = &self.values[array][row * width..row * width + width];
            // SAFETY: `out` has room for `bytes` (`indices.len()` values of
            // `width` bytes); value `i` is written at `i * width`, within
            // it, from `width` bytes of a source (checked by the slice
            // above).
            unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), to.add(i * width), width) };
        }
        // SAFETY: every one of the `bytes` bytes was written above.
        unsafe { out.set_len(bytes) };
        Ok(out.into())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        Decimal128Array, FixedSizeBinaryArray, Int8Array, Int64Array, IntervalMonthDayNanoArray,
        TimestampMicrosecondArray, UInt16Array, UInt32Array,
    };
    use arrow::datatypes::IntervalMonthDayNano;
    use proptest::prelude::*;

    use super::*;

    /// Arrays of `all`'s rows cut into pieces of `len` rows, each without
    /// its first `skip` rows.
    fn pieces(all: &ArrayRef, cuts: &[(usize, usize)]) -> Vec<ArrayRef> {
        let mut pieces = Vec::new();
        let mut at = 0;
        for &(len, skip) in cuts {
            let len = len.min(all.len() - at);
            if len == 0 {
                break;
            }
            let skip = skip.min(len - 1);
            pieces.push(all.slice(at + skip, len - skip));
            at += len;
        }
        pieces
    }

    fn arrays(values: &[Option<i64>]) -> Vec<ArrayRef> {
        let n = values.len();
        let wide = |v: &Option<i64>| v.map(|v| v as i128 * 1_000_000_007);
        let half = UInt16Array::from_iter(values.iter().map(|v| v.map(|v| v as u16)));
        let half = half.to_data().into_builder().data_type(DataType::Float16);
        let decimals = Decimal128Array::from_iter(values.iter().map(wide))
            .with_precision_and_scale(38, 3)
            .unwrap();
        let all: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from_iter(
                values.iter().map(|v| v.map(|v| v as i8)),
            )),
            make_array(half.build().unwrap()),
            Arc::new(UInt32Array::from_iter(
                values.iter().map(|v| v.map(|v| v as u32)),
            )),
            Arc::new(Int64Array::from(values.to_vec())),
            Arc::new(
                TimestampMicrosecondArray::from(values.to_vec()).with_timezone("Europe/Paris"),
            ),
            arrow::compute::cast(&decimals, &DataType::Decimal256(40, 3)).unwrap(),
            Arc::new(decimals),
            Arc::new(IntervalMonthDayNanoArray::from_iter(values.iter().map(
                |v| {
                    v.map(|v| {
                        IntervalMonthDayNano::new(v as i32, (v >> 32) as i32, v.wrapping_mul(7))
                    })
                },
            ))),
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    values
                        .iter()
                        .map(|v| v.map(|v| [v as u8, 1, 2, (v >> 8) as u8, 9])),
                    5,
                )
                .unwrap(),
            ),
        ];
        assert!(all.iter().all(|a| a.len() == n));
        all
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The same array as Arrow's `interleave`, for every width, from
        /// sliced arrays with and without nulls.
        #[test]
        fn gathers_what_interleave_gives(
            values in prop::collection::vec(prop::option::weighted(0.9, any::<i64>()), 1..120),
            cuts in prop::collection::vec((1usize..40, 0usize..3), 1..8),
            picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..100),
        ) {
            for all in arrays(&values) {
                let pieces = pieces(&all, &cuts);
                let refs: Vec<&dyn Array> = pieces.iter().map(|a| a.as_ref()).collect();
                let lens: Vec<usize> = refs.iter().map(|a| a.len()).collect();
                let indices = crate::gather::picked(&picks, &lens);
                let expected = arrow::compute::interleave(&refs, &indices).unwrap();
                let column = FixedColumn::of(&refs, all.data_type()).expect("a fixed-width type");
                let got = column.take(&indices).unwrap();
                got.to_data().validate_full().unwrap();
                prop_assert_eq!(got.to_data(), expected.to_data());
            }
        }
    }

    #[test]
    fn other_types_are_not_fixed() {
        let text = arrow::array::StringArray::from(vec!["a"]);
        let flags = arrow::array::BooleanArray::from(vec![true]);
        assert!(FixedColumn::of(&[&text], text.data_type()).is_none());
        assert!(FixedColumn::of(&[&flags], flags.data_type()).is_none());
    }
}
