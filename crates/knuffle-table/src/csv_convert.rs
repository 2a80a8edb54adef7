//! A batch of CSV or TSV records made into Arrow columns: each field's
//! text checked to be UTF-8 (an empty field is null), and a column typed by
//! `--infer-types` converted from its text (csv_types.rs). The columns are
//! made on `workers` threads at once (rayon's), the first error in column
//! order the one reported, as when they are made one after another.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, StringBuilder};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};

use crate::csv_types;
use crate::error::Error;

/// The records of a batch: the text of their fields one after another,
/// the end of each field in it, and how many records there are.
pub(crate) struct Records<'a> {
    pub text: &'a [u8],
    pub ends: &'a [usize],
    pub rows: usize,
    /// Records read when the batch's last was (the header counted: the
    /// number of its last record).
    pub last: u64,
}

impl Records<'_> {
    /// The text of field `index` of the batch.
    fn field(&self, index: usize) -> &[u8] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.text[start..self.ends[index]]
    }

    /// The number of the batch's record `row`.
    fn number(&self, row: usize) -> u64 {
        self.last - (self.rows - row) as u64 + 1
    }
}

/// The batch of `records`, of `schema`, read from `path`.
pub(crate) fn batch(
    path: &Path,
    schema: &SchemaRef,
    records: &Records<'_>,
    workers: usize,
) -> Result<RecordBatch, Error> {
    let columns = schema.fields().len();
    let made: Vec<Result<ArrayRef, Error>> = if workers > 1 && columns > 1 {
        use rayon::prelude::*;
        (0..columns)
            .into_par_iter()
            .map(|column| column_of(path, schema, records, column))
            .collect()
    } else {
        (0..columns)
            .map(|column| column_of(path, schema, records, column))
            .collect()
    };
    let arrays = made.into_iter().collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new_with_options(
        schema.clone(),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(records.rows)),
    )
    .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))
}

/// Column `column` of `records`.
fn column_of(
    path: &Path,
    schema: &SchemaRef,
    records: &Records<'_>,
    column: usize,
) -> Result<ArrayRef, Error> {
    let columns = schema.fields().len();
    let rows = records.rows;
    let bytes: usize = (0..rows)
        .map(|row| records.field(row * columns + column).len())
        .sum();
    let mut builder = StringBuilder::with_capacity(rows, bytes);
    for row in 0..rows {
        let field = records.field(row * columns + column);
        if field.is_empty() {
            builder.append_null();
            continue;
        }
        let text = std::str::from_utf8(field).map_err(|_| {
            Error::invalid(format!(
                "{}: record {}, column '{}': not UTF-8 text",
                path.display(),
                records.number(row),
                schema.field(column).name()
            ))
        })?;
        builder.append_value(text);
    }
    let strings = builder.finish();
    let field = schema.field(column);
    if field.data_type() == &DataType::Utf8 {
        return Ok(Arc::new(strings));
    }
    csv_types::convert(&strings, field.data_type()).map_err(|row| {
        csv_types::misfit_error(
            path,
            records.number(row),
            field.name(),
            strings.value(row),
            field.data_type(),
        )
    })
}
