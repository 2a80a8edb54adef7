//! `knuffle table`: the command line of the table shuffle
//! (`knuffle_table::shuffle_table`, where the formats, the order and the
//! memory rules live): clap, then the engine, its errors translated to exit
//! statuses (invalid options or data: 2; I/O: 1).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use knuffle_sample::Parts;
use knuffle_table::{Destination, Format, Options, ShardSplit};

use crate::emit;
use crate::failure::CliError;
use crate::seeding::RunSeed;
use crate::table_jobs::table_command_error;

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
are split. Every part is one format (--output-format, else the first OUT's extension).

Types (--infer-types): CSV and TSV columns are text unless --infer-types is given; then a
column is Int64, Float64, Boolean, Date32 or Timestamp (microseconds, no time zone) when
EVERY value of it in every input is read as that type and written back by knuffle as the
same text: 42 and -7 are integers, 1.5 a float, true/false booleans, 2024-01-31 a date,
2024-01-31T08:00:00.250 a timestamp; 007, +5, \" 12\", 1e3, 1.50, 1 next to 1.5, TRUE, NaN
keep the column text. So a CSV written back from the typed table has the bytes read (CSV ->
Parquet -> CSV is the same file). An empty field is null, typed or not (as without
--infer-types); a column of only empty fields is text. The inputs are read once more for
this, before the shuffle, so types come from all rows, not a sample (a pipe cannot be read
twice: an error); several files get one type per column name. A value that no longer fits
when read again (the file changed) is an error naming the file, record and column.

Partitions (--partition-by COL): OUT is a new or empty directory of COL=VALUE directories
(Hive layout, as pyarrow's write_to_dataset and Spark's partitionBy write), each holding
part-00000.EXT, ...: that value's rows in the table order (the order they have in the
output without --partition-by), COL left out of the files. knuffle, pyarrow, Spark and
DuckDB read COL back from the directory names: as Int32 when every value is an integer
that fits, else as text (so text values such as 007 come back as 7, as with pyarrow).
COL must be text or integers. Values are escaped as pyarrow escapes them (every byte but
letters, digits and -._~ as %XX); a null is __HIVE_DEFAULT_PARTITION__. No partition is
held in memory: at most 256 files are open at once (fewer under a small --memory); when
more values are being written, the file used least recently is closed and its value gets
a new file (part-00001, ...) when it comes back, so a directory may hold several files,
in the table order by name. At most 10,000 distinct values (else exit 2). OUT appears
only complete: it is written under a hidden name (.OUT.knuffle-XXXXXX, next to OUT,
removed on failure) and renamed at the end.";

const EXAMPLES: &str = "\
Examples:
  knuffle table rides.parquet -o shuffled.parquet --seed 42
  knuffle table shards/ -o train/ --shards 16              a directory of shards in, 16 out
  knuffle table big.parquet -o out.parquet --memory 200M   out of core
  knuffle table data.csv -o sample.csv -n 1000             1000 rows, uniformly, in random order
  knuffle table events.jsonl -o events.parquet             convert while shuffling
  knuffle table shards/ --parts 80,10,10 -o train.parquet -o valid.parquet -o test.parquet
  knuffle table data.csv -o typed.parquet --infer-types     integer, float, date columns
  knuffle table data.parquet -o by_label/ --partition-by label   by_label/label=cat/...

Exit status: 0 success; 1 a read or write error; 2 invalid arguments, invalid data (a
corrupt or truncated file, a schema mismatch, a ragged CSV row), or an input that --memory
cannot hold (a table whose columns alone take more, a footer or record larger than it).";

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

    /// Type CSV/TSV columns from all their values (Int64, Float64, Boolean, Date32,
    /// Timestamp), only when every value comes back as written (see Types below).
    #[arg(long)]
    infer_types: bool,

    /// Write the directory OUT as COL=VALUE directories (Hive layout; see Partitions below).
    #[arg(long, value_name = "COL", conflicts_with_all = ["shards", "rows_per_shard", "parts"])]
    partition_by: Option<String>,
}

/// `-o OUT --partition-by COL`: the directory OUT by COL's values.
fn partitioned(destination: Destination, column: Option<String>) -> Destination {
    match (destination, column) {
        (Destination::File(dir), Some(column)) => Destination::Partitioned(dir, column),
        (other, _) => other,
    }
}

fn format_option(text: Option<&str>) -> Result<Option<Format>, CliError> {
    text.map(Format::parse)
        .transpose()
        .map_err(table_command_error)
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
    let destination = partitioned(destination, args.partition_by);
    if let Destination::Shards(_, split) = &destination {
        split.sizes(0).map_err(table_command_error)?;
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
        infer_types: args.infer_types,
    };
    let report = knuffle_table::shuffle_table(&args.inputs, &destination, &options)
        .map_err(table_command_error)?;
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
