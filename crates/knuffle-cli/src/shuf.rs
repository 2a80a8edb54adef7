//! Default mode: GNU `shuf` compatible (being built).

use std::ffi::OsString;
use std::process::ExitCode;

pub fn run(_args: Vec<OsString>) -> ExitCode {
    eprintln!("knuffle: shuf mode not available in this build yet");
    ExitCode::from(2)
}
