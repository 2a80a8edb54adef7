//! `knuffle table`: the command line of the table shuffle
//! (`knuffle_table::shuffle_table`, where the formats, the order and the
//! memory rules live): clap, then the engine, its errors translated to exit
//! statuses (invalid options or data: 2; I/O: 1).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use knuffle_records::sampling::Parts;
use knuffle_table::{Destination, ErrorKind, Format, Options, ShardSplit};

use crate::emit;
use crate::failure::CliError;
use crate::seeding::RunSeed;

const ABOUT: &str = "Shuffle the rows of Parquet, Arrow, CSV and JSON Lines tables, out of core";

const LONG_ABOUT: &str = "\
Shuffle the rows of one or more tables into OUT, every order exactly equally likely, in
bounded memory. An INPUT is a file, or a directory of shards (its table files, in name
order, recursively; names starting with . or _ are skipped; key=value directories are Hive
partitions: columns after the file's own, as pyarrow reads them). All inputs must have the
same columns, matched by name (the first file's order); types that convert without loss
(Int32 with Int64, Float32 with Float64, a Null column with any) are converted.

Formats, from each file's extension or --format:
  parquet  Apache Parquet (.parquet, .pq): schema, field and file metadata kept; compression
           and rows per row group as the first Parquet input's unless given
  arrow    Arrow IPC file, also Feather v2 (.arrow, .feather, .ipc)
  arrows   Arrow IPC stream (.arrows)
  csv      RFC 4180 (.csv): the header is kept once; quoted fields with delimiters,
           quotes and newlines stay whole; every column is text, written back as it was
           read (quoting as needed); an empty field is written empty. A row with the wrong
           number of fields, or a quote never closed, is an error naming the file and the
           record.
  tsv      TAB-separated (.tsv, .tab), the same without quoting: \"a\" b stays \"a\" b; a
           value with a TAB or a line break cannot be written as TSV.
  jsonl    JSON Lines (.jsonl, .ndjson): types inferred from all rows of all inputs,
           columns in the order their keys first appear
Column names must differ. A reader takes at most what --memory allows; a record, line or
footer that alone does not fit is an error saying to raise --memory. Parquet readers and
writers hold buffers for every column: a very wide table needs a larger --memory, and one
too wide for it is an error saying so (never a partial output).
OUT's format is --output-format, else OUT's extension (one of a format, else an error),
else (no extension) the first input's.

The order is the table order (the same as knuffle.shuffle_table, knuffle.dask.shuffle,
knuffle.spark.shuffle and knuffle.ray.shuffle for the same --seed and rows): row i gets a
32-bit label from a ChaCha20 stream of the seed, rows go in label order, and rows with equal
labels are shuffled by a generator of their own. It does not depend on --memory, on how the
rows are split into files, or on --shards. -n K writes the first K rows of that order (a
uniform sample, in random order), holding about 2K rows.

Memory: tables larger than --memory go through bucket files (Arrow IPC, in -T DIR, or
$TMPDIR or /tmp, nameless: nothing is left behind) and come back one bucket at a time.
OUT appears only when complete: a file is written under a temporary name and renamed; shards
(--shards N or --rows-per-shard K, each a contiguous run of the order, named
part-00000.EXT, ...) are linked into the directory OUT at the end, which must be new or
empty.

Splits: --parts 80,10,10 with -o given once per part (train, validation, test) writes the
order's first run of rows to the first OUT, the next to the second, and so on: every split
into parts of those sizes is equally likely. The sizes are exact: each part gets
floor(N x share / sum) rows and the rows left over (fewer than the parts) go one each to the
parts with the largest remainders (as knuffle split does for lines). With -n K, the K rows
are split. Every part is one format (--output-format, else the first OUT's extension).";

const EXAMPLES: &str = "\
Examples:
  knuffle table rides.parquet -o shuffled.parquet --seed 42
  knuffle table shards/ -o train/ --shards 16              a directory of shards in, 16 out
  knuffle table big.parquet -o out.parquet --memory 200M   out of core
  knuffle table data.csv -o sample.csv -n 1000             1000 rows, uniformly, in random order
  knuffle table events.jsonl -o events.parquet             convert while shuffling
  knuffle table shards/ --parts 80,10,10 -o train.parquet -o valid.parquet -o test.parquet

Exit status: 0 success; 1 a read or write error; 2 invalid arguments or invalid data (a
corrupt or truncated file, a schema mismatch, a ragged CSV row).";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle table",
    bin_name = "knuffle table",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// Input tables: files, or directories of shards.
    #[arg(value_name = "INPUT", required = true, value_hint = clap::ValueHint::AnyPath)]
    inputs: Vec<PathBuf>,

    /// The output: a file, or with --shards/--rows-per-shard a new or empty directory; with
    /// --parts, once per part.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true,
          value_hint = clap::ValueHint::AnyPath)]
    output: Vec<PathBuf>,

    /// Seed text (any text); the same seed and rows give the same order.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// Memory to use, as a size (200M, 4G, 10%; default 3/4 of the available memory).
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,

    /// Where bucket files go (default: $TMPDIR or /tmp).
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR",
          value_hint = clap::ValueHint::DirPath)]
    temp_dir: Option<PathBuf>,

    /// Only the first K rows of the order (a uniform sample in random order).
    #[arg(short = 'n', long = "head-count", value_name = "K")]
    count: Option<u64>,

    /// Write N shards to the directory OUT (sizes differ by at most one row).
    #[arg(long, value_name = "N", conflicts_with = "rows_per_shard")]
    shards: Option<u64>,

    /// Write shards of K rows (the last one shorter) to the directory OUT.
    #[arg(long, value_name = "K", conflicts_with = "parts")]
    rows_per_shard: Option<u64>,

    /// Split the rows into parts of these shares (80,10,10 or 0.8,0.1,0.1), one -o per part.
    #[arg(long, value_name = "SHARES", conflicts_with = "shards")]
    parts: Option<String>,

    /// The inputs' format: parquet, arrow, arrows, csv, tsv, jsonl (default: from the extension).
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,

    /// The output's format (default: OUT's extension, else the first input's).
    #[arg(long, value_name = "FORMAT")]
    output_format: Option<String>,

    /// Parquet compression: uncompressed, snappy, gzip, lz4_raw, zstd, brotli (zstd(3) for a level).
    #[arg(long, value_name = "CODEC")]
    compression: Option<String>,

    /// Rows per Parquet row group (default: the first Parquet input's).
    #[arg(long, value_name = "ROWS")]
    row_group_rows: Option<usize>,

    /// Print the seed, the rows and how they were shuffled to standard error.
    #[arg(short, long)]
    verbose: bool,
}

