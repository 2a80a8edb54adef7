//! The report of a mapped input that shrank: the record library reads a
//! single regular FILE through a map of the page cache
//! (`knuffle_records::Options::map_input`), and a page past the file's end
//! (another process truncated it meanwhile) or a page the disk cannot
//! deliver raises `SIGBUS`. The handler installed here turns that into a
//! message naming the file and exit status 1, instead of the shell's "Bus
//! error". A shrink that ends inside a page raises nothing (the rest of
//! that page reads as zeros): the record library checks the file's size
//! before it completes the output and reports the same error. A file
//! rewritten in place while it is shuffled gives its new bytes where they
//! are read, as plain reads would.
//!
//! An existing `-o FILE` keeps its content: it is written to a temporary
//! file that is only renamed over FILE when the run succeeds (a nameless
//! one, which vanishes with the process; on a file system without nameless
//! files, a `.knuffle-*` file is left next to FILE). Where FILE is written
//! in place (the cases `knuffle_records::output` lists), what was written
//! stays, as after any failed write.

use std::ffi::OsStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use knuffle_records::in_mapped_input;

use super::errors::CliError;
use super::quote::quotef;

/// The whole message, written by the handler with one `write(2)`.
static MESSAGE: OnceLock<Box<[u8]>> = OnceLock::new();
/// Set by the first fault reported, so that two threads faulting at once
/// print the message once.
static REPORTED: AtomicBool = AtomicBool::new(false);

/// The error for the FILE `name` (`None`: standard input) that shrank.
pub fn shrank(name: Option<&OsStr>) -> CliError {
    CliError::plain(shrank_text(name))
}

/// "FILE: read error: ...", in the record library's words for
/// [`knuffle_records::Error::InputShrank`].
fn shrank_text(name: Option<&OsStr>) -> String {
    let what = name.map_or_else(|| "standard input".to_string(), quotef);
    format!("{what}: {}", knuffle_records::Error::InputShrank)
}

/// Reports `SIGBUS` in the mapped input as a read error of the FILE `name`
/// (`None`: standard input) from now on, in the words of [`shrank`]. Any
/// other `SIGBUS` (one sent by another process, or a fault outside the
/// input's map) keeps the default action: the process dies of it, as GNU
/// shuf would.
pub fn report_sigbus_for(program: &str, name: Option<&OsStr>) {
    let text = format!("{program}: {}\n", shrank_text(name));
    if MESSAGE.set(text.into_bytes().into_boxed_slice()).is_err() {
        return; // installed already
    }
    let handler = on_sigbus as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
        as libc::sighandler_t;
    // The handler only calls async-signal-safe functions (atomic loads,
    // write, _exit, sigaction, raise) and reads a message set before it is
    // installed.
    set_action(libc::SIGBUS, handler, libc::SA_SIGINFO);
}

/// Sets the action of `signal`: `handler` (a function, or `SIG_DFL`) with
/// `flags` and nothing blocked meanwhile. Async-signal-safe (sigemptyset
/// and sigaction only).
fn set_action(signal: libc::c_int, handler: libc::sighandler_t, flags: libc::c_int) {
    // SAFETY: a zeroed sigaction is valid; its fields are then set to a
    // handler of the kind `flags` announce and an empty mask.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler;
        action.sa_flags = flags;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO; a fault's
    // si_code is positive (a signal sent by a process has SI_USER or
    // another code of at most 0), and only then is si_addr the address.
    let in_input = unsafe {
        !info.is_null() && (*info).si_code > 0 && in_mapped_input((*info).si_addr() as usize)
    };
    if in_input {
        if !REPORTED.swap(true, Ordering::SeqCst)
            && let Some(message) = MESSAGE.get()
        {
            // SAFETY: write is async-signal-safe; the message lives for
            // the whole process.
            unsafe {
                libc::write(2, message.as_ptr().cast(), message.len());
            }
        }
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(1) }
    }
    // Not ours: the default action, raised again for when the handler
    // returns (a fault would also repeat at its instruction).
    set_action(signal, libc::SIG_DFL, 0);
    // SAFETY: raise is async-signal-safe.
    unsafe { libc::raise(signal) };
}
