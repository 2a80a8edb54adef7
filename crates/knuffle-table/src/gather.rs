//! Rows gathered by position from batches held in memory: the last step of
//! ordering a table or a bucket (per column, Arrow's `interleave`, or for
//! text and binary columns the gather of gather_bytes.rs).

use arrow::array::ArrayRef;
use arrow::array::{Array, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{BinaryType, DataType, LargeBinaryType, LargeUtf8Type, SchemaRef, Utf8Type};
use arrow::error::ArrowError;
use rayon::prelude::*;

use crate::error::Error;
use crate::gather_bytes::ByteColumn;

/// Fields (rows x columns) from which a gather shares its columns among
/// threads.
const PARALLEL_FIELDS: usize = 4_096;

/// Batches of consecutive positions (`0..` over all of them), ready to
/// gather rows from in any order.
pub struct Gather<'a> {
    schema: SchemaRef,
    /// The position of each batch's first row.
    starts: Vec<usize>,
    /// Per column, that column of every batch.
    columns: Vec<Column<'a>>,
}

/// A column of every batch, ready to gather from.
enum Column<'a> {
    Utf8(ByteColumn<'a, Utf8Type>),
    LargeUtf8(ByteColumn<'a, LargeUtf8Type>),
    Binary(ByteColumn<'a, BinaryType>),
    LargeBinary(ByteColumn<'a, LargeBinaryType>),
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
            _ => Column::Other(arrays),
        }
    }

    /// The rows at `indices` ((batch, row) pairs).
    fn take(&self, indices: &[(usize, usize)]) -> Result<ArrayRef, ArrowError> {
        match self {
            Column::Utf8(column) => column.take(indices),
            Column::LargeUtf8(column) => column.take(indices),
            Column::Binary(column) => column.take(indices),
            Column::LargeBinary(column) => column.take(indices),
            Column::Other(arrays) => arrow::compute::interleave(arrays, indices),
        }
    }
}

impl<'a> Gather<'a> {
    /// The rows of `batches` (under `schema`), numbered in order.
    pub fn new(schema: SchemaRef, batches: &'a [RecordBatch]) -> Gather<'a> {
        let mut starts = Vec::with_capacity(batches.len());
        let mut total = 0usize;
        for batch in batches {
            starts.push(total);
            total += batch.num_rows();
        }
        let columns = (0..schema.fields().len())
            .map(|c| Column::new(batches.iter().map(|b| b.column(c).as_ref()).collect()))
            .collect();
        Gather {
            schema,
            starts,
            columns,
        }
    }

    /// The rows at `positions`, in that order, as one batch.
    pub fn take(&self, positions: &[u32]) -> Result<RecordBatch, Error> {
        let indices: Vec<(usize, usize)> = positions
            .iter()
            .map(|&p| {
                let p = p as usize;
                let b = self.starts.partition_point(|&s| s <= p) - 1;
                (b, p - self.starts[b])
            })
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
