//! Any bytes as a CSV table (first byte even) or TSV (odd), the first
//! byte dropped: read to the end or refused as invalid data naming the
//! file, never a panic; a table read is written back as CSV (TSV) and
//! reads back the same (`knuffle_table::fuzzing::read_table`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = knuffle_table::fuzzing::read_csv(data);
});
