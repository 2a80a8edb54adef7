//! Fuzzes shuf mode's option parser (GNU getopt_long rules, GNU messages,
//! quoting of operands): any argument list, under either name, must give
//! a command or an error (never a panic), in time linear in its length,
//! and the result must be self-consistent.
//!
//! Input: the first byte chooses the name (`shuf` or `knuffle`), the rest
//! is split at NUL bytes into arguments (as a C `argv` is).
//!
//! The parser is knuffle-cli's library (`knuffle_cli::shuf`), the code the
//! binary runs.

#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use knuffle_cli::shuf;
use knuffle_cli::shuf::options::{Command, InputSpec, Personality, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&name, rest)) = data.split_first() else {
        return;
    };
    let personality = if name & 1 == 0 {
        Personality::Gnu
    } else {
        Personality::Knuffle
    };
    let args: Vec<OsString> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect()
    };
    match parse(&args, personality) {
        Ok(Command::Shuffle(options)) => {
            if personality == Personality::Gnu {
                // GNU's options only.
                assert!(options.seed.is_none() && options.memory.is_none());
                assert!(options.header == 0 && options.temp_dir.is_none());
                if let InputSpec::Files(files) = &options.input {
                    assert!(files.len() <= 1, "GNU takes one FILE");
                }
            }
            assert!(options.delimiter == b'\n' || options.delimiter == 0);
            if let InputSpec::Range { lo, hi } = options.input {
                // `hi < lo` only as the empty range LO-(LO-1).
                assert!(lo <= hi || hi.wrapping_add(1) == lo);
            }
            let operands = match &options.input {
                InputSpec::Files(v) | InputSpec::Echo(v) => v.len(),
                InputSpec::Range { .. } => 0,
            };
            assert!(operands <= args.len());
        }
        Ok(Command::Generate(_)) => assert_eq!(personality, Personality::Knuffle),
        Ok(Command::Help | Command::Version) => {}
        Err(error) => {
            assert!(!error.message.is_empty());
            assert!(!error.message.ends_with('\n'));
        }
    }
    // The quoting of any argument never panics and is never empty.
    for arg in &args {
        let bytes = arg.as_encoded_bytes();
        assert!(!shuf::quote::quotef_in(bytes, true).is_empty());
        assert!(!shuf::quote::quotef_in(bytes, false).is_empty());
        assert!(shuf::quote::quote_in(bytes, true).len() >= 2);
        assert!(shuf::quote::quote_in(bytes, false).is_ascii());
    }
});
