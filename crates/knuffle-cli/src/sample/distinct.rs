//! `-k FIELDS -p P`: distinct (by key) sampling. All records with the same
//! key are kept or dropped together, and the decision depends only on the
//! seed and the key: the same in every run, file and machine for the same
//! `--seed` (so one seed samples the same users across many log files).
//!
//! The decision for a key: `h = SHA-256("knuffle sample -k/1" || 0 ||
//! seed key || encoded key)` (the seed key is SHA-256 of the seed text,
//! as every `--seed` gives; the encoded key as [`super::key`] writes it)
//! keys a ChaCha20 generator, and the key is in when `below(b) < a` on
//! that generator for P = a/b: probability exactly P when SHA-256 is taken
//! as a random function. Records are written in input order; memory is
//! one record (no table of keys is kept).

use knuffle::Seed;
use sha2::{Digest, Sha256};

use super::key::KeyFields;
use super::output::Output;
use super::probability::Probability;
use super::records::RecordReader;
use crate::failure::CliError;

/// Domain separation of the key hash.
const DOMAIN: &[u8] = b"knuffle sample -k/1\0";

/// Whether `key` (encoded) is in the sample of seed key `seed` at
/// `probability`.
pub fn key_is_in(seed: &[u8; 32], key: &[u8], probability: Probability) -> bool {
    let mut hash = Sha256::new();
    hash.update(DOMAIN);
    hash.update(seed);
    hash.update(key);
    let digest: [u8; 32] = hash.finalize().into();
    probability.draw(&mut Seed::from_key(digest).rng())
}

/// Keeps the records of `reader` whose key is in.
pub fn run(
    reader: &mut RecordReader,
    mut keys: KeyFields,
    probability: Probability,
    seed_text: &str,
    out: &mut Output,
) -> Result<(), CliError> {
    let seed = *Seed::from_text(seed_text).key();
    let mut record = Vec::new();
    let mut key = Vec::new();
    while reader.next_record(&mut record)? {
        keys.key_of(&record, reader, &mut key)?;
        if key_is_in(&seed, &key, probability) {
            out.write(&record)?;
        }
    }
    Ok(())
}
