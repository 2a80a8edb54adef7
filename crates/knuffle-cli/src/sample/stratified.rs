//! `--per-key N -k FIELDS`: stratified sampling. The records are grouped by
//! key; from every group a uniform sample of N records (all of a smaller
//! group) is kept, each group by its own reservoir (Li's Algorithm L,
//! `knuffle::Reservoir`), so every N-subset of a group is equally likely
//! and groups are sampled independently. Memory: one reservoir per group,
//! O(groups x N) records and the keys, within `--memory`. The sample is
//! written in input order.

use std::collections::HashMap;

use knuffle::{DefaultRng, Reservoir};

use super::key::KeyFields;
use super::output::{Output, record_cost};
use super::records::RecordReader;
use crate::failure::CliError;

/// What a group costs besides its key and records: its reservoir and
/// the first items' room (`Reservoir::new` reserves up to 64), its map entry.
const GROUP_OVERHEAD: u64 = 64 * 32 + 128;

/// Samples `per_key` records of each key group of `reader`.
pub fn run(
    reader: &mut RecordReader,
    mut keys: KeyFields,
    per_key: u64,
    rng: &mut DefaultRng,
    out: &mut Output,
) -> Result<(), CliError> {
    let k = usize::try_from(per_key).unwrap_or(usize::MAX);
    if k == 0 {
        return Ok(());
    }
    let mut groups: HashMap<Vec<u8>, Reservoir<(u64, Vec<u8>)>> = HashMap::new();
    let mut held = out.held();
    let mut record = Vec::new();
    let mut key = Vec::new();
    let mut index = 0u64;
    while reader.next_record(&mut record)? {
        keys.key_of(&record, reader, &mut key)?;
        if !groups.contains_key(&key) {
            held.add(key.len() as u64 + GROUP_OVERHEAD, || {
                exact_cost(&groups) + record_cost(&key) + GROUP_OVERHEAD
            })?;
            groups.insert(key.clone(), Reservoir::new(k));
        }
        let reservoir = groups.get_mut(&key).expect("inserted above");
        if reservoir.items_to_skip() > 0 {
            // Algorithm L passes over this record without a draw.
            reservoir.skip(1);
        } else {
            reservoir.offer((index, record.clone()), rng);
            held.add(record.len() as u64, || exact_cost(&groups))?;
        }
        index += 1;
    }
    let mut sample: Vec<(u64, Vec<u8>)> =
        groups.into_values().flat_map(Reservoir::into_vec).collect();
    sample.sort_unstable_by_key(|(index, _)| *index);
    for (_, record) in &sample {
        out.write(record)?;
    }
    Ok(())
}

/// The memory the groups take: their keys and records.
fn exact_cost(groups: &HashMap<Vec<u8>, Reservoir<(u64, Vec<u8>)>>) -> u64 {
    groups
        .iter()
        .map(|(key, reservoir)| {
            record_cost(key)
                + GROUP_OVERHEAD
                + reservoir
                    .items()
                    .iter()
                    .map(|(_, r)| record_cost(r))
                    .sum::<u64>()
        })
        .sum()
}
