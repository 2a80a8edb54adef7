//! Shuffles the lines of a file to standard output in bounded memory, as
//! `knuffle --seed SEED --memory SIZE FILE` does (byte for byte).
//!
//! ```text
//! cargo run -p knuffle-records --example shuffle_file -- FILE [SEED] [SIZE]
//! ```

use std::process::ExitCode;

use knuffle_io::parse_size;
use knuffle_records::{Destination, Input, NoProgress, Options, Randomness};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: shuffle_file FILE [SEED] [MEMORY]");
        return ExitCode::from(2);
    };
    let mut randomness = match args.get(1) {
        Some(seed) => Randomness::from_seed_text(seed),
        None => match Randomness::from_os() {
            Ok(randomness) => randomness,
            Err(error) => {
                eprintln!("shuffle_file: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let memory = match args.get(2).map(|size| parse_size(size)).transpose() {
        Ok(memory) => memory,
        Err(error) => {
            eprintln!("shuffle_file: {error}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        memory,
        ..Options::default()
    };
    match knuffle_records::shuffle_records_to(
        [Input::from_name(file)],
        &options,
        &mut randomness,
        Destination::Stdout,
        &NoProgress,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("shuffle_file: {error}");
            ExitCode::FAILURE
        }
    }
}
