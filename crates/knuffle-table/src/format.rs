//! The table formats knuffle reads and writes, told from a file's
//! extension or named by `--format`.

use std::fmt;
use std::path::Path;

use crate::error::Error;

/// A table format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet.
    Parquet,
    /// The Arrow IPC file format (Feather v2): `.arrow`, `.feather`, `.ipc`.
    ArrowFile,
    /// The Arrow IPC stream format: `.arrows`.
    ArrowStream,
    /// CSV (RFC 4180) with this field delimiter: `.csv` (`,`), or TSV
    /// (`.tsv`, TAB): TAB-separated fields without quoting.
    Csv(u8),
    /// JSON Lines: one JSON object per line (`.jsonl`, `.ndjson`).
    JsonLines,
}

/// The names `--format` accepts, with what they mean (for `--help` and
/// errors).
pub const FORMAT_NAMES: &[(&str, &str)] = &[
    ("parquet", "Apache Parquet (.parquet, .pq)"),
    (
        "arrow",
        "Arrow IPC file, also Feather v2 (.arrow, .feather, .ipc)",
    ),
    ("arrows", "Arrow IPC stream (.arrows)"),
    ("csv", "CSV, RFC 4180, comma-separated (.csv)"),
    ("tsv", "TAB-separated, no quoting (.tsv, .tab)"),
    ("jsonl", "JSON Lines, one object per line (.jsonl, .ndjson)"),
];

impl Format {
    /// The format named `name` (one of [`FORMAT_NAMES`]).
    pub fn parse(name: &str) -> Result<Format, Error> {
        match name.to_ascii_lowercase().as_str() {
            "parquet" | "pq" => Ok(Format::Parquet),
            "arrow" | "feather" | "ipc" => Ok(Format::ArrowFile),
            "arrows" | "arrow-stream" => Ok(Format::ArrowStream),
            "csv" => Ok(Format::Csv(b',')),
            "tsv" | "tab" => Ok(Format::Csv(b'\t')),
            "jsonl" | "ndjson" | "json" => Ok(Format::JsonLines),
            _ => Err(Error::invalid(format!(
                "unknown table format '{name}' (one of: {})",
                FORMAT_NAMES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The format that `path`'s extension names, if any, seen through a
    /// compression's (`t.csv.gz` is CSV; its content says how it is read).
    pub fn from_extension(path: &Path) -> Option<Format> {
        let path = match knuffle_io::compressed::by_extension(path) {
            Some(_) => Path::new(path.file_stem()?),
            None => path,
        };
        let extension = path.extension()?.to_str()?;
        Format::parse(extension).ok()
    }

    /// The format of `path`: `given` if set, else its extension's.
    pub fn of(path: &Path, given: Option<Format>) -> Result<Format, Error> {
        given
            .or_else(|| Format::from_extension(path))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{}: cannot tell the table format from the name (use --format: {})",
                    path.display(),
                    FORMAT_NAMES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }

    /// The extension of a file of this format (for shard names).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::ArrowFile => "arrow",
            Format::ArrowStream => "arrows",
            Format::Csv(b'\t') => "tsv",
            Format::Csv(_) => "csv",
            Format::JsonLines => "jsonl",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Parquet => "Parquet",
            Format::ArrowFile => "Arrow IPC file",
            Format::ArrowStream => "Arrow IPC stream",
            Format::Csv(b'\t') => "TSV",
            Format::Csv(_) => "CSV",
            Format::JsonLines => "JSON Lines",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_formats() {
        let of = |name: &str| Format::from_extension(Path::new(name));
        assert_eq!(of("a.parquet"), Some(Format::Parquet));
        assert_eq!(of("a.PQ"), Some(Format::Parquet));
        assert_eq!(of("a.feather"), Some(Format::ArrowFile));
        assert_eq!(of("a.arrows"), Some(Format::ArrowStream));
        assert_eq!(of("a.tsv"), Some(Format::Csv(b'\t')));
        assert_eq!(of("a.ndjson"), Some(Format::JsonLines));
        assert_eq!(of("a.csv.gz"), Some(Format::Csv(b',')));
        assert_eq!(of("a.jsonl.zst"), Some(Format::JsonLines));
        assert_eq!(of("a.gz"), None);
        assert_eq!(of("README"), None);
        assert!(
            Format::parse("xlsx")
                .unwrap_err()
                .message()
                .contains("parquet")
        );
    }
}
