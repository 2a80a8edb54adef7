//! Reading a JSON Lines table. Its schema is inferred from every line
//! (Arrow's inference, `arrow::json::reader::infer_json_schema_from_iterator`),
//! with three things of knuffle's own:
//! - columns in the order their keys are first seen (serde_json's
//!   `preserve_order`, which keeps an object's keys in the order written;
//!   without it they come out sorted by name, and a CSV and a JSON Lines
//!   file of the same columns would not have one schema);
//! - a column of integers some of which are above 2^63-1 (Arrow infers
//!   Float64, which changes 18446744073709551615 into 1.8446744073709552e19)
//!   is UInt64 when none is negative, else refused;
//! - an error names its line, and a line longer than a batch's memory is an
//!   error that says which limit to raise.
//!
//! Rows per batch are chosen from the memory limit and the number of
//! columns (the decoder holds each column's values of a batch).
//!
//! With several threads (text_chunks.rs), the schema's lines
//! (json_infer.rs) and each batch's lines (json_lines.rs) are parsed on
//! them at once.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow::datatypes::{DataType, Schema, SchemaRef};
use knuffle_io::compressed::Decompressed;

use arrow::record_batch::RecordBatch;

use crate::error::Error;
use crate::json_lines;
use crate::text_chunks;

/// A JSON Lines file's batches.
pub(crate) type JsonBatches = Box<dyn Iterator<Item = Result<RecordBatch, Error>> + Send>;

/// Bytes a decoded JSON value takes in a batch, at least (its place on the
/// decoder's tape and in its column).
const BYTES_PER_VALUE: usize = 32;

/// Opens a JSON Lines file (`input`: its text, decompressed when it is
/// gzip or zstd): its schema (`schema` if given, else inferred
/// from every line) and its batches, of at most `batch_rows` rows and about
/// `batch_bytes` bytes (also the longest line), parsed on `workers`
/// threads (text_chunks.rs).
pub(crate) fn open(
    path: &Path,
    input: Decompressed<File>,
    schema: Option<SchemaRef>,
    batch_rows: usize,
    batch_bytes: usize,
    workers: usize,
) -> Result<(SchemaRef, JsonBatches), Error> {
    let mut buffered = input;
    let schema = match schema {
        Some(schema) => schema,
        None => {
            let schema = crate::json_infer::infer(
                path,
                &mut buffered,
                batch_bytes,
                workers,
                text_chunks::CHUNK_BYTES,
            )?;
            // Read again from the start (a compressed file decompressed
            // again: nothing of it is held).
            buffered = buffered.rewound().map_err(|e| Error::io_at(path, &e))?;
            Arc::new(schema)
        }
    };
    let row = leaf_count(&schema).max(1).saturating_mul(BYTES_PER_VALUE);
    let batch_rows = (batch_bytes / row).clamp(1, batch_rows.max(1));
    let batches = json_lines::LineBatches::new(
        path,
        buffered,
        schema.clone(),
        batch_rows,
        batch_bytes,
        workers,
    )?;
    Ok((schema, Box::new(batches)))
}

/// The columns of a schema counting those inside structs.
pub(crate) fn leaf_count(schema: &Schema) -> usize {
    fn of(data_type: &DataType) -> usize {
        match data_type {
            DataType::Struct(fields) => fields
                .iter()
                .map(|f| of(f.data_type()))
                .sum::<usize>()
                .max(1),
            DataType::List(field) | DataType::LargeList(field) => of(field.data_type()),
            _ => 1,
        }
    }
    schema.fields().iter().map(|f| of(f.data_type())).sum()
}