fn table_error(error: knuffle_table::Error) -> CliError {
    match error.kind() {
        ErrorKind::Invalid => CliError::invalid(error.message()),
        ErrorKind::Io => CliError::plain(error.message()),
    }
}

fn format_option(text: Option<&str>) -> Result<Option<Format>, CliError> {
    text.map(Format::parse).transpose().map_err(table_error)
}

/// Runs `knuffle table` with the arguments after `table`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle table", args)?;
    let memory = emit::memory_limit(args.memory.as_deref())?;
    let mut outputs = args.output;
    let destination = if let Some(shares) = &args.parts {
        let parts = Parts::parse(shares).map_err(|e| CliError::invalid(e.message()))?;
        Destination::Parts(outputs, parts)
    } else if outputs.len() > 1 {
        return Err(CliError::invalid(format!(
            "{} outputs (-o) given: one, or one per part with --parts",
            outputs.len()
        )));
    } else {
        let output = outputs.remove(0);
        match (args.shards, args.rows_per_shard) {
            (Some(n), _) => Destination::Shards(output, ShardSplit::Count(n)),
            (None, Some(k)) => Destination::Shards(output, ShardSplit::RowsEach(k)),
            (None, None) => Destination::File(output),
        }
    };
    if let Destination::Shards(_, split) = &destination {
        split.sizes(0).map_err(table_error)?;
    }
    if args.row_group_rows == Some(0) {
        return Err(CliError::invalid("--row-group-rows must be at least 1"));
    }
    let compression = args
        .compression
        .as_deref()
        .map(knuffle_table::parse_compression)
        .transpose()
        .map_err(CliError::invalid)?;
    let seed = RunSeed::choose(args.seed);
    let options = Options {
        seed: seed.text().to_owned(),
        memory,
        temp_dir: args.temp_dir,
        format: format_option(args.format.as_deref())?,
        output_format: format_option(args.output_format.as_deref())?,
        count: args.count,
        compression,
        row_group_rows: args.row_group_rows,
    };
    let report =
        knuffle_table::shuffle_table(&args.inputs, &destination, &options).map_err(table_error)?;
    if args.verbose {
        let how = match report.buckets {
            0 => "in memory".to_owned(),
            b => format!("through {b} bucket files"),
        };
        eprintln!(
            "knuffle table: --seed {}: {} rows in, {} rows out, {how}",
            seed.quoted(),
            report.rows_in,
            report.rows_out
        );
    }
    Ok(ExitCode::SUCCESS)
}
