//! Inputs that are not records of text. `sample` and `split` read records
//! (lines, delimited or CSV records); a Parquet or Arrow table or a
//! compressed file handed to them would be cut at its newline bytes and
//! written back as parts that no reader can open, with exit status 0. Such
//! an input is recognised by its first bytes (each format's magic number,
//! from its specification) and refused as a usage error naming what reads
//! it.
//!
//! A text file can start with the letters `PAR1` or `ARROW1`; the table
//! formats are therefore recognised only when a NUL byte follows in the
//! first bytes read (their metadata is binary), which no text file has.
//! The compression formats start with bytes that are not text (gzip
//! `1f 8b`, zstd `28 b5 2f fd`, xz `fd 37 7a 58 5a 00`, zip `PK 03 04`;
//! bzip2 `BZh` with a block size digit and the block magic `1AY&SY`).

use super::error::SampleError;

/// What an input's first bytes say it is, when it is not text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binary {
    Parquet,
    Arrow,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
    Zip,
}

fn recognise(head: &[u8]) -> Option<Binary> {
    let has_nul = || head.contains(&0);
    if head.starts_with(b"\x1f\x8b") {
        Some(Binary::Gzip)
    } else if head.starts_with(b"\x28\xb5\x2f\xfd") {
        Some(Binary::Zstd)
    } else if head.starts_with(b"\xfd7zXZ\x00") {
        Some(Binary::Xz)
    } else if head.starts_with(b"PK\x03\x04") {
        Some(Binary::Zip)
    } else if head.len() >= 10
        && head.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&head[3])
        && &head[4..10] == b"1AY&SY"
    {
        Some(Binary::Bzip2)
    } else if head.starts_with(b"PAR1") && has_nul() {
        Some(Binary::Parquet)
    } else if head.starts_with(b"ARROW1") && has_nul() {
        Some(Binary::Arrow)
    } else {
        None
    }
}

/// Refuses the input `name` (as messages quote it) when its first bytes
/// `head` are those of a table or a compressed file.
pub(crate) fn refuse_binary(name: &str, head: &[u8]) -> Result<(), SampleError> {
    let what = match recognise(head) {
        None => return Ok(()),
        Some(Binary::Parquet) => "a Parquet table",
        Some(Binary::Arrow) => "an Arrow IPC (Feather) table",
        Some(kind) => {
            let (format, tool) = match kind {
                Binary::Gzip => ("gzip", "gzip -dc"),
                Binary::Zstd => ("zstd", "zstd -dc"),
                Binary::Bzip2 => ("bzip2", "bzip2 -dc"),
                Binary::Xz => ("xz", "xz -dc"),
                _ => ("zip", "unzip -p"),
            };
            return Err(SampleError::invalid(format!(
                "{name} is {format}-compressed, not records of text: decompress it first \
                 (`{tool} FILE` writes its text)"
            )));
        }
    };
    Err(SampleError::invalid(format!(
        "{name} is {what}, not records of text: `knuffle table` reads tables (`-n` samples \
         rows, `--shards` splits them)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_compressed_files_are_recognised() {
        assert_eq!(recognise(b"PAR1\x15\x00\x15"), Some(Binary::Parquet));
        assert_eq!(recognise(b"ARROW1\x00\x00\xff\xff"), Some(Binary::Arrow));
        assert_eq!(recognise(b"\x1f\x8b\x08\x00"), Some(Binary::Gzip));
        assert_eq!(recognise(b"\x28\xb5\x2f\xfd\x04"), Some(Binary::Zstd));
        assert_eq!(recognise(b"BZh91AY&SY\x01"), Some(Binary::Bzip2));
        assert_eq!(recognise(b"\xfd7zXZ\x00\x00"), Some(Binary::Xz));
        assert_eq!(recognise(b"PK\x03\x04\x14\x00"), Some(Binary::Zip));
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
        let gzip = refuse_binary("standard input", b"\x1f\x8b\x08").unwrap_err();
        assert!(
            gzip.message()
                .starts_with("standard input is gzip-compressed")
        );
        assert!(gzip.message().contains("gzip -dc"));
    }
}
