//! `-n K`: a simple random sample of K records, every K-subset equally
//! likely (all records when there are fewer), by Li's reservoir
//! Algorithm L (`knuffle::Reservoir`; its skip lengths are computed in
//! double precision, see its documentation). Records the reservoir will
//! certainly reject are passed over without being copied. The sample is
//! written in uniformly random order (a Durstenfeld shuffle), or with
//! `--inorder` in input order.
//!
//! Without `-n`, every record, in **the table order** of the seed
//! (`knuffle::table_order`, docs/table-order.md): record `i` (counted from
//! 0 over all inputs, headers not counted) gets the label `i` of the seed's
//! table order as its key; the records are written in increasing label
//! order, records of equal label in their table-order tie order. So
//! `knuffle sample --seed S` on records writes them in the order `knuffle
//! table --seed S` gives the same rows. The labels are independent and
//! uniform and ties are permuted uniformly, so every order of the records is
//! exactly equally likely (sorting by iid uniform keys: Knuth, TAOCP vol. 2,
//! 3.4.2; the ties as in Rao 1961 and Sandelius 1962). The sort is
//! [`ordered::KeyedSort`]: in memory, or sorted runs in temporary files and
//! a merge when the records exceed `--memory`, with the same output either
//! way.

use std::path::Path;

use knuffle::table_order::TableOrder;
use knuffle::{DefaultRng, Reservoir};

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
    seed: &str,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let Some(count) = count else {
        return shuffle_all(reader, temp_dir, &TableOrder::new(seed), out);
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

/// Labels computed at a time (one ChaCha20 call for many records).
const LABEL_BLOCK: usize = 4096;

/// Every record of `reader`, in the table order of `order`: keyed by its
/// label (in the high 32 bits), ties in the order's tie order.
fn shuffle_all(
    reader: &mut RecordReader,
    temp_dir: Option<&Path>,
    order: &TableOrder,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let mut sort = KeyedSort::new(out.budget(), temp_dir, ordered::Ties::Table(order.clone()));
    let mut record = Vec::new();
    let mut labels = vec![0u32; LABEL_BLOCK];
    let mut index = 0u64;
    while reader.next_record(&mut record)? {
        let at = (index % LABEL_BLOCK as u64) as usize;
        if at == 0 {
            order.labels_into(index, &mut labels);
        }
        sort.push(u64::from(labels[at]) << 32, &record)?;
        index += 1;
    }
    sort.finish(out, &|_| None)
}
