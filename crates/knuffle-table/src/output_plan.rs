//! The output's settings, decided before a row is read: its format (from
//! the options, the names, the inputs), a Parquet output's layout (the
//! inputs' compression, row groups and columns without a dictionary), and
//! whether a Parquet writer's columns fit the memory limit.

use std::collections::HashMap;
use std::path::Path;

use arrow::datatypes::SchemaRef;
use parquet::basic::Compression;
use parquet::schema::types::ColumnPath;

use crate::error::Error;
use crate::format::Format;
use crate::layout::ParquetLayout;
use crate::output::{Destination, WRITE_ROWS};

/// The output's format: `--output-format`, else the name's extension (each
/// part's, for a split), else the first input's (`first_input`).
pub(crate) fn output_format(
    destination: &Destination,
    output_format: Option<Format>,
    first_input: Format,
) -> Result<Format, Error> {
    // A name that says another format (out.txt) is not written as the
    // input's format under that name.
    let named = |path: &Path| -> Result<Option<Format>, Error> {
        let Some(extension) = path.extension() else {
            return Ok(None);
        };
        Format::from_extension(path).map(Some).ok_or_else(|| {
            Error::invalid(format!(
                "{}: '.{}' is not the extension of a table format; name the output's \
                 format with --output-format ({})",
                path.display(),
                extension.to_string_lossy(),
                crate::format::FORMAT_NAMES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    };
    let format = match (output_format, destination) {
        (Some(format), _) => format,
        (None, Destination::File(path)) => named(path)?.unwrap_or(first_input),
        (None, Destination::Parts(paths, _)) => {
            // Every part's name is checked; the first that names a format
            // decides it.
            let mut first = None;
            for path in paths {
                first = first.or(named(path)?);
            }
            first.unwrap_or(first_input)
        }
        (None, Destination::Shards(_, _) | Destination::Partitioned(_, _)) => first_input,
    };
    // A split's parts are one format: an extension that names another is
    // a mistake, not a wish.
    if let Destination::Parts(paths, _) = destination
        && let Some(other) = paths
            .iter()
            .find(|p| Format::from_extension(p).is_some_and(|f| f != format))
    {
        return Err(Error::invalid(format!(
            "{}: the parts are written as {format} (one format for every part; \
             --output-format chooses it)",
            other.display()
        )));
    }
    Ok(format)
}

/// The layout of a Parquet output: the first Parquet input's compression
/// and metadata, the largest row group of any Parquet input (a shard of
/// one row must not make every row group one row), and without a
/// dictionary the columns that every Parquet input wrote without one (one
/// shard written plain must not turn it off for all); `layouts` are the
/// Parquet inputs', in order.
pub(crate) fn parquet_layout(
    layouts: &[&ParquetLayout],
    compression: Option<Compression>,
    row_group_rows: Option<usize>,
) -> ParquetLayout {
    let mut layout = match layouts {
        [] => ParquetLayout::default(),
        [first, ..] => ParquetLayout {
            row_group_rows: layouts.iter().map(|l| l.row_group_rows).max().unwrap_or(0),
            plain_columns: plain_in_all(layouts),
            ..(*first).clone()
        },
    };
    if let Some(compression) = compression {
        layout.compression = compression;
    }
    if let Some(rows) = row_group_rows {
        debug_assert!(rows > 0, "Options::validate refuses 0");
        layout.row_group_rows = rows;
    }
    layout
}

/// The columns that every one of `layouts` (at least one) writes without
/// a dictionary, in the first's order.
fn plain_in_all(layouts: &[&ParquetLayout]) -> Vec<ColumnPath> {
    let mut inputs: HashMap<&ColumnPath, usize> = HashMap::new();
    for layout in layouts {
        for path in &layout.plain_columns {
            *inputs.entry(path).or_default() += 1;
        }
    }
    layouts[0]
        .plain_columns
        .iter()
        .filter(|path| inputs[path] == layouts.len())
        .cloned()
        .collect()
}

/// Bytes a Parquet writer takes per column, at least, whatever its rows
/// (its column writer's encoders and page buffers: about 12 KiB each in
/// parquet 60.1, measured on 10,000 and 100,000 columns).
const PARQUET_WRITER_COLUMN_BYTES: u64 = 12 << 10;

/// What a column costs in memory whatever its rows: its arrays in the
/// batch read, in the rows gathered from it and in the writer's batch
/// (measured: a 100,000-column CSV of 8 rows shuffled in memory peaks at
/// about 1.1 KiB a column, arrow 60.1).
pub(crate) const COLUMN_BYTES: u64 = 1 << 10;

/// Bytes a field is counted at when batches are sized from a schema
/// (an 8-byte value, its share of offsets and validity, a short string).
const FIELD_BYTES: u64 = 16;

/// Rows per batch written for rows of `schema`, when one batch may take
/// `bytes`: the largest power of two up to [`WRITE_ROWS`] whose batch
/// fits, at least one. Decided once per run, so the rows are cut at the
/// same places in memory and through bucket files; under a small limit
/// the batches are smaller (an Arrow output's batches differ with it; a
/// CSV or JSON Lines output's bytes do not).
pub(crate) fn write_rows(schema: &SchemaRef, bytes: u64) -> usize {
    let columns = crate::json_in::leaf_count(schema).max(1) as u64;
    let fit = bytes / columns.saturating_mul(FIELD_BYTES);
    let mut rows = WRITE_ROWS;
    while rows > 1 && rows as u64 > fit {
        rows /= 2;
    }
    rows
}

/// Refuses, before a row is read, a table whose columns alone take more
/// than the memory limit: every batch holds an array of each.
pub(crate) fn check_width(schema: &SchemaRef, memory: u64) -> Result<(), Error> {
    let columns = crate::json_in::leaf_count(schema) as u64;
    let needed = columns.saturating_mul(COLUMN_BYTES);
    if needed > memory {
        return Err(Error::memory(format!(
            "a table of {columns} columns takes about {} MiB in memory whatever its rows (an \
             array of each column in every batch), more than the memory limit ({} MiB); \
             raise the memory limit (--memory)",
            needed.div_ceil(1 << 20),
            memory >> 20
        )));
    }
    Ok(())
}

/// A Parquet output's column writers (`writers` of them open at once) must
/// fit in the writer's share of the memory limit (`memory` bytes in all).
pub(crate) fn check_column_writers(
    schema: &SchemaRef,
    memory: u64,
    writers: u64,
) -> Result<(), Error> {
    let columns = crate::json_in::leaf_count(schema) as u64;
    let needed = columns
        .saturating_mul(PARQUET_WRITER_COLUMN_BYTES)
        .saturating_mul(writers);
    // The writer's share: a fifth of the limit (its row groups' buffers
    // stop at 512 MiB, its column writers do not).
    let allowed = memory / 5;
    if needed > allowed {
        return Err(Error::memory(format!(
            "a Parquet output of {columns} columns takes about {} MiB to write, more than \
             the memory limit allows its writer ({} MiB); raise the memory limit (--memory) \
             or write Arrow IPC",
            needed.div_ceil(1 << 20),
            allowed >> 20
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(columns: &[&str]) -> ParquetLayout {
        ParquetLayout {
            plain_columns: columns.iter().map(|&c| ColumnPath::from(c)).collect(),
            ..ParquetLayout::default()
        }
    }

    #[test]
    fn a_column_is_written_plain_only_when_every_parquet_input_was() {
        let (a, b) = (plain(&["x", "y", "w"]), plain(&["w", "z", "y"]));
        let layout = parquet_layout(&[&a, &b], None, None);
        assert_eq!(
            layout.plain_columns,
            [ColumnPath::from("y"), ColumnPath::from("w")]
        );
        assert_eq!(
            parquet_layout(&[&a], None, None).plain_columns,
            a.plain_columns
        );
        assert!(
            parquet_layout(&[&a, &plain(&[])], None, None)
                .plain_columns
                .is_empty()
        );
        assert!(parquet_layout(&[], None, None).plain_columns.is_empty());
    }
}
