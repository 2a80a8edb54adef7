//! Hive-partitioned directories: the `key=value` directory levels between
//! an input directory and each of its files are columns of that file's
//! rows, appended after the file's own columns in the order the levels
//! appear, as pyarrow reads them with `partitioning="hive"` (Apache Arrow
//! C++'s `HivePartitioning` and its discovery, `KeyValuePartitioningFactory`;
//! each rule below checked against pyarrow 26):
//!
//! - a level is a directory name with a `=`: the key before the first `=`,
//!   the value after it, both URL-decoded (`%XX` with two hex digits is a
//!   byte, anything else stays as written, `+` included; the result must
//!   be UTF-8); names without `=` are not levels;
//! - the value `__HIVE_DEFAULT_PARTITION__` is null;
//! - a key is Int32 when each of its values that is not null is a decimal
//!   integer (an optional `-`, digits) in Int32's range, or `0x`/`0X` and
//!   one to eight hex digits (the bits of an Int32); else it is text (Utf8).
//!   A key whose values are all null is text.
//!
//! Stricter than pyarrow, never a guess: every file needs the same keys in
//! the same order, a key appears once in a path, a key is not empty, and a
//! file must not have a column of a key's name.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int32Array, StringArray, new_null_array};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};

use crate::error::Error;

/// The value Hive writes for a null key.
pub(crate) const NULL_VALUE: &str = "__HIVE_DEFAULT_PARTITION__";

/// The levels of one file: each key and its value (none: null), decoded.
pub type Levels = Vec<(String, Option<String>)>;

/// A partition value, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// `__HIVE_DEFAULT_PARTITION__`.
    Null,
    /// A key of integers.
    Int32(i32),
    /// A key of text.
    Text(String),
}

/// The partition columns of one file: their fields (every file of the
/// inputs has the same) and this file's values.
#[derive(Clone, Debug, Default)]
pub struct Partition {
    fields: Arc<[FieldRef]>,
    values: Vec<Value>,
}

/// The levels of `file` under the input directory `root`.
pub fn levels_of(root: &Path, file: &Path) -> Result<Levels, Error> {
    let relative = file.strip_prefix(root).unwrap_or(file);
    let mut levels: Levels = Vec::new();
    let Some(parent) = relative.parent() else {
        return Ok(levels);
    };
    for component in parent.components() {
        let name = component.as_os_str();
        let Some(name) = name.to_str() else {
            if name.as_encoded_bytes().contains(&b'=') {
                return Err(Error::invalid(format!(
                    "{}: a partition directory whose name is not UTF-8",
                    file.display()
                )));
            }
            continue;
        };
        let Some((key, value)) = name.split_once('=') else {
            continue;
        };
        let key = decode(key).ok_or_else(|| not_utf8(file, name))?;
        if key.is_empty() {
            return Err(Error::invalid(format!(
                "{}: the partition directory '{name}' has no key before its '='",
                file.display()
            )));
        }
        if levels.iter().any(|(k, _)| *k == key) {
            return Err(Error::invalid(format!(
                "{}: the partition key '{key}' appears twice in the path",
                file.display()
            )));
        }
        let value = if value == NULL_VALUE {
            None
        } else {
            Some(decode(value).ok_or_else(|| not_utf8(file, name))?)
        };
        levels.push((key, value));
    }
    Ok(levels)
}

fn not_utf8(file: &Path, name: &str) -> Error {
    Error::invalid(format!(
        "{}: the partition directory '{name}' is not UTF-8 once URL-decoded",
        file.display()
    ))
}

/// `text` URL-decoded as Arrow decodes a partition segment: `%XX` (two hex
/// digits) is the byte XX, anything else stays; none when the bytes are
/// not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `text` escaped for a partition directory's name as pyarrow writes it
/// (Arrow C++'s `UriEscape`, checked against pyarrow 26): the unreserved
/// characters of RFC 3986 (letters, digits, `-._~`) stay, every other byte
/// is `%XX` in upper-case hex; [`decode`] gives `text` back.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn hex(byte: u8) -> Option<u8> {
    char::from(byte).to_digit(16).map(|d| d as u8)
}

/// `text` as an Int32 as Arrow parses a partition value: an optional `-`
/// and decimal digits in range, or `0x`/`0X` and one to eight hex digits.
fn int32(text: &str) -> Option<i32> {
    if let Some(digits) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return u32::from_str_radix(digits, 16).ok().map(|bits| bits as i32);
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Rust's parse takes a leading '+', which Arrow does not: checked above.
    text.parse::<i32>().ok()
}

