//! Default mode: a drop-in GNU `shuf`, much faster.
//!
//! Layout (one concept per file):
//!
//! | file | what it does |
//! | --- | --- |
//! | `options.rs` | the option table and a getopt_long-compatible parser (GNU's messages) |
//! | `memory_option.rs` | `--memory SIZE` checked while parsing |
//! | `errors.rs` | [`ShufError`](errors::ShufError): GNU's message and exit status |
//! | `quote.rs` | gnulib quotearg's `quote` and `quotef` (shell-escape) styles, byte for byte |
//! | `help.rs` | `--help`, `--version` |
//! | `randomness.rs` | knuffle's generator or a GNU random source behind one interface |
//! | `gnu_random.rs` | GNU's `randint`/`randperm` re-implemented for `--random-source` |
//! | `input.rs` | opening inputs; reading them into memory (one regular file: both cores, huge pages, indexed on the way) |
//! | `line_index.rs` | line starts on both cores via `crate::scan` (`u32` offsets under 4 GiB); copying a line out by one 128-byte window |
//! | `stream.rs` | lines of a stream in constant memory (take or skip) |
//! | `sample.rs` | `-n` on a stream: reservoir sampling (Algorithm L, or GNU's) |
//! | `engine.rs` | permute-and-write and repeat-and-write, shared by every input kind |
//! | `output.rs` | late-opened `-o FILE` (temp file + rename), ordered parallel block rendering |
//! | `numbers.rs` | fast decimal formatting for `-i` |
//! | `modes.rs` | the three input kinds (files, `-e`, `-i`) wired to the engine |
//! | `external_mode.rs` | routing inputs larger than `--memory` to the external shuffle |
//!
//! Flow: [`run`] parses the arguments into [`Options`](options::Options),
//! then [`modes::execute`] reads the input, chooses (all randomness through
//! [`Randomness`](randomness::Randomness)), opens the output last, writes.
//! The in-memory file path is [`modes::shuffle_files_in_memory`]: inputs,
//! options, randomness and output in, nothing else; the external (larger
//! than memory) path sits beside it (`external_mode::route`).

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

mod engine;
mod errors;
mod external_mode;
mod gnu_random;
mod help;
mod input;
mod line_index;
mod memory_option;
mod modes;
mod numbers;
mod options;
mod output;
mod quote;
mod randomness;
mod sample;
mod stream;

use options::{Command, Personality};

#[cfg(test)]
pub use options::option_names;

/// Runs shuf mode with the full argument list (`args[0]` is the program
/// name as invoked; the name `shuf` selects exact GNU behaviour).
///
/// `generate` renders `--generate KIND` (the man page and completions are
/// built above this module, from the whole command line's definition).
pub fn run(
    args: Vec<OsString>,
    generate: &dyn Fn(&std::ffi::OsStr) -> Result<Vec<u8>, String>,
) -> ExitCode {
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
        Command::Generate(kind) => generate(&kind)
            .map_err(errors::ShufError::usage)
            .and_then(|text| print_bytes(&text)),
        Command::Shuffle(options) => modes::execute(&options, &program),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let mut stderr = std::io::stderr().lock();
            let name = args
                .first()
                .map_or(&b"knuffle"[..], |a| a.as_encoded_bytes());
            let _ = stderr.write_all(name);
            let _ = stderr.write_all(b": ");
            let _ = stderr.write_all(error.message_bytes());
            let _ = stderr.write_all(b"\n");
            if error.try_help {
                let _ = writeln!(stderr, "Try '{program} --help' for more information.");
            }
            ExitCode::from(1)
        }
    }
}

/// Whether knuffle's shuf mode would open `args[0]` (the arguments after
/// the program name) as an input FILE: not with `-e`, `-i` or `-n 0`, and
/// not when the command line is invalid anyway.
pub fn opens_first_argument_as_file(args: &[OsString]) -> bool {
    match options::parse(args, Personality::Knuffle) {
        Ok(Command::Shuffle(options)) => {
            options.head_count > 0
                && matches!(&options.input, options::InputSpec::Files(files)
                    if files.first() == args.first())
        }
        _ => false,
    }
}

fn print(text: &str) -> Result<(), errors::ShufError> {
    print_bytes(text.as_bytes())
}

fn print_bytes(text: &[u8]) -> Result<(), errors::ShufError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text)
        .and_then(|()| stdout.flush())
        .map_err(|e| errors::ShufError::write(&e))
}
