//! `-k FIELDS`: the key of a record, its key fields (numbers from 1 or,
//! with `--header`, names; separated by commas) encoded without
//! ambiguity: each field's length (8 bytes, little-endian) then its bytes
//! (for `--csv`, the unquoted value, so `"x"` and `x` are the same key).

use knuffle::{DefaultRng, Seed};
use sha2::{Digest, Sha256};

use super::error::SampleError;
use super::fields::{FieldName, Splitter};
use super::records::{Framing, RecordReader};

/// The key fields of each record.
pub struct KeyFields {
    indices: Vec<usize>,
    splitter: Splitter,
}

impl KeyFields {
    /// The fields `names`, resolved against the fields of `header` (the
    /// first input's header record, when `headers` were asked for and
    /// there is one), in records of `framing` with fields separated by
    /// `delimiter`.
    pub fn new(
        names: &[FieldName],
        framing: Framing,
        delimiter: u8,
        headers: bool,
        header: Option<&[u8]>,
    ) -> Result<Self, SampleError> {
        let mut splitter = Splitter::new(framing == Framing::Csv, delimiter, framing.terminator());
        let header_fields = header.map(|h| splitter.all_fields(h));
        let no_input = headers && header_fields.is_none();
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

/// The generator of an encoded `key` under seed key `seed` (SHA-256 of
/// the seed text) for the use named by `domain`: ChaCha20 keyed by
/// `SHA-256(domain || seed || key)`, so a key's draws depend on the seed
/// and the key only (the same in every run, file and machine), and
/// different uses of one seed draw independently.
pub fn key_rng(domain: &[u8], seed: &[u8; 32], key: &[u8]) -> DefaultRng {
    let mut hash = Sha256::new();
    hash.update(domain);
    hash.update(seed);
    hash.update(key);
    let digest: [u8; 32] = hash.finalize().into();
    Seed::from_key(digest).rng()
}
