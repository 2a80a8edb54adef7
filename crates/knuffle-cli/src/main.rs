//! The `knuffle` command: a drop-in GNU `shuf` by default, plus the
//! `deal`, `chars`, `trace`, `lab` and `audit` subcommands.
//!
//! Invoked under the name `shuf` (a symlink or copy), it is GNU `shuf`
//! exactly: no subcommands are recognised, so a file named `deal` is a file.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

mod audit;
mod chars;
mod deal;
mod emit;
mod lab;
mod seeding;
mod shuf;
mod trace;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let program = args
        .first()
        .and_then(|arg0| Path::new(arg0).file_name())
        .and_then(|name| name.to_str())
        .unwrap_or("knuffle");
    let subcommand = args.get(1).and_then(|a| a.to_str());
    if let (false, Some(sub)) = (program == "shuf", subcommand) {
        let rest = &args[2..];
        match sub {
            "deal" => return deal::run(rest),
            "chars" => return chars::run(rest),
            "trace" => return trace::run(rest),
            "lab" => return lab::run(rest),
            "audit" => return audit::run(rest),
            _ => {}
        }
    }
    shuf::run(args)
}
