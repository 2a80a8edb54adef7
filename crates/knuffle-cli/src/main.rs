//! The `knuffle` binary: [`knuffle_cli::run`] with the process's arguments,
//! the process-wide open-file limit, and the SIGPIPE hook, which must live
//! in the binary for the C library to run it before `main`.

use std::ffi::OsString;
use std::process::ExitCode;

/// Records SIGPIPE's inherited disposition before Rust's runtime replaces
/// it (it ignores SIGPIPE before calling `main`): an entry of the ELF
/// `.init_array`, which the C library runs before `main`. Shuf mode and the
/// subcommands then die quietly of SIGPIPE when it was inherited at its
/// default, and report `write error: Broken pipe` (status 1) when the
/// parent ignored it, as GNU tools do. (The alternative, `#![no_main]` with
/// a C `main`, would also lose what Rust's runtime sets up: the stack
/// overflow message, flushing standard output at exit, the status of a
/// panic.) It stays here, in the binary: a static of a library that nothing
/// refers to may be left out by the linker.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_INHERITED_SIGPIPE: extern "C" fn() = record_inherited_sigpipe;

#[cfg(target_os = "linux")]
extern "C" fn record_inherited_sigpipe() {
    knuffle_cli::record_inherited_sigpipe();
}

fn main() -> ExitCode {
    // The binary owns the process: the soft limit on open files raised to
    // the hard one, once (the external shuffle's bucket files, the table's
    // shards and partitions); the libraries only work within it.
    knuffle_io::process::raise_open_file_limit();
    let args: Vec<OsString> = std::env::args_os().collect();
    knuffle_cli::run(&args)
}
