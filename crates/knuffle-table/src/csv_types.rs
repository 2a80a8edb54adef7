//! `--infer-types`: the columns of CSV and TSV inputs typed from every
//! value of every input, exactly. A column is Int64, Float64, Boolean,
//! Date32 or Timestamp(microseconds) when each of its values (empty fields
//! aside: they are null, typed or not) is read as that type (Arrow's
//! `cast` from text) *and* written back as the same text by knuffle's CSV
//! writer (Arrow's `ArrayFormatter` with its default options, what
//! `arrow::csv::Writer` formats with): so `007`, `+5`, ` 12`, `1e3`,
//! `1.50`, `TRUE` or `2024-1-5` keep their column text, a column of `1` and
//! `1.5` is text (`1` would come back as `1.0`), and a CSV written back from
//! the typed table has the bytes of the one read. Floats must be finite
//! (`NaN` and `inf` keep a column text). A column of only empty fields is
//! text. Types are inferred per column name over all CSV and TSV inputs
//! together (one pass over them before the shuffle's own), so several files
//! get one type per column.

use std::path::Path;

use arrow::array::{Array, ArrayRef, AsArray, StringArray};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Float64Type, TimeUnit};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use crate::error::Error;

/// The types a column may get, in the order they are tried.
const TYPES: [DataType; 5] = [
    DataType::Int64,
    DataType::Float64,
    DataType::Boolean,
    DataType::Date32,
    DataType::Timestamp(TimeUnit::Microsecond, None),
];

/// Whether `data_type` is one that `--infer-types` gives a CSV column (a
/// CSV reader told it converts the column's text to it).
pub(crate) fn is_inferred(data_type: &DataType) -> bool {
    TYPES.contains(data_type)
}

/// The types a column may still have, after the values seen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidates {
    alive: [bool; TYPES.len()],
    /// Whether any value (not an empty field) was seen.
    seen: bool,
}

impl Candidates {
    pub(crate) fn new() -> Candidates {
        Candidates {
            alive: [true; TYPES.len()],
            seen: false,
        }
    }

    pub(crate) fn see(&mut self, strings: &StringArray) {
        if strings.null_count() == strings.len() {
            return;
        }
        self.seen = true;
        for (alive, data_type) in self.alive.iter_mut().zip(&TYPES) {
            *alive = *alive && first_misfit(strings, data_type).is_none();
        }
    }

    pub(crate) fn data_type(&self) -> DataType {
        match self.alive.iter().position(|&a| a) {
            Some(index) if self.seen => TYPES[index].clone(),
            _ => DataType::Utf8,
        }
    }
}

/// The text of `strings` as `data_type`: the typed column, or the row of
/// the first value that does not fit (see the module's notes).
pub(crate) fn convert(strings: &StringArray, data_type: &DataType) -> Result<ArrayRef, usize> {
    let typed =
        cast_with_options(strings, data_type, &CastOptions::default()).map_err(|_| 0usize)?;
    match misfit_of(strings, &typed) {
        Some(row) => Err(row),
        None => Ok(typed),
    }
}

fn first_misfit(strings: &StringArray, data_type: &DataType) -> Option<usize> {
    convert(strings, data_type).err()
}

/// The first row whose text `typed` does not hold exactly.
fn misfit_of(strings: &StringArray, typed: &ArrayRef) -> Option<usize> {
    let Ok(formatter) = ArrayFormatter::try_new(typed.as_ref(), &FormatOptions::default()) else {
        return Some(0);
    };
    let floats = typed.as_primitive_opt::<Float64Type>();
    let mut written = String::new();
    for row in 0..strings.len() {
        if strings.is_null(row) {
            continue;
        }
        if typed.is_null(row) || floats.is_some_and(|f| !f.value(row).is_finite()) {
            return Some(row);
        }
        written.clear();
        if formatter.value(row).write(&mut written).is_err() || written != strings.value(row) {
            return Some(row);
        }
    }
    None
}

/// The error of a value (of record `record`) that does not fit the type
/// inferred for its column: the file changed between the two reads.
pub(crate) fn misfit_error(
    path: &Path,
    record: u64,
    column: &str,
    text: &str,
    data_type: &DataType,
) -> Error {
    Error::invalid(format!(
        "{}: record {record}, column '{column}': '{text}' is not a {data_type} value, the \
         type --infer-types found for the column (did the file change while it was read?)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(values: &[Option<&str>]) -> DataType {
        let mut candidates = Candidates::new();
        candidates.see(&StringArray::from(values.to_vec()));
        candidates.data_type()
    }

    #[test]
    fn a_column_is_typed_only_when_every_value_comes_back_as_written() {
        use DataType::*;
        assert_eq!(typed(&[Some("1"), None, Some("-20")]), Int64);
        assert_eq!(typed(&[Some("9223372036854775807")]), Int64);
        assert_eq!(typed(&[Some("9223372036854775808")]), Utf8);
        for text in ["007", "+5", " 12", "12 ", "-0", "1_000"] {
            assert_eq!(typed(&[Some("1"), Some(text)]), Utf8, "{text}");
        }
        assert_eq!(typed(&[Some("1.5"), Some("-0.25"), Some("3.0")]), Float64);
        for text in ["1.50", "1e3", "1", "NaN", "inf", ".5", "1."] {
            assert_eq!(typed(&[Some("1.5"), Some(text)]), Utf8, "{text}");
        }
        assert_eq!(typed(&[Some("true"), Some("false")]), Boolean);
        for text in ["TRUE", "True", "1", "yes", "t"] {
            assert_eq!(typed(&[Some("true"), Some(text)]), Utf8, "{text}");
        }
        assert_eq!(typed(&[Some("2024-01-05"), Some("1970-12-31")]), Date32);
        assert_eq!(typed(&[Some("2024-1-5")]), Utf8);
        assert_eq!(typed(&[Some("2024-02-30")]), Utf8);
        assert_eq!(
            typed(&[Some("2024-01-05T10:20:30"), Some("2024-01-05T10:20:30.125")]),
            Timestamp(TimeUnit::Microsecond, None)
        );
        assert_eq!(typed(&[Some("2024-01-05 10:20:30")]), Utf8);
        assert_eq!(typed(&[Some("2024-01-05T10:20:30Z")]), Utf8);
        assert_eq!(typed(&[None, None]), Utf8);
        assert_eq!(typed(&[Some("a"), Some("1")]), Utf8);
    }

    #[test]
    fn a_value_that_does_not_fit_is_named_by_its_row() {
        let strings = StringArray::from(vec![Some("1"), None, Some("x")]);
        assert_eq!(convert(&strings, &DataType::Int64).unwrap_err(), 2);
        let good = StringArray::from(vec![Some("1"), None, Some("2")]);
        let typed = convert(&good, &DataType::Int64).unwrap();
        assert_eq!(typed.null_count(), 1);
    }
}
