//! `-n K`: a simple random sample of K records, every K-subset equally
//! likely (all records when there are fewer), by Li's reservoir
//! Algorithm L (`knuffle::Reservoir`; its skip lengths are computed in
//! double precision, see its documentation). Records the reservoir will
//! certainly reject are passed over without being copied. The sample is
//! written in uniformly random order (a Durstenfeld shuffle), or with
//! `--inorder` in input order. Without `-n`, every record is held and
//! shuffled: a uniform permutation, in memory.

use knuffle::{DefaultRng, Reservoir};

use super::error::SampleError;
use super::output::{Held, Output};
use super::records::RecordReader;

/// Samples `count` records (`None`: all) of `reader` to `out`.
pub fn run(
    reader: &mut RecordReader,
    count: Option<u64>,
    in_order: bool,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let k = count.map_or(usize::MAX, |k| usize::try_from(k).unwrap_or(usize::MAX));
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
