//! The `knuffle` command: a drop-in GNU `shuf` by default, plus the
//! `deal`, `chars`, `trace`, `lab`, `audit`, `draw` and `verify` subcommands.
//!
//! Invoked under the name `shuf` (a symlink or copy), it is GNU `shuf`
//! exactly: no subcommands are recognised, so a file named `deal` is a file.
//! Under any other name, the first argument may name a subcommand (see
//! [`subcommands`] for the rule that tells one from a FILE).
//!
//! Layers, each using only those below it: `main` (dispatch, and the one
//! place a failure is printed and becomes the exit status), the modes
//! (`shuf`, `deal`, `chars`, `trace`, `lab`, `audit`, `draw`, `verify`,
//! `generate`), what they share (`definition`, `subcommands`, `seeding`,
//! `seed_entropy`, `draw_io`, `emit`), and [`failure`]: the one error type,
//! [`failure::CliError`], that every mode returns.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

mod audit;
mod chars;
mod deal;
mod definition;
mod draw;
mod draw_io;
mod emit;
mod failure;
mod generate;
mod lab;
mod sample;
mod seed_entropy;
mod seeding;
mod shuf;
mod split;
mod subcommands;
mod trace;
mod verify;

/// Records SIGPIPE's inherited disposition before Rust's runtime replaces
/// it (it ignores SIGPIPE before calling `main`): an entry of the ELF
/// `.init_array`, which the C library runs before `main`. Shuf mode and the
/// subcommands then die quietly of SIGPIPE when it was inherited at its
/// default, and report `write error: Broken pipe` (status 1) when the
/// parent ignored it, as GNU tools do ([`emit::end_quietly_on_closed_pipe`]).
/// (The alternative, `#![no_main]` with a C `main`, would also lose what
/// Rust's runtime sets up: the stack overflow message, flushing standard
/// output at exit, the status of a panic.)
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_INHERITED_SIGPIPE: extern "C" fn() = record_inherited_sigpipe;

#[cfg(target_os = "linux")]
extern "C" fn record_inherited_sigpipe() {
    emit::record_inherited_sigpipe();
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let program = args
        .first()
        .and_then(|arg0| Path::new(arg0).file_name())
        .and_then(|name| name.to_str())
        .unwrap_or("knuffle")
        .to_string();
    if program == "shuf" {
        return run_shuf(&args);
    }
    let first = args.get(1).cloned();
    if let Some(sub) = first.as_ref().and_then(|a| a.to_str()) {
        let rest = &args[2..];
        match sub {
            "help" => return help(&args, rest),
            name => {
                if let Some(code) = run_subcommand(name, rest) {
                    return code;
                }
            }
        }
    }
    let near_miss = first
        .as_deref()
        .and_then(subcommands::near_miss)
        .filter(|_| shuf::opens_first_argument_as_file(&args[1..]));
    if let Some(meant) = near_miss {
        let first = first.unwrap_or_default();
        return usage_error(
            &program,
            &format!(
                "'{}' is not a subcommand or an existing file; did you mean '{meant}'?",
                first.to_string_lossy()
            ),
        );
    }
    run_shuf(&args)
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
    let result = match name {
        "deal" => deal::run(rest),
        "chars" => chars::run(rest),
        "trace" => trace::run(rest),
        "lab" => lab::run(rest),
        "audit" => audit::run(rest),
        "draw" => draw::run(rest),
        "verify" => verify::run(rest),
        "sample" => sample::run(rest),
        "split" => split::run(rest),
        _ => return None,
    };
    let command = format!("knuffle {name}");
    Some(result.unwrap_or_else(|error| error.report(command.as_bytes(), &command)))
}

/// `knuffle help` (the same as `knuffle --help`) and `knuffle help SUB`
/// (the same as `knuffle SUB --help`).
fn help(args: &[OsString], rest: &[OsString]) -> ExitCode {
    let help_flag = OsString::from("--help");
    let Some(sub) = rest.first() else {
        return run_shuf(&[args[0].clone(), help_flag]);
    };
    let name = sub.to_string_lossy();
    if name == "help" {
        return run_shuf(&[args[0].clone(), help_flag]);
    }
    if let Some(code) = run_subcommand(&name, &[help_flag]) {
        return code;
    }
    let hint = match subcommands::closest(&name) {
        Some(meant) => format!("; did you mean '{meant}'?"),
        None => format!(" (one of {})", definition::SUBCOMMANDS.join(", ")),
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
