//! How a Parquet output is laid out: compression, rows per row group and
//! the file's key-value metadata, taken from the first Parquet input unless
//! the user gives them.

use parquet::basic::Compression;
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;

/// Parquet's default rows per row group (the `parquet` crate's).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1024 * 1024;

/// The layout of a Parquet file.
#[derive(Clone, Debug)]
pub struct ParquetLayout {
    /// The compression of the first column chunk.
    pub compression: Compression,
    /// Rows in the largest row group.
    pub row_group_rows: usize,
    /// The file's key-value metadata, without Arrow's own schema entry
    /// (the writer stores the schema itself).
    pub key_value: Vec<KeyValue>,
}

impl Default for ParquetLayout {
    fn default() -> ParquetLayout {
        ParquetLayout {
            compression: Compression::SNAPPY,
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            key_value: Vec::new(),
        }
    }
}

impl ParquetLayout {
    /// The layout of a file from its metadata.
    pub fn of(metadata: &ParquetMetaData) -> ParquetLayout {
        let groups = metadata.row_groups();
        // A codec the writer lacks (LZO) is not kept: Snappy instead.
        let compression = groups
            .iter()
            .find(|g| g.num_columns() > 0)
            .map(|g| g.column(0).compression())
            .filter(|&c| writable(c))
            .unwrap_or(Compression::SNAPPY);
        let row_group_rows = groups
            .iter()
            .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
            .max()
            .filter(|&rows| rows > 0)
            .unwrap_or(DEFAULT_ROW_GROUP_ROWS);
        let key_value = metadata
            .file_metadata()
            .key_value_metadata()
            .map(|kv| {
                kv.iter()
                    .filter(|entry| entry.key != "ARROW:schema")
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        ParquetLayout {
            compression,
            row_group_rows,
            key_value,
        }
    }

    /// The writer's properties for this layout.
    pub fn properties(&self) -> WriterProperties {
        WriterProperties::builder()
            .set_compression(self.compression)
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_key_value_metadata((!self.key_value.is_empty()).then(|| self.key_value.clone()))
            .build()
    }
}

/// A compression named as on the command line: `uncompressed`, `snappy`,
/// `gzip`, `lz4_raw`, `zstd`, `brotli`, with an optional level (`zstd(3)`;
/// without one, the codec's default level).
pub fn parse_compression(name: &str) -> Result<Compression, String> {
    use parquet::basic::{BrotliLevel, GzipLevel, ZstdLevel};
    let lower = name.trim().to_ascii_lowercase();
    let known = match lower.as_str() {
        "none" => Some(Compression::UNCOMPRESSED),
        "gzip" => Some(Compression::GZIP(GzipLevel::default())),
        "zstd" => Some(Compression::ZSTD(ZstdLevel::default())),
        "brotli" => Some(Compression::BROTLI(BrotliLevel::default())),
        _ => None,
    };
    let compression = match known {
        Some(compression) => compression,
        None => lower.parse::<Compression>().map_err(|_| {
            format!(
                "unknown Parquet compression '{name}' (uncompressed, snappy, gzip, lz4_raw, \
                 zstd, brotli; with a level: zstd(3), gzip(9), brotli(5))"
            )
        })?,
    };
    if !writable(compression) {
        return Err(format!(
            "Parquet compression '{name}' cannot be written (uncompressed, snappy, gzip, \
             lz4_raw, zstd, brotli)"
        ));
    }
    Ok(compression)
}

/// Whether the Parquet writer has this codec (the `parquet` crate has no
/// LZO codec: writing with it panics).
fn writable(compression: Compression) -> bool {
    !matches!(compression, Compression::LZO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressions_parse_with_and_without_levels() {
        assert_eq!(parse_compression("snappy"), Ok(Compression::SNAPPY));
        assert_eq!(parse_compression("NONE"), Ok(Compression::UNCOMPRESSED));
        assert!(matches!(
            parse_compression("zstd"),
            Ok(Compression::ZSTD(_))
        ));
        assert!(matches!(
            parse_compression("zstd(9)"),
            Ok(Compression::ZSTD(_))
        ));
        assert!(parse_compression("zip").unwrap_err().contains("zstd"));
        assert!(parse_compression("zstd(99)").is_err());
        assert!(
            parse_compression("lzo")
                .unwrap_err()
                .contains("cannot be written")
        );
    }
}
