//! Any bytes as a JSON Lines table: read to the end or refused as invalid
//! data naming the file, in bounded memory, never a panic
//! (`knuffle_table::fuzzing::read_table`).
#![no_main]

use knuffle_table::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = knuffle_table::fuzzing::read_table(Format::JsonLines, data);
});
