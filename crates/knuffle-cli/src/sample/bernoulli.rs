//! `-p P`: Bernoulli sampling. Each record is kept independently with
//! probability exactly P ([`Probability::draw`]: `below(b) < a`), and
//! written at once, in input order: one record in memory at a time, so
//! endless input streams.

use knuffle::DefaultRng;

use super::output::Output;
use super::probability::Probability;
use super::records::RecordReader;
use crate::failure::CliError;

/// Keeps each record of `reader` with probability `probability`.
pub fn run(
    reader: &mut RecordReader,
    probability: Probability,
    rng: &mut DefaultRng,
    out: &mut Output,
) -> Result<(), CliError> {
    let mut record = Vec::new();
    while reader.next_record(&mut record)? {
        if probability.draw(rng) {
            out.write(&record)?;
        }
    }
    Ok(())
}
