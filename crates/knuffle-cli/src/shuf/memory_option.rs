//! `--memory SIZE`: the option's value checked as the option parser meets
//! it (so the first bad option is the one reported), with GNU-style quoting.

use std::ffi::OsStr;

use knuffle_io::{LimitError, parse_limit};

use super::errors::{CliError, quote};

/// Parses `--memory SIZE` (GNU-style message on error).
pub fn parse_memory(value: &OsStr) -> Result<u64, CliError> {
    let invalid = || CliError::plain(format!("invalid memory size: {}", quote(value)));
    let text = value.to_str().ok_or_else(invalid)?;
    parse_limit(text).map_err(|error| match error {
        LimitError::Invalid(_) => invalid(),
        LimitError::TooSmall => CliError::plain(format!(
            "memory size {} is too small: at least 1M is needed",
            quote(value)
        )),
    })
}
