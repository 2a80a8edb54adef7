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
//! one record (no table of keys is kept). With `--print-random` each kept
//! record is prefixed by its key's draw `j/b` (kept when `j < a`; with
//! `--print-random` the draw is made even when P is 0 or 1); with
//! `--gen-random-inorder` every record is, in or out.

use knuffle::Seed;

use super::error::SampleError;
use super::key::{KeyFields, key_rng};
use super::output::{Output, PrintRandom};
use super::probability::Probability;
use super::records::RecordReader;

/// Domain separation of the key hash.
const DOMAIN: &[u8] = b"knuffle sample -k/1\0";

/// The generator of `key`'s draw (an encoded key, as [`super::key`]
/// writes it) under the seed key `seed` (SHA-256 of the seed text): the
/// draw that keeps or drops every record of that key, here and in the
/// tables' `-k -p`.
pub fn distinct_key_rng(seed: &[u8; 32], key: &[u8]) -> knuffle::DefaultRng {
    key_rng(DOMAIN, seed, key)
}

/// Keeps the records of `reader` whose key is in; with `print_random`,
/// prefixes the key's draw.
pub fn run(
    reader: &mut RecordReader,
    mut keys: KeyFields,
    probability: Probability,
    seed_text: &str,
    print_random: Option<PrintRandom>,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let seed = *Seed::from_text(seed_text).key();
    let mut record = Vec::new();
    let mut key = Vec::new();
    while reader.next_record(&mut record)? {
        keys.key_of(&record, reader, &mut key)?;
        let mut rng = distinct_key_rng(&seed, &key);
        match print_random {
            None => {
                if probability.draw(&mut rng) {
                    out.write(&record)?;
                }
            }
            Some(print) => {
                let (kept, j) = probability.draw_value(&mut rng);
                if kept || print.every_record {
                    out.write_valued(&probability.describe(j), print.delimiter, &record)?;
                }
            }
        }
    }
    Ok(())
}
