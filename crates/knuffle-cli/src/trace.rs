//! `knuffle trace` (being built).

use std::ffi::OsString;
use std::process::ExitCode;

pub fn run(_args: &[OsString]) -> ExitCode {
    eprintln!("knuffle trace: not available in this build yet");
    ExitCode::from(2)
}
