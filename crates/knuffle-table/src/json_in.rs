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

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use knuffle_io::compressed::Decompressed;
use serde_json::Value;

use arrow::record_batch::RecordBatch;

use crate::error::{Error, arrow_error};
use crate::json_kinds::Kinds;
use crate::json_lines;

/// A JSON Lines file's batches.
pub(crate) type JsonBatches = Box<dyn Iterator<Item = Result<RecordBatch, Error>> + Send>;

/// Bytes a decoded JSON value takes in a batch, at least (its place on the
/// decoder's tape and in its column).
const BYTES_PER_VALUE: usize = 32;

/// What the integers of a top-level key were.
#[derive(Clone, Copy, Default)]
struct Integers {
    /// Some value was a number with a fraction or exponent.
    fraction: bool,
    /// Some integer was negative.
    negative: bool,
    /// Some integer was above `i64::MAX`.
    above_i64: bool,
}

/// Opens a JSON Lines file (`input`: its text, decompressed when it is
/// gzip or zstd): its schema (`schema` if given, else inferred
/// from every line) and its batches, of at most `batch_rows` rows and about
/// `batch_bytes` bytes (also the longest line).
pub(crate) fn open(
    path: &Path,
    input: Decompressed<File>,
    schema: Option<SchemaRef>,
    batch_rows: usize,
    batch_bytes: usize,
) -> Result<(SchemaRef, JsonBatches), Error> {
    let mut buffered = input;
    let schema = match schema {
        Some(schema) => schema,
        None => {
            let schema = infer(path, &mut buffered, batch_bytes)?;
            // Read again from the start (a compressed file decompressed
            // again: nothing of it is held).
            buffered = buffered.rewound().map_err(|e| Error::io_at(path, &e))?;
            Arc::new(schema)
        }
    };
    let row = leaf_count(&schema).max(1).saturating_mul(BYTES_PER_VALUE);
    let batch_rows = (batch_bytes / row).clamp(1, batch_rows.max(1));
    let batches =
        json_lines::LineBatches::new(path, buffered, schema.clone(), batch_rows, batch_bytes)?;
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

/// The schema of every line of `input` (see the module's notes); lines
/// longer than `max_line` bytes are refused.
fn infer(path: &Path, input: &mut impl BufRead, max_line: usize) -> Result<Schema, Error> {
    let invalid = |text: String| Error::invalid(format!("{}: {text}", path.display()));
    let mut integers: HashMap<String, Integers> = HashMap::new();
    let mut kinds = Kinds::default();
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut failure = None;
    let schema = {
        let lines = std::iter::from_fn(|| {
            if failure.is_some() {
                return None;
            }
            loop {
                line.clear();
                number += 1;
                let read = input
                    .by_ref()
                    .take(max_line as u64 + 1)
                    .read_until(b'\n', &mut line);
                match read {
                    Err(e) => {
                        failure = Some(Error::io_at(path, &e));
                        return None;
                    }
                    Ok(0) => return None,
                    Ok(_) => {}
                }
                if line.len() > max_line {
                    failure = Some(invalid(format!(
                        "line {number} is longer than {} KiB, the most the memory limit \
                         allows one line; raise the memory limit (--memory)",
                        max_line >> 10
                    )));
                    return None;
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let value: Value = match serde_json::from_slice(&line) {
                    Ok(value) => value,
                    Err(e) => {
                        failure = Some(invalid(format!(
                            "line {number}: not a JSON value: {}",
                            without_position(&e)
                        )));
                        return None;
                    }
                };
                let Value::Object(object) = &value else {
                    failure = Some(invalid(format!(
                        "line {number}: not a JSON object (JSON Lines holds one object per line)"
                    )));
                    return None;
                };
                if let Err(conflict) = kinds.see(path, number, object) {
                    failure = Some(conflict);
                    return None;
                }
                for (key, value) in object {
                    if let Value::Number(n) = value {
                        let seen = integers.entry(key.clone()).or_default();
                        seen.fraction |= n.is_f64();
                        seen.negative |= n.as_i64().is_some_and(|i| i < 0);
                        seen.above_i64 |= n.is_u64() && !n.is_i64();
                    }
                }
                return Some(Ok::<Value, arrow::error::ArrowError>(value));
            }
        });
        arrow::json::reader::infer_json_schema_from_iterator(lines)
    };
    if let Some(failure) = failure {
        return Err(failure);
    }
    let schema = schema.map_err(|e| arrow_error(path, e))?;
    let mut fields = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let seen = integers.get(field.name()).copied().unwrap_or_default();
        if field.data_type() == &DataType::Float64 && seen.above_i64 && !seen.fraction {
            if seen.negative {
                return Err(invalid(format!(
                    "column '{}' holds integers below 0 and above 2^63-1, which no integer \
                     type holds (and a float would change them)",
                    field.name()
                )));
            }
            fields.push(Field::new(field.name(), DataType::UInt64, true));
        } else {
            fields.push(field.as_ref().clone());
        }
    }
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// serde_json's message without its " at line 1 column 7" (the line is
/// ours to number; the column stays as "column N").
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => format!("{} (column {})", &text[..at], error.column()),
        None => text,
    }
}
