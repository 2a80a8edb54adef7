//! Rows gathered by position from batches held in memory: the last step of
//! ordering a table or a bucket (one `interleave` per column).

use arrow::array::{Array, RecordBatch, RecordBatchOptions};
use arrow::datatypes::SchemaRef;
use rayon::prelude::*;

use crate::error::Error;

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
    columns: Vec<Vec<&'a dyn Array>>,
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
            .map(|c| batches.iter().map(|b| b.column(c).as_ref()).collect())
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
        let gather = |values: &Vec<&dyn Array>| arrow::compute::interleave(values, &indices);
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
