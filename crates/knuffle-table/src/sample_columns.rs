//! The columns `knuffle sample` names in a table (`-k COLS`, `-w COL`):
//! found by name or by number from 1, and a key column's values as the
//! bytes the key hash reads.
//!
//! A row's key is encoded as a line's is (knuffle-sample's `key`):
//! for each key column in turn, the length of its text (8 bytes,
//! little-endian) then the text, where the text of a value is what `knuffle
//! table` writes for it in a CSV file (Arrow's display of the value; a null
//! is the empty text, as CSV writes it). So a table and the CSV of its rows
//! have the same keys, and `-k` samples the same rows of both.

use std::fmt::Write as _;

use arrow::array::RecordBatch;
use arrow::datatypes::Schema;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use knuffle_sample::FieldName;

use crate::error::Error;

/// The 0-based index of the column `name` (for `option`, in messages) of
/// `schema`.
pub(crate) fn resolve(option: &str, name: &FieldName, schema: &Schema) -> Result<usize, Error> {
    let names = || {
        schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        FieldName::Number(number) if *number <= schema.fields().len() => Ok(number - 1),
        FieldName::Number(number) => Err(Error::invalid(format!(
            "{option} {number}: the table has {} columns ({})",
            schema.fields().len(),
            names()
        ))),
        FieldName::Name(text) => schema.index_of(text).map_err(|_| {
            Error::invalid(format!(
                "{option} '{text}': no column of that name in the table ({})",
                names()
            ))
        }),
    }
}

/// The options a value's text is written with: as `knuffle table` writes
/// CSV (arrow's CSV writer: the display defaults, null as the empty text).
pub(crate) fn text_options() -> FormatOptions<'static> {
    FormatOptions::default().with_null("")
}

/// The key columns of `-k`.
pub(crate) struct KeyColumns {
    indices: Vec<usize>,
}

impl KeyColumns {
    /// The columns `names` of `schema`.
    pub(crate) fn new(names: &[FieldName], schema: &Schema) -> Result<KeyColumns, Error> {
        let indices = names
            .iter()
            .map(|name| resolve("-k", name, schema))
            .collect::<Result<_, _>>()?;
        Ok(KeyColumns { indices })
    }

    /// Calls `visit` with each row of `batch` (its position) and its
    /// encoded key, in order.
    pub(crate) fn each_key(
        &self,
        batch: &RecordBatch,
        mut visit: impl FnMut(usize, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let options = text_options();
        let formatters = self
            .indices
            .iter()
            .map(|&c| ArrayFormatter::try_new(batch.column(c).as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::invalid(format!("a key column's values: {e}")))?;
        let mut key = Vec::new();
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            key.clear();
            for formatter in &formatters {
                text.clear();
                write!(text, "{}", formatter.value(row))
                    .map_err(|_| Error::invalid("a key column's value has no text"))?;
                key.extend_from_slice(&(text.len() as u64).to_le_bytes());
                key.extend_from_slice(text.as_bytes());
            }
            visit(row, &key)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, Float64Array, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field};

    use super::*;

    #[test]
    fn keys_are_the_csv_text_length_prefixed_and_nulls_are_empty() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("x", DataType::Float64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![Some(12), None])),
            Arc::new(Float64Array::from(vec![1.0, 0.25])),
            Arc::new(StringArray::from(vec![Some("a,b"), None])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        let names = FieldName::parse_list("-k", "id,2,s").unwrap();
        let keys = KeyColumns::new(&names, &schema).unwrap();
        let mut got = Vec::new();
        keys.each_key(&batch, |_, key| {
            got.push(key.to_vec());
            Ok(())
        })
        .unwrap();
        let encode = |fields: &[&str]| -> Vec<u8> {
            fields
                .iter()
                .flat_map(|f| {
                    let mut v = (f.len() as u64).to_le_bytes().to_vec();
                    v.extend_from_slice(f.as_bytes());
                    v
                })
                .collect()
        };
        assert_eq!(
            got,
            [encode(&["12", "1.0", "a,b"]), encode(&["", "0.25", ""])]
        );
    }

    #[test]
    fn unknown_columns_are_invalid_and_name_the_columns() {
        let schema = Schema::new(vec![Field::new("a", DataType::Int64, false)]);
        for bad in ["b", "2"] {
            let name = FieldName::parse("-k", bad).unwrap();
            let error = resolve("-k", &name, &schema).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::Invalid);
            assert!(error.message().contains("(a)"), "{}", error.message());
        }
    }
}
