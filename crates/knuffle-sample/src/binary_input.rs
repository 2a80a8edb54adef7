//! Inputs that are not records of text. `sample` and `split` read records
//! (lines, delimited or CSV records); a Parquet or Arrow table handed to
//! them would be cut at its newline bytes and written back as parts that
//! no reader can open, with exit status 0. Such an input is recognised by
//! its first bytes (each format's magic number, from its specification)
//! and refused as a usage error naming what reads it.
//!
//! A gzip or zstd input is read decompressed (`crate::compressed`), and
//! these are its decompressed first bytes; a compression that is not read
//! (bzip2, xz, zip), or one inside another, is refused naming the command
//! that decompresses it.
//!
//! A text file can start with the letters `PAR1` or `ARROW1`; the table
//! formats are therefore recognised only when a NUL byte follows in the
//! first bytes read (their metadata is binary), which no text file has.

use super::error::SampleError;
use knuffle_io::compressed::{self, Compressed};

/// What an input's first bytes say it is, when it is not text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binary {
    Parquet,
    Arrow,
    Compressed(Compressed),
}

fn recognise(head: &[u8]) -> Option<Binary> {
    let has_nul = || head.contains(&0);
    if let Some(format) = compressed::recognise(head) {
        Some(Binary::Compressed(format))
    } else if head.starts_with(b"PAR1") && has_nul() {
        Some(Binary::Parquet)
    } else if head.starts_with(b"ARROW1") && has_nul() {
        Some(Binary::Arrow)
    } else {
        None
    }
}

/// Whether `head`, a file's first bytes, are those of a Parquet or Arrow
/// IPC table (as [`refuse_binary`] tells them).
pub fn is_binary_table(head: &[u8]) -> bool {
    matches!(recognise(head), Some(Binary::Parquet | Binary::Arrow))
}

/// Refuses the input `name` (as messages quote it) when its first bytes
/// `head` (decompressed) are those of a table or a compressed file.
pub(crate) fn refuse_binary(name: &str, head: &[u8]) -> Result<(), SampleError> {
    let what = match recognise(head) {
        None => return Ok(()),
        Some(Binary::Parquet) => "a Parquet table",
        Some(Binary::Arrow) => "an Arrow IPC (Feather) table",
        Some(Binary::Compressed(format)) => {
            return Err(SampleError::invalid(format!(
                "{name} is {}-compressed, not records of text (knuffle reads gzip and zstd): \
                 decompress it first (`{} FILE` writes its text)",
                format.name(),
                format.tool()
            )));
        }
    };
    Err(SampleError::invalid(format!(
        "{name} is {what}, not records of text: `knuffle sample` and `knuffle split` take \
         tables given as files or directories (`-o` a table file), and `knuffle table` \
         shuffles them"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_compressed_files_are_recognised() {
        assert_eq!(recognise(b"PAR1\x15\x00\x15"), Some(Binary::Parquet));
        assert_eq!(recognise(b"ARROW1\x00\x00\xff\xff"), Some(Binary::Arrow));
        assert_eq!(
            recognise(b"BZh91AY&SY\x01"),
            Some(Binary::Compressed(Compressed::Bzip2))
        );
        assert_eq!(
            recognise(b"\xfd7zXZ\x00\x00"),
            Some(Binary::Compressed(Compressed::Xz))
        );
    }

    #[test]
    fn text_that_starts_like_a_magic_number_is_text() {
        for text in [
            &b"PAR1 is the first paragraph\nPAR2\n"[..],
            b"ARROW1,ARROW2\n1,2\n",
            b"BZh9 is not bzip2\n",
            b"PK and more\n",
            b"",
            b"id,name\n1,a\n",
        ] {
            assert_eq!(recognise(text), None, "{:?}", String::from_utf8_lossy(text));
            assert!(refuse_binary("'t'", text).is_ok());
        }
    }

    #[test]
    fn the_message_names_the_file_and_what_reads_it() {
        let parquet = refuse_binary("'part-0.parquet'", b"PAR1\x15\x00").unwrap_err();
        assert!(
            parquet
                .message()
                .contains("'part-0.parquet' is a Parquet table")
        );
        assert!(parquet.message().contains("knuffle table"));
        let xz = refuse_binary("standard input", b"\xfd7zXZ\x00\x00").unwrap_err();
        assert!(xz.message().starts_with("standard input is xz-compressed"));
        assert!(xz.message().contains("xz -dc"));
    }
}
