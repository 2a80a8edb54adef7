//! `--per-key N -k FIELDS`: stratified sampling. The records are grouped by
//! key; from every group a uniform sample of N records (all of a smaller
//! group) is kept, each group by its own reservoir (Li's Algorithm L,
//! `knuffle::Reservoir`), so every N-subset of a group is equally likely
//! and groups are sampled independently. Memory: one reservoir per group,
//! O(groups x N) records and the keys, within `--memory`. The sample is
//! written in input order.

use std::collections::HashMap;

use knuffle::{DefaultRng, Reservoir};

use super::error::SampleError;
use super::key::KeyFields;
use super::output::{Held, Output, record_cost};
use super::records::RecordReader;

/// What a group costs besides its key and records: its reservoir, the
/// room `Reservoir::new` reserves for its first items (up to 64 of them, 32
/// bytes each), its map entry.
const GROUP_OVERHEAD: u64 = 64 * 32 + 128;

/// Samples `per_key` records of each key group of `reader`.
pub fn run(
    reader: &mut RecordReader,
    mut keys: KeyFields,
    per_key: u64,
    rng: &mut DefaultRng,
    out: &mut Output<'_>,
) -> Result<(), SampleError> {
    let k = usize::try_from(per_key).unwrap_or(usize::MAX);
    if k == 0 {
        return Ok(());
    }
    let mut groups: HashMap<Vec<u8>, Reservoir<Held>> = HashMap::new();
    let meter = out.meter();
    let mut record = Vec::new();
    let mut key = Vec::new();
    let mut index = 0u64;
    while reader.next_record(&mut record)? {
        keys.key_of(&record, reader, &mut key)?;
        if !groups.contains_key(&key) {
            meter.add(record_cost(&key) + GROUP_OVERHEAD);
            meter.check()?;
            groups.insert(key.clone(), Reservoir::new(k));
        }
        let reservoir = groups.get_mut(&key).expect("inserted above");
        if reservoir.items_to_skip() > 0 {
            // Algorithm L passes over this record without a draw.
            reservoir.skip(1);
        } else {
            reservoir.offer(meter.hold(index, record.clone()), rng);
            meter.check()?;
        }
        index += 1;
    }
    let mut sample: Vec<Held> = groups.into_values().flat_map(Reservoir::into_vec).collect();
    sample.sort_unstable_by_key(|held| held.index);
    for held in &sample {
        out.write(held.record())?;
    }
    Ok(())
}
