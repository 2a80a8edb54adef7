//! `-p P`: Bernoulli sampling. Each record is kept independently with
//! probability exactly P ([`Probability::draw`]: `below(b) < a`), and
//! written at once, in input order: one record in memory at a time, so
//! endless input streams. With `--print-random` each kept record is
//! prefixed by its draw `j/b` (kept when `j < a`); with
//! `--gen-random-inorder` every record is, kept or not.

use knuffle::DefaultRng;

use super::error::SampleError;
use super::output::{Output, PrintRandom};
use super::probability::Probability;
use super::records::RecordReader;

/// Keeps each record of `reader` with probability `probability`; with
/// `print_random`, prefixes the draw.
pub fn run(
    reader: &mut RecordReader,
    probability: Probability,
    print_random: Option<PrintRandom>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let mut record = Vec::new();
    while reader.next_record(&mut record)? {
        match print_random {
            None => {
                if probability.draw(rng) {
                    out.write(&record)?;
                }
            }
            Some(print) => {
                let (kept, j) = probability.draw_value(rng);
                if kept || print.every_record {
                    out.write_valued(&probability.describe(j), print.delimiter, &record)?;
                }
            }
        }
    }
    Ok(())
}
