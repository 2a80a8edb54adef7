//! The JSON types of a JSON Lines file's fields, line by line: a field
//! (a key, a key inside an object, an array's elements) that is a number on
//! one line and a string on another is refused naming the field, both types
//! and both lines. Arrow's inference would make such a column text and its
//! decoder then refuse the number without a line; a column holds one type,
//! and knuffle never turns a number into text on its own.
//!
//! Integers and fractions are one type (a number column of both is
//! Float64, as Arrow infers it); null goes with any type.

use std::collections::HashMap;
use std::path::Path;

use arrow::datatypes::{DataType, Schema, SchemaRef};
use serde_json::Value;

use crate::error::Error;

/// The JSON type of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Boolean,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    fn of(value: &Value) -> Option<Kind> {
        Some(match value {
            Value::Null => return None,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Boolean => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

/// The type each field had first, and on which line.
#[derive(Default)]
pub(crate) struct Kinds {
    first: HashMap<String, (Kind, u64)>,
}

impl Kinds {
    /// Sees the object of line `line` of `path`: an error when one of its
    /// fields has another type than on an earlier line.
    pub(crate) fn see(
        &mut self,
        path: &Path,
        line: u64,
        object: &serde_json::Map<String, Value>,
    ) -> Result<(), Error> {
        for (key, value) in object {
            self.see_value(path, line, key, value)?;
        }
        Ok(())
    }

    fn see_value(
        &mut self,
        path: &Path,
        line: u64,
        field: &str,
        value: &Value,
    ) -> Result<(), Error> {
        let Some(kind) = Kind::of(value) else {
            return Ok(());
        };
        match self.first.get(field) {
            Some(&(first, _)) if first == kind => {}
            Some(&(first, first_line)) => {
                return Err(Error::invalid(format!(
                    "{}: line {line}: field '{field}' is {} here and {} on line {first_line}; \
                     a column holds one type (write every value of it as {})",
                    path.display(),
                    kind.name(),
                    first.name(),
                    first.name()
                )));
            }
            None => {
                self.first.insert(field.to_owned(), (kind, line));
            }
        }
        match value {
            Value::Object(object) => {
                for (key, value) in object {
                    self.see_value(path, line, &format!("{field}.{key}"), value)?;
                }
            }
            Value::Array(values) => {
                let elements = format!("{field}[]");
                for value in values {
                    self.see_value(path, line, &elements, value)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The JSON type the values of an Arrow column of `data_type` have (the
/// type a JSON Lines reader infers for them), if one.
pub(crate) fn kind_of_type(data_type: &DataType) -> Option<Kind> {
    use DataType::*;
    Some(match data_type {
        Boolean => Kind::Boolean,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float16 | Float32
        | Float64 => Kind::Number,
        Utf8 | LargeUtf8 | Utf8View => Kind::String,
        List(_) | LargeList(_) => Kind::Array,
        Struct(_) => Kind::Object,
        _ => return None,
    })
}

/// The first line of the JSON Lines text `input` whose top-level `field`
/// is of `kind` (to name where a type of a field of one file was found when
/// another file has it of another).
pub(crate) fn first_line_with(
    input: impl std::io::BufRead,
    field: &str,
    kind: Kind,
) -> Option<u64> {
    for (index, line) in input.split(b'\n').enumerate() {
        let line = line.ok()?;
        let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if object.get(field).and_then(Kind::of) == Some(kind) {
            return Some(index as u64 + 1);
        }
    }
    None
}

/// The one schema of several JSON Lines files (`schemas`, each with its
/// file): Arrow's merge, one after another; a field of two types is an
/// error naming it, both types, both files and the first line of each
/// type in each file.
pub(crate) fn merge(schemas: &[(&Path, SchemaRef)]) -> Result<Schema, Error> {
    let mut merged = Schema::empty();
    // The file in which each field first had its type.
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (index, (path, schema)) in schemas.iter().enumerate() {
        if let Ok(next) = Schema::try_merge([merged.clone(), schema.as_ref().clone()]) {
            merged = next;
            for field in schema.fields() {
                owner.entry(field.name().clone()).or_insert(index);
            }
            continue;
        }
        let conflict = schema.fields().iter().find_map(|field| {
            let before = merged.field_with_name(field.name()).ok()?;
            let single = |f: &arrow::datatypes::Field| Schema::new(vec![f.clone()]);
            Schema::try_merge([single(before), single(field)])
                .is_err()
                .then(|| (before.clone(), field.as_ref().clone()))
        });
        let Some((before, field)) = conflict else {
            return Err(Error::invalid(format!(
                "{}: its schema does not merge with the other JSON Lines files'",
                path.display()
            )));
        };
        let first = owner.get(field.name()).copied().unwrap_or(0);
        let first_path = schemas[first].0;
        let where_is = |file: &Path, data_type: &DataType| -> String {
            let line = kind_of_type(data_type).and_then(|kind| {
                let opened = std::fs::File::open(file).ok()?;
                let text = crate::compressed_in::text(file, opened).ok()?;
                first_line_with(text, field.name(), kind)
            });
            match line {
                Some(line) => format!("{} (line {line})", file.display()),
                None => file.display().to_string(),
            }
        };
        return Err(Error::invalid(format!(
            "the JSON Lines files do not have one schema: field '{}' is {} in {} and {} in {}; a column holds one type",
            field.name(),
            before.data_type(),
            where_is(first_path, before.data_type()),
            field.data_type(),
            where_is(path, field.data_type())
        )));
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_all(lines: &[&str]) -> Result<(), String> {
        let mut kinds = Kinds::default();
        for (i, line) in lines.iter().enumerate() {
            let Value::Object(object) = serde_json::from_str(line).unwrap() else {
                panic!("{line}")
            };
            kinds
                .see(Path::new("f.jsonl"), i as u64 + 1, &object)
                .map_err(|e| e.message().to_owned())?;
        }
        Ok(())
    }

    #[test]
    fn a_field_of_two_types_is_named_with_both_lines() {
        assert!(see_all(&[r#"{"a": 1}"#, r#"{"a": 2.5}"#, r#"{"a": null}"#]).is_ok());
        let error = see_all(&[r#"{"a": 1}"#, r#"{"b": 1}"#, r#"{"a": "x"}"#]).unwrap_err();
        assert_eq!(
            error,
            "f.jsonl: line 3: field 'a' is a string here and a number on line 1; a column \
             holds one type (write every value of it as a number)"
        );
        let nested = see_all(&[r#"{"a": {"b": true}}"#, r#"{"a": {"b": 0}}"#]).unwrap_err();
        assert!(nested.contains("line 2: field 'a.b' is a number here and a boolean on line 1"));
        let elements = see_all(&[r#"{"a": [1, "x"]}"#]).unwrap_err();
        assert!(elements.contains("line 1: field 'a[]' is a string here and a number on line 1"));
        let shapes = see_all(&[r#"{"a": [1]}"#, r#"{"a": 1}"#]).unwrap_err();
        assert!(shapes.contains("field 'a' is a number here and an array on line 1"));
    }
}
