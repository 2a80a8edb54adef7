//! The report of a mapped input that shrank: the record library reads a
//! single regular FILE through a map of the page cache
//! (`knuffle_records::Options::map_input`), and a page past the file's end
//! (another process truncated it meanwhile) or a page the disk cannot
//! deliver raises `SIGBUS`. The handler installed here turns that into a
//! message naming the file and exit status 1, instead of the shell's "Bus
//! error". An existing `-o FILE` keeps its content: it is written to a
//! temporary file that is only renamed over FILE when the run succeeds (a
//! nameless one, which vanishes with the process; on a file system without
//! nameless files, a `.knuffle-*` file is left next to FILE). Where FILE is
//! written in place (a device, a file of another owner or with other hard
//! links, as `knuffle_records::output` explains), what was written stays,
//! as after any failed write.

use std::ffi::OsStr;
use std::sync::OnceLock;

use super::quote::quotef;

/// The whole message, written by the handler with one `write(2)`.
static MESSAGE: OnceLock<Box<[u8]>> = OnceLock::new();

/// Reports `SIGBUS` as a read error of the FILE `name` (`None`: standard
/// input) from now on.
pub fn report_sigbus_for(program: &str, name: Option<&OsStr>) {
    let what = name.map_or_else(|| "standard input".to_string(), quotef);
    let text = format!(
        "{program}: {what}: read error: the file shrank or could not be read while it was being shuffled\n"
    );
    if MESSAGE.set(text.into_bytes().into_boxed_slice()).is_err() {
        return; // installed already
    }
    // SAFETY: a zeroed sigaction with a handler that only calls
    // async-signal-safe functions (write, _exit) and reads a message set
    // before it is installed.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

extern "C" fn on_sigbus(_: libc::c_int) {
    if let Some(message) = MESSAGE.get() {
        // SAFETY: write and _exit are async-signal-safe; the message lives
        // for the whole process.
        unsafe {
            libc::write(2, message.as_ptr().cast(), message.len());
        }
    }
    // SAFETY: as above.
    unsafe { libc::_exit(1) }
}
