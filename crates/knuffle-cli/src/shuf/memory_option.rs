//! `--memory SIZE`: parsed by the record library's `parse_size`, refused
//! with GNU-style messages.

use std::ffi::OsStr;

use knuffle_records::{MIN_LIMIT, parse_size};

use super::errors::{ShufError, quote};

/// Parses `--memory SIZE` (GNU-style message on error).
pub fn parse_memory(value: &OsStr) -> Result<u64, ShufError> {
    let text = value
        .to_str()
        .ok_or_else(|| ShufError::plain(format!("invalid memory size: {}", quote(value))))?;
    let size = parse_size(text)
        .map_err(|_| ShufError::plain(format!("invalid memory size: {}", quote(value))))?;
    if size < MIN_LIMIT {
        return Err(ShufError::plain(format!(
            "memory size {} is too small: at least 1M is needed",
            quote(value)
        )));
    }
    Ok(size)
}
