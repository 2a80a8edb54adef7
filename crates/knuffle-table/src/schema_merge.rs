//! The one schema of several inputs: columns matched by name (the first
//! input's order is the output's), each column's type the one every
//! input's converts to without loss, nullable when it is in any input.
//!
//! The conversions, each exact (Arrow's `cast`, told to fail rather than
//! turn a value into null):
//! - integers to a wider integer: Int8/16/32/64 to the widest of them, the
//!   same for UInt8/16/32/64, and an unsigned with a signed to a signed
//!   integer that holds both (UInt32 with Int32 is Int64); UInt64 with a
//!   signed integer has none;
//! - Float16/32/64 to the widest of them;
//! - Utf8 with LargeUtf8 to LargeUtf8, Binary with LargeBinary to
//!   LargeBinary;
//! - a column of the Null type (a JSON Lines key that is always null) to
//!   the other type.
//!
//! Anything else (Int64 with Float64, a column missing from one input) is
//! an error naming both files and the column.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;

use crate::error::{Error, arrow_error};

/// The schema that the inputs' schemas (each with its file's path) all
/// convert to without loss.
pub fn merge(schemas: &[(&Path, SchemaRef)]) -> Result<SchemaRef, Error> {
    let Some((first_path, first)) = schemas.first() else {
        return Err(Error::invalid("no input tables"));
    };
    let mut fields: Vec<Field> = first.fields().iter().map(|f| f.as_ref().clone()).collect();
    let first_names: HashMap<&str, usize> = names(first);
    for (path, schema) in &schemas[1..] {
        let mismatch = |what: String| {
            Error::invalid(format!(
                "{} and {} do not have the same schema: {what}",
                first_path.display(),
                path.display()
            ))
        };
        let index = names(schema);
        for field in &mut fields {
            let Some(&at) = index.get(field.name().as_str()) else {
                return Err(mismatch(format!(
                    "{} has no column '{}'",
                    path.display(),
                    field.name()
                )));
            };
            let other = schema.field(at);
            let Some(data_type) = promote(field.data_type(), other.data_type()) else {
                return Err(mismatch(format!(
                    "column '{}' is {} against {}, and neither converts to the other \
                     without loss",
                    field.name(),
                    field.data_type(),
                    other.data_type()
                )));
            };
            let nullable = field.is_nullable() || other.is_nullable();
            *field = field
                .clone()
                .with_data_type(data_type)
                .with_nullable(nullable);
        }
        if let Some(extra) = schema
            .fields()
            .iter()
            .find(|f| !first_names.contains_key(f.name().as_str()))
        {
            return Err(mismatch(format!(
                "{} has a column '{}' that {} does not have",
                path.display(),
                extra.name(),
                first_path.display()
            )));
        }
    }
    Ok(Arc::new(Schema::new_with_metadata(
        fields,
        first.metadata().clone(),
    )))
}

fn names(schema: &Schema) -> HashMap<&str, usize> {
    schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().as_str(), i))
        .collect()
}

/// The type both `a` and `b` convert to without loss, if there is one.
pub fn promote(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Null, other) | (other, Null) => Some(other.clone()),
        (Float16 | Float32 | Float64, Float16 | Float32 | Float64) => {
            let width = |t: &DataType| t.primitive_width().unwrap_or(0);
            Some(if width(a) >= width(b) { a } else { b }.clone())
        }
        (Utf8 | LargeUtf8, Utf8 | LargeUtf8) => Some(LargeUtf8),
        (Binary | LargeBinary, Binary | LargeBinary) => Some(LargeBinary),
        _ => integers(a, b),
    }
}

/// Whether an integer type is signed, and its bits.
fn integer(t: &DataType) -> Option<(bool, u32)> {
    use DataType::*;
    Some(match t {
        Int8 => (true, 8),
        Int16 => (true, 16),
        Int32 => (true, 32),
        Int64 => (true, 64),
        UInt8 => (false, 8),
        UInt16 => (false, 16),
        UInt32 => (false, 32),
        UInt64 => (false, 64),
        _ => return None,
    })
}

fn integer_type(signed: bool, bits: u32) -> DataType {
    use DataType::*;
    match (signed, bits) {
        (true, 8) => Int8,
        (true, 16) => Int16,
        (true, 32) => Int32,
        (true, _) => Int64,
        (false, 8) => UInt8,
        (false, 16) => UInt16,
        (false, 32) => UInt32,
        (false, _) => UInt64,
    }
}

fn integers(a: &DataType, b: &DataType) -> Option<DataType> {
    let (a_signed, a_bits) = integer(a)?;
    let (b_signed, b_bits) = integer(b)?;
    if a_signed == b_signed {
        return Some(integer_type(a_signed, a_bits.max(b_bits)));
    }
    let (signed_bits, unsigned_bits) = if a_signed {
        (a_bits, b_bits)
    } else {
        (b_bits, a_bits)
    };
    // A signed type holds an unsigned one of half its bits.
    let bits = signed_bits.max(2 * unsigned_bits);
    (bits <= 64).then(|| integer_type(true, bits))
}

/// The columns of `batch` (read from `path`) in `schema`'s order and
/// types, converted exactly.
pub fn columns_by_name(
    batch: &RecordBatch,
    schema: &Schema,
    path: &Path,
) -> Result<Vec<ArrayRef>, Error> {
    let index = names(batch.schema_ref());
    if index.len() != schema.fields().len() {
        return Err(Error::invalid(format!(
            "{}: {} columns where {} were expected",
            path.display(),
            index.len(),
            schema.fields().len()
        )));
    }
    let exact = CastOptions {
        safe: false,
        ..Default::default()
    };
    schema
        .fields()
        .iter()
        .map(|field| {
            let Some(&at) = index.get(field.name().as_str()) else {
                return Err(Error::invalid(format!(
                    "{}: no column '{}'",
                    path.display(),
                    field.name()
                )));
            };
            let column = batch.column(at);
            if column.data_type() == field.data_type() {
                Ok(column.clone())
            } else {
                cast_with_options(column, field.data_type(), &exact)
                    .map_err(|e| arrow_error(path, e))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn promotions_are_lossless_or_none() {
        let cases = [
            (Int8, Int64, Some(Int64)),
            (Int32, Int16, Some(Int32)),
            (UInt8, UInt32, Some(UInt32)),
            (UInt32, Int32, Some(Int64)),
            (Int8, UInt8, Some(Int16)),
            (UInt16, Int64, Some(Int64)),
            (UInt64, Int64, None),
            (UInt64, Int8, None),
            (Float32, Float64, Some(Float64)),
            (Float16, Float32, Some(Float32)),
            (Int64, Float64, None),
            (Int32, Utf8, None),
            (Null, Utf8, Some(Utf8)),
            (Int32, Null, Some(Int32)),
            (Utf8, LargeUtf8, Some(LargeUtf8)),
            (Binary, LargeBinary, Some(LargeBinary)),
        ];
        for (a, b, expected) in cases {
            assert_eq!(promote(&a, &b), expected, "{a} {b}");
            assert_eq!(promote(&b, &a), expected, "{b} {a}");
        }
    }
}
