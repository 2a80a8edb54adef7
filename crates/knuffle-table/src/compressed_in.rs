//! Compressed inputs, told by their first bytes whatever their names
//! (`knuffle_io::compressed`): a CSV, TSV or JSON Lines file
//! compressed with gzip or zstd is read decompressed, as it streams (no
//! size, offset or seek of its text is needed: those readers go from the
//! start to the end, and a JSON Lines file read twice, for its schema
//! and then its rows, is decompressed twice); bzip2, xz and zip are
//! refused naming the command that decompresses them, and so is a
//! compressed Parquet or Arrow file (their data is compressed inside:
//! they are read only as they are).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use knuffle_io::compressed::{self, Decompressed};

use crate::error::Error;
use crate::format::Format;

/// Bytes the text of a CSV or JSON Lines file is read in.
const TEXT_BUFFER: usize = 1 << 20;

/// The text of the CSV, TSV or JSON Lines file `file` (at `path`),
/// decompressed when it is gzip or zstd.
pub(crate) fn text(path: &Path, file: File) -> Result<Decompressed<File>, Error> {
    let input = Decompressed::new(file, TEXT_BUFFER).map_err(|e| Error::io_at(path, &e))?;
    match input.compressed() {
        Some(format) if !format.is_read() => Err(Error::invalid(format!(
            "{} is {}-compressed; knuffle reads gzip and zstd: decompress it first (`{} FILE`)",
            path.display(),
            format.name(),
            format.tool()
        ))),
        _ => Ok(input),
    }
}

/// Refuses a Parquet or Arrow file (`format`) that is compressed as a
/// whole (a text format is read by [`text`]). A pipe (which cannot be read
/// at an offset) is left to its reader.
pub(crate) fn refuse_whole(path: &Path, file: &File, format: Format) -> Result<(), Error> {
    if matches!(format, Format::Csv(_) | Format::JsonLines) {
        return Ok(());
    }
    let mut head = [0u8; 10];
    let Ok(read) = file.read_at(&mut head, 0) else {
        return Ok(());
    };
    let Some(found) = compressed::recognise(&head[..read]) else {
        return Ok(());
    };
    Err(Error::invalid(format!(
        "{} is {}-compressed; a {format} file is compressed inside and read only as it \
         is: decompress it first (`{} FILE`)",
        path.display(),
        found.name(),
        found.tool()
    )))
}
