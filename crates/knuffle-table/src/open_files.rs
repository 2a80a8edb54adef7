//! The open-file limit: the soft limit raised towards the hard one when
//! a job writes many files at once (shards, partitions).

use crate::error::Error;

/// Raises the soft limit of open files to what `shards` open shards need
/// (up to the hard limit), or says why they cannot be written.
pub(crate) fn raise_open_file_limit(shards: u64) -> Result<(), Error> {
    let needed = shards + 64;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Ok(());
    }
    if limit.rlim_cur >= needed {
        return Ok(());
    }
    if limit.rlim_max >= needed {
        let raised = libc::rlimit {
            rlim_cur: needed,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return Ok(());
        }
    }
    Err(Error::invalid(format!(
        "{shards} shards need {needed} open files, but the limit is {} (raise it with ulimit -n, \
         or write fewer shards)",
        limit.rlim_max
    )))
}
