//! Default mode: a drop-in GNU `shuf`, much faster.
//!
//! Layout (one concept per file):
//!
//! | file | what it does |
//! | --- | --- |
//! The shuffling itself (reading, indexing, the reservoir, the external
//! scatter/gather, GNU's `--random-source`, the output) is the record
//! library, `knuffle-records`; this module parses arguments, words errors
//! as GNU does, and draws progress. Layout (one concept per file, each
//! using only the ones above it in this table):
//!
//! | file | what it does |
//! | --- | --- |
//! | `errors.rs` | [`ShufError`](errors::ShufError), GNU's quoting of names in messages |
//! | `record_errors.rs` | the record library's errors in GNU's words |
//! | `memory_option.rs` | `--memory SIZE` parsing and its messages |
//! | `options.rs` | the option table and a getopt_long-compatible parser (GNU's messages) |
//! | `help.rs` | `--help`, `--version` |
//! | `numbers.rs` | fast decimal formatting for `-i` |
//! | `progress_bar.rs` | the progress bar on a terminal, fed by the library's reports |
//! | `modes.rs` | the three input kinds: FILEs to `knuffle_records`, `-e` and `-i` to its engine |
//!
//! Flow: [`run`] parses the arguments into [`Options`](options::Options),
//! then [`modes::execute`] hands FILE input to
//! [`knuffle_records::shuffle_records_planned`] (read, choose, open the
//! output last, write) or runs `-e`/`-i` through the same engine.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

mod errors;
mod help;
mod memory_option;
mod modes;
mod numbers;
mod options;
mod progress_bar;
mod record_errors;

use options::{Command, Personality};

/// Runs shuf mode with the full argument list (`args[0]` is the program
/// name as invoked; the name `shuf` selects exact GNU behaviour).
pub fn run(args: Vec<OsString>) -> ExitCode {
    // GNU shuf dies of SIGPIPE when its reader goes away (`shuf big | head -1`).
    crate::emit::end_quietly_on_closed_pipe();
    let program = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "knuffle".into());
    let personality = match Path::new(&program).file_name().and_then(|n| n.to_str()) {
        Some("shuf") => Personality::Gnu,
        _ => Personality::Knuffle,
    };
    let rest = args.get(1..).unwrap_or_default();
    let result = options::parse(rest, personality).and_then(|command| match command {
        Command::Help => print(&help::help(&program, personality)),
        Command::Version => print(&help::version(personality)),
        Command::Shuffle(options) => modes::execute(&options, &program),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "{program}: {}", error.message);
            if error.try_help {
                let _ = writeln!(stderr, "Try '{program} --help' for more information.");
            }
            ExitCode::from(1)
        }
    }
}

fn print(text: &str) -> Result<(), errors::ShufError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| errors::ShufError::write(&e))
}
