//! The record library's errors in GNU shuf's words.

use knuffle_records::Error;

use super::errors::{ShufError, os_error_text, quote};

impl From<Error> for ShufError {
    fn from(error: Error) -> ShufError {
        match error {
            Error::File { name, error } => ShufError::file(&name, &error),
            Error::Read(error) => ShufError::read(&error),
            Error::Write(error) => ShufError::write(&error),
            Error::OutOfMemory => ShufError::memory(),
            Error::RandomSourceEnded { name } => {
                ShufError::plain(format!("{}: end of file", quote(&name)))
            }
            Error::RandomSourceRead { name, error } => ShufError::plain(format!(
                "{}: read error: {}",
                quote(&name),
                os_error_text(&error)
            )),
            Error::NoRecordsToRepeat => ShufError::plain("no lines to repeat"),
            other => ShufError::plain(other.to_string()),
        }
    }
}
