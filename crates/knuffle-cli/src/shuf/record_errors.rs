//! The record library's errors in GNU shuf's words.

use knuffle_records::Error;

use super::errors::{CliError, quote};
use crate::failure::os_error_text;

impl From<Error> for CliError {
    fn from(error: Error) -> CliError {
        match error {
            Error::File { name, error } => CliError::file(&name, &error),
            Error::Read(error) => CliError::read(&error),
            Error::Write(error) => CliError::write(&error),
            Error::OutOfMemory => CliError::memory(),
            Error::RandomSourceEnded { name } => {
                CliError::plain(format!("{}: end of file", quote(&name)))
            }
            Error::RandomSourceRead { name, error } => CliError::plain(format!(
                "{}: read error: {}",
                quote(&name),
                os_error_text(&error)
            )),
            Error::NoRecordsToRepeat => CliError::plain("no lines to repeat"),
            other => CliError::plain(other.to_string()),
        }
    }
}
