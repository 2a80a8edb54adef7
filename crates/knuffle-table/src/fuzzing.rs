//! The bodies of the table readers' fuzz targets (`fuzz/fuzz_targets/
//! table_*.rs`), here so that a stable test can feed them the seed corpus
//! and mutations of it (`tests/fuzz_smoke.rs`) in the normal test suite.
//! Not part of the library's interface.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, ErrorKind};
use crate::format::Format;
use crate::layout::ParquetLayout;
use crate::sink::TableWriter;
use crate::source::{self, Reading, Source};

/// The memory limit the fuzz targets read with: what a hostile input may
/// make a reader take stays well under libFuzzer's 2 GB RSS limit.
pub const MEMORY: u64 = 64 << 20;

/// Reads `bytes` as a table of `format` under [`MEMORY`], to the end: its
/// rows, or the error. Panics if a reader's panic escaped, an error is not
/// invalid data (`ErrorKind::Invalid`) or does not name the file, or (CSV)
/// the table written back as CSV does not read back the same.
pub fn read_table(format: Format, bytes: &[u8]) -> Result<u64, Error> {
    let dir = tempfile::Builder::new()
        .prefix("knuffle-fuzz")
        .tempdir_in(scratch_dir())
        .expect("a temporary directory");
    let path = dir.path().join("input");
    std::fs::write(&path, bytes).expect("the input written");
    let result = read_all(&path, format);
    match &result {
        Err(error) => {
            assert_eq!(error.kind(), ErrorKind::Invalid, "{error}");
            assert!(error.message().contains("input"), "{error}");
        }
        Ok(_) if matches!(format, Format::Csv(_)) => round_trip(&path, format),
        Ok(_) => {}
    }
    result
}

/// [`read_table`] of an Arrow IPC file (`bytes[0]` even) or stream (odd)
/// of `bytes[1..]`.
pub fn read_arrow(bytes: &[u8]) -> Result<u64, Error> {
    let (format, rest) = split_choice(bytes, Format::ArrowFile, Format::ArrowStream);
    read_table(format, rest)
}

/// [`read_table`] of a CSV (`bytes[0]` even) or TSV (odd) table of
/// `bytes[1..]`.
pub fn read_csv(bytes: &[u8]) -> Result<u64, Error> {
    let (format, rest) = split_choice(bytes, Format::Csv(b','), Format::Csv(b'\t'));
    read_table(format, rest)
}

fn split_choice(bytes: &[u8], even: Format, odd: Format) -> (Format, &[u8]) {
    match bytes.split_first() {
        Some((first, rest)) if first % 2 == 1 => (odd, rest),
        Some((_, rest)) => (even, rest),
        None => (even, bytes),
    }
}

/// A directory in memory when there is one.
fn scratch_dir() -> std::path::PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn reading() -> Reading {
    Reading {
        batch_rows: 1024,
        parallel_bytes: 0,
        memory: MEMORY,
        batch_memory: MEMORY / 8,
    }
}

fn read_all(path: &Path, format: Format) -> Result<u64, Error> {
    let source = Source::file(path.to_path_buf(), format);
    let opened = source::open(&source, None, reading())?;
    let mut rows = 0u64;
    for batch in opened.batches {
        let batch = batch?;
        // The same columns (a Parquet file's key-value metadata may reach
        // its schema and not its batches; every batch is conformed to the
        // schema before it is used).
        assert_eq!(
            batch.schema().fields(),
            opened.schema.fields(),
            "a batch of other columns"
        );
        rows += batch.num_rows() as u64;
    }
    if let Some(said) = opened.rows {
        assert_eq!(said, rows, "the rows read are not the rows the file says");
    }
    Ok(rows)
}

/// A CSV table that reads without error reads back the same after it is
/// written as CSV (or TSV) by knuffle's writer, or refused by it (a TSV
/// value with a TAB).
fn round_trip(path: &Path, format: Format) {
    let source = Source::file(path.to_path_buf(), format);
    let opened = source::open(&source, None, reading()).expect("read once");
    let batches: Vec<_> = opened.batches.collect::<Result<_, _>>().expect("read once");
    if opened.schema.fields().is_empty() {
        return;
    }
    let written = path.with_extension("written");
    let file = std::fs::File::create(&written).expect("created");
    // Refused (a first column name it could not write back): no round trip.
    let Ok(mut writer) = TableWriter::new(
        file,
        format,
        &opened.schema,
        &ParquetLayout::default(),
        &written,
    ) else {
        return;
    };
    for batch in &batches {
        if writer.write(batch).is_err() {
            return;
        }
    }
    writer.finish().expect("finished").flush().expect("flushed");
    let again = Source::file(written, format);
    let reopened = source::open(&again, None, reading()).expect("the written table reads");
    assert_eq!(reopened.schema, opened.schema, "the header changed");
    let back: Vec<_> = reopened
        .batches
        .collect::<Result<_, _>>()
        .expect("the written table reads");
    let schema = opened.schema.clone();
    let first = arrow::compute::concat_batches(&schema, &batches).expect("concat");
    let second = arrow::compute::concat_batches(&schema, &back).expect("concat");
    assert_eq!(first, second, "the rows changed when written and read back");
}
