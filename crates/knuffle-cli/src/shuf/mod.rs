//! Default mode: a drop-in GNU `shuf`, much faster.
//!
//! The shuffling itself (reading, indexing, the reservoir, the external
//! scatter/gather, GNU's `--random-source`, the output) is the record
//! library, `knuffle-records`; this module parses arguments, words errors
//! as GNU does, and draws progress. Layout (one concept per file, each
//! using only the ones above it in this table):
//!
//! | file | what it does |
//! | --- | --- |
//! | `quote.rs` | gnulib quotearg's `quote` and `quotef` (shell-escape) styles, byte for byte |
//! | `errors.rs` | GNU's messages for files, reads and memory (constructors of [`CliError`]) |
//! | `record_errors.rs` | the record library's errors in GNU's words |
//! | `memory_option.rs` | `--memory SIZE` checked while parsing |
//! | `flags.rs` | the one table of shuf's flags (parser, `--help`, man page and completions read it) |
//! | `options.rs` | a getopt_long-compatible parser of the table's flags (GNU's messages) |
//! | `help.rs` | `--help` (from the flag table and the subcommand registry), `--version` |
//! | `mapped_input.rs` | a mapped input file that shrank, reported (`SIGBUS`) |
//! | `progress_bar.rs` | the progress bar on a terminal, fed by the library's reports |
//! | `modes.rs` | the three input kinds (FILEs, `-e` words, `-i` ranges), each an input of `knuffle_records` |
//!
//! Flow: [`run`] parses the arguments into [`Options`](options::Options),
//! then `modes::execute` hands FILE input to
//! [`knuffle_records::shuffle_records_planned`] (read, choose, open the
//! output last, write), `-e` and `-i` as its `Input::Words` and
//! `Input::Range`.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

mod errors;
pub mod flags;
mod help;
mod mapped_input;
mod memory_option;
mod modes;
pub mod options;
mod progress_bar;
pub mod quote;
mod record_errors;

use crate::failure::CliError;
use options::{Command, Personality};

/// Runs shuf mode with the full argument list (`args[0]` is the program
/// name as invoked; the name `shuf` selects exact GNU behaviour). A failure
/// comes back in GNU's words; `main` prints it as `PROGRAM: MESSAGE`
/// (exit status 1, as GNU's).
///
/// `generate` renders `--generate KIND` (the man page and completions are
/// built above this module, from the whole command line's definition).
pub fn run(
    args: &[OsString],
    generate: &dyn Fn(&std::ffi::OsStr) -> Result<Vec<u8>, String>,
) -> Result<(), CliError> {
    // GNU shuf dies of SIGPIPE when its reader goes away (`shuf big | head
    // -1`), and says `write error: Broken pipe` (status 1) when its parent
    // ignored SIGPIPE.
    crate::emit::end_quietly_on_closed_pipe();
    // Freed bucket buffers of the external shuffle go back to the system
    // at once (the allocator tuned here, for the process, not by the
    // record library).
    knuffle_io::process::return_freed_memory_at_once();
    let program = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "knuffle".into());
    let personality = match Path::new(&program).file_name().and_then(|n| n.to_str()) {
        Some("shuf") => Personality::Gnu,
        _ => Personality::Knuffle,
    };
    let rest = args.get(1..).unwrap_or_default();
    options::parse(rest, personality).and_then(|command| match command {
        Command::Help => print(&help::help(&program, personality)),
        Command::Version => print(&help::version(personality)),
        Command::Generate(kind) => generate(&kind)
            .map_err(CliError::usage)
            .and_then(|text| print_bytes(&text)),
        Command::Shuffle(options) => modes::execute(&options, &program),
    })
}

/// Whether knuffle's shuf mode would open `args[0]` (the arguments after
/// the program name) as an input FILE: not with `-e`, `-i` or `-n 0`, and
/// not when the command line is invalid anyway.
pub fn opens_first_argument_as_file(args: &[OsString]) -> bool {
    match options::parse(args, Personality::Knuffle) {
        Ok(Command::Shuffle(options)) => {
            options.head_count != knuffle_records::HeadCount::AtMost(0)
                && matches!(&options.input, options::InputSpec::Files(files)
                    if files.first() == args.first())
        }
        _ => false,
    }
}

fn print(text: &str) -> Result<(), CliError> {
    print_bytes(text.as_bytes())
}

fn print_bytes(text: &[u8]) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text)
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::write(&e))
}
