//! The record scanner of `shuf` and the external mode
//! (`knuffle_records::scan`, exported for fuzzing): every delimiter is found, in order, exactly
//! once, as a plain byte scan finds it, at every alignment.
#![no_main]

use knuffle_records::fuzzing as scan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&delimiter, rest)) = data.split_first() else {
        return;
    };
    // Two common delimiters and the fuzzer's choice.
    for delimiter in [b'\n', 0, delimiter] {
        for skip in 0..rest.len().min(3) {
            let part = &rest[skip..];
            let mut found = Vec::new();
            scan::for_each_delimiter(part, delimiter, |i| found.push(i));
            let want: Vec<usize> = part
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == delimiter)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(found, want);
            assert_eq!(scan::count_delimiters(part, delimiter), want.len() as u64);
        }
    }
});
