//! What the subcommands share: clap parsing, SIGPIPE as the parent left it,
//! writing a result to standard output (a closed pipe ends the run quietly
//! unless the parent ignored SIGPIPE: the one place that check is made for
//! whole outputs), the `--color` choice and JSON strings.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::failure::CliError;
use crate::typed_flags;

/// Parses `args` (the arguments after the subcommand) with clap. `--help`,
/// `--version` and usage errors come back as a [`CliError`] that clap
/// prints (status 0 for help and version, 2 for a usage error). Every
/// subcommand answers `--version` (and `-h`/`--help`).
pub fn parse<P: clap::Parser>(name: &str, args: &[std::ffi::OsString]) -> Result<P, CliError> {
    parse_with(name, args, |command| command)
}

/// [`parse`] with rules added to the command (`rules`: an engine's
/// conflicts among its options).
pub fn parse_with<P: clap::Parser>(
    name: &str,
    args: &[std::ffi::OsString],
    rules: fn(clap::Command) -> clap::Command,
) -> Result<P, CliError> {
    let argv = std::iter::once(std::ffi::OsString::from(name)).chain(args.iter().cloned());
    let command = rules(P::command())
        .version(env!("CARGO_PKG_VERSION"))
        .disable_version_flag(false);
    let parsed = command
        .clone()
        .try_get_matches_from(argv)
        .and_then(|mut matches| P::from_arg_matches_mut(&mut matches))
        .map_err(|error| typed_flags::as_typed(error, &command, args))?;
    Ok(parsed)
}

/// Whether the parent left SIGPIPE ignored (`trap '' PIPE`, or a program
/// that ignores it and does not restore it for its children), as recorded
/// before Rust's runtime started: Rust ignores SIGPIPE before `main`, so
/// the inherited disposition can only be read earlier (see
/// [`record_inherited_sigpipe`]).
static PARENT_IGNORED_SIGPIPE: AtomicBool = AtomicBool::new(false);

/// Records whether SIGPIPE was inherited ignored. Called once, before
/// `main` and before Rust's runtime sets its own disposition (from the
/// binary's `.init_array` entry, see `main.rs`).
pub fn record_inherited_sigpipe() {
    // SAFETY: sigaction with a null new action only reads the current
    // disposition into the zeroed struct we own.
    let ignored = unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    };
    PARENT_IGNORED_SIGPIPE.store(ignored, Ordering::Relaxed);
}

/// Whether the parent left SIGPIPE ignored: a write to a closed pipe then
/// fails with `EPIPE` and is reported (`write error: Broken pipe`, status
/// 1), as GNU tools report it.
pub fn parent_ignored_sigpipe() -> bool {
    PARENT_IGNORED_SIGPIPE.load(Ordering::Relaxed)
}

/// Gives SIGPIPE back the disposition the process inherited (Rust ignores
/// it): by default, a reader going away (`knuffle big | head -1`) ends the
/// process at once and quietly, as it does GNU tools; when the parent
/// ignored SIGPIPE, it stays ignored and the failed write is reported, as
/// GNU tools report it. No write to a closed pipe ever panics.
pub fn end_quietly_on_closed_pipe() {
    if parent_ignored_sigpipe() {
        return;
    }
    // SAFETY: setting a signal disposition to SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Whether standard output is a terminal, a pipe or a socket: someone may
/// be reading as the output is made, so streaming commands flush after each
/// line there (and buffer freely into a file).
pub fn stdout_is_interactive_or_pipe() -> bool {
    if io::stdout().is_terminal() {
        return true;
    }
    // SAFETY: fstat writes into the zeroed struct we own; fd 1 may be closed,
    // which is an error return, not undefined behaviour.
    let mut status: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(1, &mut status) } != 0 {
        return false;
    }
    matches!(
        status.st_mode & libc::S_IFMT,
        libc::S_IFIFO | libc::S_IFSOCK
    )
}

/// Writes `text` to standard output and flushes. A closed pipe (`| head`)
/// ends the run quietly with success, unless the parent ignored SIGPIPE
/// (then it is a failure, as for GNU tools); any other write error is a
/// failure (status 1).
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe || parent_ignored_sigpipe() => {
            Err(CliError::write(&err))
        }
        _ => Ok(()),
    }
}

/// The `--color WHEN` choice of `deal` and `trace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// When standard output is a terminal (and NO_COLOR is unset).
    Auto,
    /// Always (ANSI escapes).
    Always,
    /// Never.
    Never,
}

impl ColorWhen {
    /// Whether to colour. `auto` colours when standard output is a
    /// terminal, NO_COLOR is unset or empty (<https://no-color.org>), and
    /// TERM is not `dumb`.
    pub fn enabled(self) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |term| term != "dumb")
            }
        }
    }
}

/// `text` as a JSON string literal (RFC 8259): quotes, backslashes and
/// control characters escaped, everything else as UTF-8.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of strings on one line: `["a", "b"]`.
pub fn json_string_array<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|s| json_string(s.as_ref())).collect();
    format!("[{}]", inner.join(", "))
}

/// The memory limit of a subcommand's `--memory SIZE` (`sort -S` sizes, at
/// least 1M; a usage error otherwise), or the default budget without it.
pub fn memory_limit(text: Option<&str>) -> Result<u64, CliError> {
    let Some(text) = text else {
        return Ok(knuffle_io::default_limit());
    };
    knuffle_io::parse_limit(text).map_err(|error| match error {
        knuffle_io::LimitError::Invalid(message) => CliError::invalid(message),
        knuffle_io::LimitError::TooSmall => {
            CliError::invalid(format!("invalid --memory size: '{text}' (at least 1M)"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_what_rfc_8259_requires() {
        assert_eq!(json_string("A♠"), "\"A♠\"");
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(json_string_array(&["x", "y"]), "[\"x\", \"y\"]");
        assert_eq!(json_string_array::<&str>(&[]), "[]");
    }
}
