//! `-w COL` on a table: each row's weight, read as `knuffle sample` reads a
//! line's weight field (`knuffle_sample::Weight`). A
//! numeric column's value is the weight (an integer converted to the
//! nearest double, as a line's digits are); a text column's value (every
//! column of a CSV input) is parsed as a line's field is. So a table and
//! the CSV of its rows give the same weights (for 32-bit floats, the CSV's
//! shortest decimal may read back as another double). A weight must be
//! finite and positive: a null, NaN, infinite, zero or negative value, or
//! text that is no number, is an error naming the row (exit status 1), or
//! with `--skip-bad-weights` the row is dropped and counted.

use std::fmt::Write as _;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Float64Type, Schema};
use arrow::util::display::ArrayFormatter;
use knuffle_sample::FieldName;
use knuffle_sample::Weight;

use crate::error::Error;
use crate::sample_columns::{resolve, text_options};

/// The weight column of `-w`.
pub(crate) struct WeightColumn {
    index: usize,
    name: String,
    skip_bad: bool,
}

impl WeightColumn {
    /// The column `name` of `schema`: numeric or text.
    pub(crate) fn new(
        name: &FieldName,
        schema: &Schema,
        skip_bad: bool,
    ) -> Result<WeightColumn, Error> {
        let index = resolve("-w", name, schema)?;
        let field = schema.field(index);
        let text = matches!(
            field.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        );
        if !text && !field.data_type().is_numeric() {
            return Err(Error::invalid(format!(
                "-w '{}' is a column of {}: weights are numbers (a numeric column, or text \
                 of numbers)",
                field.name(),
                field.data_type()
            )));
        }
        Ok(WeightColumn {
            index,
            name: field.name().clone(),
            skip_bad,
        })
    }

    /// The weight of each row of `batch` (`None`: a bad weight, skipped);
    /// `place(row)` names a row in messages.
    pub(crate) fn weights(
        &self,
        batch: &RecordBatch,
        place: &dyn Fn(usize) -> String,
    ) -> Result<Vec<Option<f64>>, Error> {
        let column = batch.column(self.index);
        let weights: Vec<Option<f64>> = match column.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let parse = |text: Option<&str>| {
                    text.and_then(|t| Weight::parse(t.as_bytes()))
                        .map(Weight::as_f64)
                };
                match column.data_type() {
                    DataType::Utf8 => column.as_string::<i32>().iter().map(parse).collect(),
                    DataType::LargeUtf8 => column.as_string::<i64>().iter().map(parse).collect(),
                    _ => column.as_string_view().iter().map(parse).collect(),
                }
            }
            data_type if !data_type.is_numeric() => {
                return Err(Error::invalid(format!(
                    "-w '{}': a weight is a number; the column is {data_type}",
                    self.name
                )));
            }
            _ => {
                let floats = arrow::compute::cast(column, &DataType::Float64)
                    .map_err(|e| Error::invalid(format!("-w '{}': {e}", self.name)))?;
                floats
                    .as_primitive::<Float64Type>()
                    .iter()
                    .map(|w| w.filter(|w| w.is_finite() && *w > 0.0))
                    .collect()
            }
        };
        if self.skip_bad {
            return Ok(weights);
        }
        if let Some(row) = weights.iter().position(Option::is_none) {
            let value = if column.is_null(row) {
                "null".to_owned()
            } else {
                let mut text = String::new();
                let formatter = ArrayFormatter::try_new(column.as_ref(), &text_options())
                    .map_err(|e| Error::invalid(format!("-w '{}': {e}", self.name)))?;
                let _ = write!(text, "'{}'", formatter.value(row));
                text
            };
            return Err(Error::data(format!(
                "{}: column '{}' is {value}, not a weight (a positive finite number); \
                 --skip-bad-weights drops such rows",
                place(row),
                self.name
            )));
        }
        Ok(weights)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, Float64Array, Int32Array, StringArray};
    use arrow::datatypes::Field;

    use super::*;

    fn batch(column: ArrayRef) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "w",
            column.data_type().clone(),
            true,
        )]));
        RecordBatch::try_new(schema, vec![column]).unwrap()
    }

    fn weights(column: ArrayRef, skip: bool) -> Result<Vec<Option<f64>>, Error> {
        let batch = batch(column);
        let name = FieldName::Name("w".into());
        WeightColumn::new(&name, &batch.schema(), skip)?
            .weights(&batch, &|row| format!("row {}", row + 1))
    }

    #[test]
    fn numbers_and_text_give_the_same_weights() {
        let ints = weights(Arc::new(Int32Array::from(vec![1, 7])), false).unwrap();
        let text = weights(Arc::new(StringArray::from(vec!["1", " 7 "])), false).unwrap();
        assert_eq!(ints, [Some(1.0), Some(7.0)]);
        assert_eq!(ints, text);
        let floats = weights(Arc::new(Float64Array::from(vec![0.5])), false).unwrap();
        assert_eq!(floats, [Some(0.5)]);
    }

    #[test]
    fn bad_weights_name_the_row_or_are_skipped() {
        let bad: Vec<ArrayRef> = vec![
            Arc::new(Float64Array::from(vec![Some(1.0), None])),
            Arc::new(Float64Array::from(vec![1.0, f64::NAN])),
            Arc::new(Float64Array::from(vec![1.0, -2.0])),
            Arc::new(Int32Array::from(vec![1, 0])),
            Arc::new(StringArray::from(vec!["1", "x"])),
            Arc::new(Float64Array::from(vec![1.0, f64::INFINITY])),
        ];
        for column in bad {
            let error = weights(column.clone(), false).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::Data);
            assert!(
                error.message().starts_with("row 2: column 'w' is "),
                "{}",
                error.message()
            );
            assert_eq!(weights(column, true).unwrap(), [Some(1.0), None]);
        }
        let flags = arrow::array::BooleanArray::from(vec![true]);
        let error = weights(Arc::new(flags), false).unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::Invalid);
    }
}
