//! `-n K`: a simple random sample of K records, every K-subset equally
//! likely (all records when there are fewer), by Li's reservoir
//! Algorithm L (`knuffle::Reservoir`; its skip lengths are computed in
//! double precision, see its documentation). Records the reservoir will
//! certainly reject are passed over without being copied. The sample is
//! written in uniformly random order (a Durstenfeld shuffle), or with
//! `--inorder` in input order.
//!
//! Without `-n`, every record: a uniform shuffle by random keys. Each
//! record, in input order, gets the next 64-bit word of the generator as
//! its key; the records are written in increasing key order, records of
//! equal key in a uniformly random order (a Durstenfeld shuffle of the
//! group). The keys are independent and uniform and ties are broken
//! uniformly, so every order of the records is exactly equally likely
//! (sorting by iid uniform keys: Knuth, TAOCP vol. 2, 3.4.2, the method of
//! assigning random keys and sorting; the ties as in Rao 1961 and
//! Sandelius 1962, whose argument `external` spells out). The sort is
//! [`ordered::KeyedSort`]: in memory, or sorted runs in temporary files
//! and a merge when the records exceed `--memory`, with the same output
//! either way.

use std::path::Path;

use knuffle::{DefaultRng, Reservoir};
use rand_core::Rng;

use super::error::SampleError;
use super::ordered::{self, KeyedSort};
use super::output::{Held, Output};
use super::records::RecordReader;

/// Samples `count` records (`None`: all, in bounded memory with temporary
/// files in `temp_dir`) of `reader` to `out`.
pub fn run(
    reader: &mut RecordReader,
    count: Option<u64>,
    in_order: bool,
    temp_dir: Option<&Path>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let Some(count) = count else {
        return shuffle_all(reader, temp_dir, rng, out);
    };
    let k = usize::try_from(count).unwrap_or(usize::MAX);
    if k == 0 {
        return Ok(());
    }
    let mut reservoir: Reservoir<Held> = Reservoir::new(k);
    let meter = out.meter();
    let mut scratch = Vec::new();
    loop {
        let skip = reservoir.items_to_skip();
        if skip > 0 {
            let skipped = reader.skip_records(skip, &mut scratch)?;
            reservoir.skip(skipped);
            if skipped < skip {
                break;
            }
        }
        let mut record = Vec::new();
        if !reader.next_record(&mut record)? {
            break;
        }
        // After the skip, Algorithm L accepts this record (and drops the
        // one it replaces).
        let index = reservoir.seen();
        reservoir.offer(meter.hold(index, record), rng);
        meter.check()?;
    }
    let sample = if in_order {
        let mut sample = reservoir.into_vec();
        sample.sort_unstable_by_key(|held| held.index);
        sample
    } else {
        reservoir.into_shuffled(rng)
    };
    for held in &sample {
        out.write(held.record())?;
    }
    Ok(())
}

/// Every record of `reader`, in uniformly random order: ordered by a
/// random 64-bit key each, ties shuffled.
fn shuffle_all(
    reader: &mut RecordReader,
    temp_dir: Option<&Path>,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let mut sort = KeyedSort::new(out.budget(), temp_dir, ordered::Ties::Shuffled);
    let mut record = Vec::new();
    while reader.next_record(&mut record)? {
        sort.push(rng.next_u64(), &record)?;
    }
    sort.finish(rng, out, &|_| None)
}
