//! `-k FIELDS`: the key of a record, its key fields (numbers from 1 or,
//! with `--header`, names; separated by commas) encoded without
//! ambiguity: each field's length (8 bytes, little-endian) then its bytes
//! (for `--csv`, the unquoted value, so `"x"` and `x` are the same key).

use super::error::SampleError;
use super::fields::{FieldName, Splitter};
use super::options::SampleOptions;
use super::records::RecordReader;

/// The key fields of each record.
pub struct KeyFields {
    indices: Vec<usize>,
    splitter: Splitter,
}

impl KeyFields {
    /// The fields `names`, resolved against the header's fields.
    pub fn new(
        names: &[FieldName],
        options: &SampleOptions,
        header: Option<&[u8]>,
    ) -> Result<Self, SampleError> {
        let mut splitter = Splitter::new(
            options.csv(),
            options.delimiter,
            options.framing.terminator(),
        );
        let header_fields = header.map(|h| splitter.all_fields(h));
        let no_input = options.header && header_fields.is_none();
        let indices = names
            .iter()
            .map(|name| match name {
                // No input at all: nothing to sample, nothing to look up.
                FieldName::Name(_) if no_input => Ok(0),
                _ => name.resolve("-k", header_fields.as_deref()),
            })
            .collect::<Result<_, _>>()?;
        Ok(KeyFields { indices, splitter })
    }

    /// Writes the key of `record` into `key` (cleared first); a record
    /// without one of the fields is an error naming it (status 1).
    pub fn key_of(
        &mut self,
        record: &[u8],
        reader: &RecordReader,
        key: &mut Vec<u8>,
    ) -> Result<(), SampleError> {
        key.clear();
        let fields = self.splitter.split(record);
        for &index in &self.indices {
            let Some(value) = self.splitter.field(record, index) else {
                return Err(SampleError::data(format!(
                    "{} has {fields} field{}, so no field {} (a key field)",
                    reader.place(),
                    if fields == 1 { "" } else { "s" },
                    index + 1
                )));
            };
            key.extend_from_slice(&(value.len() as u64).to_le_bytes());
            key.extend_from_slice(value);
        }
        Ok(())
    }
}
