//! The sampling engine's errors as the command line reports them: invalid
//! options exit with status 2, everything else (data, I/O, memory) with 1;
//! the message is the engine's.

use knuffle_sample::{SampleError, SampleErrorKind};

use crate::failure::CliError;

/// `error` as a [`CliError`].
pub(crate) fn cli_error(error: SampleError) -> CliError {
    match error.kind() {
        SampleErrorKind::Invalid => CliError::invalid(error.message()),
        _ => CliError::plain(error.message()),
    }
}
