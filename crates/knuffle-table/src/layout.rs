//! How a Parquet output is laid out: compression, rows per row group, the
//! file's key-value metadata and the columns written without a dictionary,
//! taken from the first Parquet input unless the user gives them.

use parquet::basic::{Compression, Encoding};
use parquet::file::metadata::{ColumnChunkMetaData, KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

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
    /// The columns written without trying a dictionary: those whose input
    /// pages were not all dictionary-encoded (the input's writer gave up its
    /// dictionary, or never tried one). A writer that tries one hashes every
    /// value of the column before it falls back to plain pages.
    pub plain_columns: Vec<ColumnPath>,
}

impl Default for ParquetLayout {
    fn default() -> ParquetLayout {
        ParquetLayout {
            compression: Compression::SNAPPY,
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            key_value: Vec::new(),
            plain_columns: Vec::new(),
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
        let columns = metadata.file_metadata().schema_descr().num_columns();
        let plain_columns = (0..columns)
            .filter(|&c| {
                groups
                    .iter()
                    .any(|g| plain_pages(g.column(c)) == Some(true))
            })
            .map(|c| {
                metadata
                    .file_metadata()
                    .schema_descr()
                    .column(c)
                    .path()
                    .clone()
            })
            .collect();
        ParquetLayout {
            compression,
            row_group_rows,
            key_value,
            plain_columns,
        }
    }

    /// The writer's properties for this layout.
    pub fn properties(&self) -> WriterProperties {
        let builder = WriterProperties::builder()
            .set_compression(self.compression)
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_key_value_metadata((!self.key_value.is_empty()).then(|| self.key_value.clone()));
        self.plain_columns
            .iter()
            .fold(builder, |builder, path| {
                builder.set_column_dictionary_enabled(path.clone(), false)
            })
            .build()
    }
}

/// Whether some of a column chunk's data pages are not dictionary-encoded,
/// from the page encoding statistics of its metadata (the encodings of its
/// data pages, as the parquet crate reads them by default); `None` when the
/// file has none (the writer then tries a dictionary, its default).
fn plain_pages(chunk: &ColumnChunkMetaData) -> Option<bool> {
    chunk.page_encoding_stats_mask().map(|mask| {
        mask.encodings()
            .any(|e| !matches!(e, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY))
    })
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
    use arrow::array::{ArrayRef, Int64Array};
    use arrow::record_batch::RecordBatch;
    use parquet::arrow::ArrowWriter;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// A Parquet file of 4 row groups: `few` (3 values: its dictionary
    /// holds), `many` (distinct values: its writer falls back to plain
    /// pages), `never` (written without a dictionary).
    fn three_columns() -> ParquetMetaData {
        let rows = 40_000i64;
        let batch = RecordBatch::try_from_iter([
            (
                "few",
                std::sync::Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i % 3)))
                    as ArrayRef,
            ),
            (
                "many",
                std::sync::Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
            ),
            (
                "never",
                std::sync::Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i % 2)))
                    as ArrayRef,
            ),
        ])
        .unwrap();
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(10_000))
            .set_dictionary_page_size_limit(1024)
            .set_column_dictionary_enabled(ColumnPath::from("never"), false)
            .build();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let reader = SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        reader.metadata().clone()
    }

    #[test]
    fn columns_whose_pages_were_not_all_dictionary_are_written_plain() {
        let layout = ParquetLayout::of(&three_columns());
        let plain: Vec<String> = layout.plain_columns.iter().map(|p| p.string()).collect();
        assert_eq!(plain, ["many", "never"]);
        let properties = layout.properties();
        assert!(properties.dictionary_enabled(&ColumnPath::from("few")));
        assert!(!properties.dictionary_enabled(&ColumnPath::from("many")));
        assert!(!properties.dictionary_enabled(&ColumnPath::from("never")));
        // With nothing known of the input, every column tries a dictionary.
        let default = ParquetLayout::default().properties();
        assert!(default.dictionary_enabled(&ColumnPath::from("many")));
    }

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