/// The partitions of files whose paths and levels are `files`: every file
/// the same keys in the same order, each key typed from all its values.
pub fn partitions(files: &[(&Path, Levels)]) -> Result<Vec<Partition>, Error> {
    let Some((first_path, first)) = files.first() else {
        return Ok(Vec::new());
    };
    let keys = |levels: &Levels| {
        levels
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (path, levels) in files {
        let same =
            levels.len() == first.len() && levels.iter().zip(first).all(|((a, _), (b, _))| a == b);
        if !same {
            let said = |l: &Levels| match l.is_empty() {
                true => "no key=value directories".to_owned(),
                false => format!("the partition keys ({})", keys(l)),
            };
            return Err(Error::invalid(format!(
                "{} has {} and {} has {}: every file needs the same key=value directories, \
                 in the same order",
                first_path.display(),
                said(first),
                path.display(),
                said(levels)
            )));
        }
    }
    if first.is_empty() {
        return Ok(vec![Partition::default(); files.len()]);
    }
    let integers: Vec<bool> = (0..first.len())
        .map(|k| {
            let mut values = files.iter().filter_map(|(_, l)| l[k].1.as_deref());
            let mut any = false;
            let all = values.all(|v| {
                any = true;
                int32(v).is_some()
            });
            any && all
        })
        .collect();
    let fields: Arc<[FieldRef]> = first
        .iter()
        .zip(&integers)
        .map(|((key, _), &int)| {
            let data_type = if int { DataType::Int32 } else { DataType::Utf8 };
            Arc::new(Field::new(key, data_type, true))
        })
        .collect();
    Ok(files
        .iter()
        .map(|(_, levels)| Partition {
            fields: fields.clone(),
            values: levels
                .iter()
                .zip(&integers)
                .map(|((_, value), &int)| match value {
                    None => Value::Null,
                    Some(v) if int => Value::Int32(int32(v).expect("checked above")),
                    Some(v) => Value::Text(v.clone()),
                })
                .collect(),
        })
        .collect())
}

impl Partition {
    /// Whether there are no partition columns.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The keys, types and values, as text (a stream cache's identity of
    /// the file: the same file under other directories has other values).
    pub fn describe(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!("{fields:?} = {:?}", self.values)
    }

    /// `schema` (a file's own) with the partition columns after its own;
    /// an error when the file has a column of a key's name.
    pub fn extend(&self, schema: &Schema, path: &Path) -> Result<SchemaRef, Error> {
        for (field, value) in self.fields.iter().zip(&self.values) {
            if schema.field_with_name(field.name()).is_ok() {
                let value = match value {
                    Value::Null => NULL_VALUE.to_owned(),
                    Value::Int32(v) => v.to_string(),
                    Value::Text(v) => v.clone(),
                };
                return Err(Error::invalid(format!(
                    "{}: the file has a column '{}' and lies in the partition directory \
                     {}={value}: rename the column or the directory",
                    path.display(),
                    field.name(),
                    field.name()
                )));
            }
        }
        let fields: Vec<FieldRef> = schema
            .fields()
            .iter()
            .chain(self.fields.iter())
            .cloned()
            .collect();
        Ok(Arc::new(Schema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        )))
    }

    /// `schema` without the partition columns (a merged schema handed to
    /// a reader of the file's own columns).
    pub fn strip(&self, schema: &Schema) -> SchemaRef {
        let fields: Vec<FieldRef> = schema
            .fields()
            .iter()
            .filter(|f| !self.fields.iter().any(|p| p.name() == f.name()))
            .cloned()
            .collect();
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    }

    /// The partition columns of `rows` rows.
    pub fn columns(&self, rows: usize) -> Vec<ArrayRef> {
        self.fields
            .iter()
            .zip(&self.values)
            .map(|(field, value)| -> ArrayRef {
                match value {
                    Value::Null => new_null_array(field.data_type(), rows),
                    Value::Int32(v) => Arc::new(Int32Array::from_value(*v, rows)),
                    Value::Text(v) => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                        v.as_str(),
                        rows,
                    ))),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_decode_and_parse_as_arrows() {
        assert_eq!(decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(decode("a+b").as_deref(), Some("a+b"));
        assert_eq!(decode("%zz").as_deref(), Some("%zz"));
        assert_eq!(decode("%41%").as_deref(), Some("A%"));
        assert_eq!(decode("%2").as_deref(), Some("%2"));
        assert_eq!(decode("%C3%A9").as_deref(), Some("é"));
        assert_eq!(decode("%FF"), None);
        for (text, value) in [
            ("1", Some(1)),
            ("-5", Some(-5)),
            ("007", Some(7)),
            ("-0", Some(0)),
            ("-2147483648", Some(i32::MIN)),
            ("2147483648", None),
            ("+5", None),
            (" 5", None),
            ("1.5", None),
            ("", None),
            ("-", None),
            ("0x10", Some(16)),
            ("0XAb", Some(171)),
            ("0xFFFFFFFF", Some(-1)),
            ("0x123456789", None),
            ("0x", None),
            ("-0x10", None),
            ("1_000", None),
        ] {
            assert_eq!(int32(text), value, "{text}");
        }
    }

    #[test]
    fn values_encode_as_pyarrow_writes_them_and_decode_back() {
        for (text, name) in [
            ("a/b", "a%2Fb"),
            ("a=b", "a%3Db"),
            ("50%", "50%25"),
            ("é", "%C3%A9"),
            ("sp ace", "sp%20ace"),
            ("", ""),
            ("+x", "%2Bx"),
            ("~_-.", "~_-."),
            ("%41", "%2541"),
            ("tab\tx", "tab%09x"),
        ] {
            assert_eq!(encode(text), name, "{text}");
            assert_eq!(decode(name).as_deref(), Some(text), "{name}");
        }
    }

    #[test]
    fn levels_are_the_key_value_directories() {
        let root = Path::new("/d");
        let levels = levels_of(root, Path::new("/d/2024/k=1/s=a%3Db/f.parquet")).unwrap();
        assert_eq!(
            levels,
            vec![
                ("k".to_owned(), Some("1".to_owned())),
                ("s".to_owned(), Some("a=b".to_owned()))
            ]
        );
        let null = levels_of(root, Path::new("/d/k=__HIVE_DEFAULT_PARTITION__/f.csv")).unwrap();
        assert_eq!(null, vec![("k".to_owned(), None)]);
        assert!(levels_of(root, Path::new("/d/k=1/k=2/f.csv")).is_err());
        assert!(levels_of(root, Path::new("/d/=1/f.csv")).is_err());
        assert!(levels_of(root, Path::new("/d/f.csv")).unwrap().is_empty());
    }
}
