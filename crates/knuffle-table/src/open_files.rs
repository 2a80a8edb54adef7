//! The open-file limit, when a job writes many files at once (shards,
//! partitions): checked, never changed here (the programs raise it,
//! `knuffle_io::process`).

use crate::error::Error;

/// Checks that `shards` open shards fit the soft limit on open files, or
/// says why they cannot be written.
pub(crate) fn check_open_file_limit(shards: u64) -> Result<(), Error> {
    let needed = shards + 64;
    match knuffle_io::process::open_file_limit() {
        Some(limit) if limit < needed => Err(Error::invalid(format!(
            "{shards} shards need {needed} open files, but the limit is {limit} (raise it with \
             ulimit -n, or write fewer shards)"
        ))),
        _ => Ok(()),
    }
}
