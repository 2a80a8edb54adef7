//! Rows gathered by position from batches held in memory: the last step of
//! ordering a table or a bucket (per column: text and binary columns by
//! gather_bytes.rs, fixed-width ones by gather_fixed.rs, others by Arrow's
//! `interleave`).

use arrow::array::ArrayRef;
use arrow::array::{Array, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{BinaryType, DataType, LargeBinaryType, LargeUtf8Type, SchemaRef, Utf8Type};
use arrow::error::ArrowError;
use rayon::prelude::*;

use crate::error::Error;
use crate::gather_bytes::ByteColumn;
use crate::gather_fixed::FixedColumn;

/// Fields (rows x columns) from which a gather shares its columns among
/// threads.
const PARALLEL_FIELDS: usize = 4_096;

/// Batches of consecutive positions (`0..` over all of them), ready to
/// gather rows from in any order.
pub struct Gather<'a> {
    schema: SchemaRef,
    /// Which batch holds each position.
    batches: BatchOf,
    /// Per column, that column of every batch.
    columns: Vec<Column<'a>>,
}

/// Which of several batches of consecutive positions holds a position,
/// and where in it: found among the few batches that hold a block of
/// positions (blocks of about a batch's rows), not by a search of all.
struct BatchOf {
    /// The position of each batch's first row.
    starts: Vec<usize>,
    /// Blocks are `1 << shift` positions.
    shift: u32,
    /// For each block, the batch holding its first position; then the
    /// last batch.
    first: Vec<usize>,
}

impl BatchOf {
    /// Batches of `rows` rows each.
    fn new(rows: impl Iterator<Item = usize>) -> BatchOf {
        let mut starts = Vec::new();
        let mut total = 0usize;
        for n in rows {
            starts.push(total);
            total += n;
        }
        let average = total / starts.len().max(1);
        let shift = average.max(1).ilog2();
        let blocks = total.div_ceil(1 << shift);
        let mut first = Vec::with_capacity(blocks + 1);
        let mut b = 0;
        for block in 0..blocks {
            let p = block << shift;
            while b + 1 < starts.len() && starts[b + 1] <= p {
                b += 1;
            }
            first.push(b);
        }
        first.push(starts.len().saturating_sub(1));
        BatchOf {
            starts,
            shift,
            first,
        }
    }

    /// The (batch, row) of position `p` (one of the batches' positions).
    fn of(&self, p: usize) -> (usize, usize) {
        let block = p >> self.shift;
        let (lo, hi) = (self.first[block], self.first[block + 1]);
        // The last batch starting at or before `p`: the one holding it
        // (a batch of no rows starts where the next does).
        let b = lo + self.starts[lo + 1..=hi].partition_point(|&s| s <= p);
        (b, p - self.starts[b])
    }
}

/// A column of every batch, ready to gather from.
enum Column<'a> {
    Utf8(ByteColumn<'a, Utf8Type>),
    LargeUtf8(ByteColumn<'a, LargeUtf8Type>),
    Binary(ByteColumn<'a, BinaryType>),
    LargeBinary(ByteColumn<'a, LargeBinaryType>),
    Fixed(FixedColumn),
    /// Any other type, gathered by Arrow's `interleave`.
    Other(Vec<&'a dyn Array>),
}

impl<'a> Column<'a> {
    /// The column of `arrays`.
    fn new(arrays: Vec<&'a dyn Array>) -> Column<'a> {
        let Some(data_type) = arrays.first().map(|a| a.data_type().clone()) else {
            return Column::Other(arrays);
        };
        if arrays.iter().any(|a| a.data_type() != &data_type) {
            return Column::Other(arrays);
        }
        match data_type {
            DataType::Utf8 => Column::Utf8(ByteColumn::new(&arrays)),
            DataType::LargeUtf8 => Column::LargeUtf8(ByteColumn::new(&arrays)),
            DataType::Binary => Column::Binary(ByteColumn::new(&arrays)),
            DataType::LargeBinary => Column::LargeBinary(ByteColumn::new(&arrays)),
            _ => match FixedColumn::of(&arrays, &data_type) {
                Some(fixed) => Column::Fixed(fixed),
                None => Column::Other(arrays),
            },
        }
    }

    /// The rows at `indices` ((batch, row) pairs).
    fn take(&self, indices: &[(usize, usize)]) -> Result<ArrayRef, ArrowError> {
        match self {
            Column::Utf8(column) => column.take(indices),
            Column::LargeUtf8(column) => column.take(indices),
            Column::Binary(column) => column.take(indices),
            Column::LargeBinary(column) => column.take(indices),
            Column::Fixed(column) => column.take(indices),
            Column::Other(arrays) => arrow::compute::interleave(arrays, indices),
        }
    }
}

impl<'a> Gather<'a> {
    /// The rows of `batches` (under `schema`), numbered in order.
    pub fn new(schema: SchemaRef, batches: &'a [RecordBatch]) -> Gather<'a> {
        let columns = (0..schema.fields().len())
            .map(|c| Column::new(batches.iter().map(|b| b.column(c).as_ref()).collect()))
            .collect();
        Gather {
            schema,
            batches: BatchOf::new(batches.iter().map(RecordBatch::num_rows)),
            columns,
        }
    }

    /// The rows at `positions`, in that order, as one batch.
    pub fn take(&self, positions: &[u32]) -> Result<RecordBatch, Error> {
        let indices: Vec<(usize, usize)> = positions
            .iter()
            .map(|&p| self.batches.of(p as usize))
            .collect();
        let gather = |column: &Column<'_>| column.take(&indices);
        // The columns on rayon's threads when there is enough to share:
        // the second core gathers while the first does (each column's
        // gather is independent; the result is the same).
        let arrays =
            if self.columns.len() > 1 && indices.len() * self.columns.len() >= PARALLEL_FIELDS {
                self.columns
                    .par_iter()
                    .map(gather)
                    .collect::<Result<Vec<_>, _>>()
            } else {
                self.columns
                    .iter()
                    .map(gather)
                    .collect::<Result<Vec<_>, _>>()
            }
            .map_err(|e| Error::invalid(format!("internal: gathering rows: {e}")))?;
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(indices.len())),
        )
        .map_err(|e| Error::invalid(format!("internal: gathered rows: {e}")))
    }
}

/// Test support for the gathers' property tests: proptest's index pairs as
/// positions `(array, row)` among arrays of `lens` rows (none empty).
#[cfg(test)]
pub(crate) fn picked(
    picks: &[(proptest::sample::Index, proptest::sample::Index)],
    lens: &[usize],
) -> Vec<(usize, usize)> {
    picks
        .iter()
        .map(|(a, r)| {
            let a = a.index(lens.len());
            (a, r.index(lens[a]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::BatchOf;

    proptest! {
        /// Every position is found in the batch that holds it, whatever the
        /// batches' sizes (none, small after large, empty ones anywhere).
        #[test]
        fn finds_the_batch_of_every_position(
            rows in prop::collection::vec(prop_oneof![1 => Just(0usize), 3 => 1usize..9, 1 => 50usize..300], 0..40),
        ) {
            let batches = BatchOf::new(rows.iter().copied());
            let mut p = 0;
            for (b, &n) in rows.iter().enumerate() {
                for row in 0..n {
                    prop_assert_eq!(batches.of(p), (b, row));
                    p += 1;
                }
            }
        }
    }
}
