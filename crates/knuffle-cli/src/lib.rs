//! The `knuffle` command as a library: the binary (`main.rs`) is [`run`]
//! and the SIGPIPE hook; the fuzz targets and benchmarks link this crate
//! like any other.
//!
//! Workspace layer 4 (cli/python -> table -> records/sample/lab/draw ->
//! stats/io -> library): it depends on the table library, the record and
//! sampling engines, knuffle-io, the lab and the draws, and nothing below depends on it (checked by `crates/knuffle/tests/architecture.rs`).
//!
//! knuffle is a drop-in GNU `shuf` by default, plus the subcommands of the
//! registry ([`subcommands::SUBCOMMANDS`]). Invoked under the name `shuf`
//! (a symlink or copy), it is GNU `shuf` exactly: no subcommands are
//! recognised, so a file named `deal` is a file. Under any other name, the
//! first argument may name a subcommand (see [`subcommands`] for the rule
//! that tells one from a FILE).
//!
//! Two tables define the command line, as ripgrep's `defs.rs` does: the
//! registry of subcommands (`subcommands`: dispatch, `help`, near misses,
//! man page, completions) and the table of shuf's flags (`shuf::flags`:
//! the GNU-exact parser, `--help`, man page, completions).
//!
//! Layers, each using only those below it: this file (dispatch, and the one
//! place a failure is printed and becomes the exit status) and the
//! registry; `definition` and `generate` (the man page and completions);
//! the modes (`shuf`, and each subcommand's module); what they share
//! (`seeding`, `seed_entropy`, `draw_io`, `emit` and its `typed_flags`); and [`failure`]: the one
//! error type, [`failure::CliError`], that every mode returns.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

mod audit;
mod audit_order;
mod chars;
mod deal;
mod definition;
mod draw;
mod draw_io;
mod emit;
pub mod failure;
mod generate;
mod lab;
mod order;
mod sample;
mod seed_entropy;
mod seeding;
pub mod shuf;
mod split;
pub mod subcommands;
mod table;
mod table_jobs;
mod trace;
mod typed_flags;
mod verify;

/// Records whether SIGPIPE was inherited ignored. The binary calls it from
/// its ELF `.init_array` entry, before Rust's runtime replaces the
/// disposition (see `main.rs`).
pub fn record_inherited_sigpipe() {
    emit::record_inherited_sigpipe();
}

/// Runs the command line `args` (`args[0]` is the program name as
/// invoked) and gives the exit status; every failure is printed here.
pub fn run(args: &[OsString]) -> ExitCode {
    let program = args
        .first()
        .and_then(|arg0| Path::new(arg0).file_name())
        .and_then(|name| name.to_str())
        .unwrap_or("knuffle")
        .to_string();
    if program == "shuf" {
        return run_shuf(args);
    }
    let first = args.get(1);
    if let Some(name) = first.and_then(|a| a.to_str()) {
        if name == subcommands::HELP {
            return help(args, &args[2..]);
        }
        if let Some(code) = run_subcommand(name, &args[2..]) {
            return code;
        }
    }
    let near_miss = first
        .and_then(|first| subcommands::near_miss(first))
        .filter(|_| shuf::opens_first_argument_as_file(&args[1..]));
    match (near_miss, first) {
        (Some(meant), Some(first)) => usage_error(
            &program,
            &format!(
                "'{}' is not a subcommand or an existing file; did you mean '{meant}'?",
                first.to_string_lossy()
            ),
        ),
        _ => run_shuf(args),
    }
}

/// Shuf mode with the whole argument list; a failure is printed as
/// `ARGV0: MESSAGE`, as GNU prints it.
fn run_shuf(args: &[OsString]) -> ExitCode {
    match shuf::run(args, &generate::render) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let argv0 = args
                .first()
                .map_or(&b"knuffle"[..], |a| a.as_encoded_bytes());
            error.report(argv0, &String::from_utf8_lossy(argv0))
        }
    }
}

/// Runs subcommand `name` with the arguments after it; `None` when `name`
/// is no subcommand. A failure is printed as `knuffle NAME: MESSAGE`.
fn run_subcommand(name: &str, rest: &[OsString]) -> Option<ExitCode> {
    let sub = subcommands::find(name)?;
    let command = format!("knuffle {name}");
    Some((sub.run)(rest).unwrap_or_else(|error| error.report(command.as_bytes(), &command)))
}

/// `knuffle help` (the same as `knuffle --help`) and `knuffle help SUB`
/// (the same as `knuffle SUB --help`).
fn help(args: &[OsString], rest: &[OsString]) -> ExitCode {
    let help_flag = OsString::from("--help");
    let name = rest.first().map(|sub| sub.to_string_lossy());
    let name = match name.as_deref() {
        None | Some(subcommands::HELP) => return run_shuf(&[args[0].clone(), help_flag]),
        Some(name) => name,
    };
    if let Some(code) = run_subcommand(name, &[help_flag]) {
        return code;
    }
    let hint = match subcommands::closest(name) {
        Some(meant) => format!("; did you mean '{meant}'?"),
        None => {
            let names: Vec<&str> = subcommands::SUBCOMMANDS.iter().map(|s| s.name).collect();
            format!(" (one of {})", names.join(", "))
        }
    };
    usage_error("knuffle", &format!("no subcommand '{name}'{hint}"))
}

/// A usage error of the command line as a whole: exit status 2, as the
/// subcommands' usage errors.
fn usage_error(program: &str, message: &str) -> ExitCode {
    failure::CliError::usage(message)
        .with_status(failure::USAGE)
        .report(program.as_bytes(), program)
}
