//! Shuffle the rows of tables (Parquet, Arrow IPC, CSV, JSON Lines) exactly
//! uniformly, in bounded memory, in **the table order**: the one order that
//! `knuffle table`, `knuffle.dask`, `knuffle.spark` and `knuffle.ray` give
//! the same rows for the same seed (docs/table-order.md).
//!
//! ```no_run
//! use knuffle_table::{Destination, Options, shuffle_table};
//! let options = Options {
//!     seed: "friday".into(),
//!     memory: 200 << 20,
//!     temp_dir: None,
//!     format: None,
//!     output_format: None,
//!     count: None,
//!     compression: None,
//!     row_group_rows: None,
//!     infer_types: false,
//! };
//! let report = shuffle_table(
//!     &["rides.parquet".into()],
//!     &Destination::File("shuffled.parquet".into()),
//!     &options,
//! )?;
//! println!("{} rows", report.rows_out);
//! # Ok::<(), knuffle_table::Error>(())
//! ```
//!
//! # Layers
//!
//! Workspace layer 3 (cli/python -> table -> records/sample/lab/draw ->
//! stats/io -> library): this crate uses knuffle-io (the rule for written
//! files, the memory budget, gzip and zstd), the sampling engine's draws
//! (knuffle-sample) and the library.
//!
//! Each module uses only those above it in this list:
//!
//! 1. `error`, `contain` (a reader's panic caught as an error), `format`
//!    (formats and their names), `order` (the table order: labels, ties,
//!    the reference permutation), `epoch` (the epoch order by position, in
//!    windows of buckets, after `order`).
//! 2. `batch_merge` (small batches held together, merged), `budget` (how
//!    a table shuffle shares its memory limit), `layout` (a Parquet output's compression, row groups, metadata),
//!    `open_files` (the open-file limit raised for many outputs),
//!    `csv_types` (`--infer-types`' rule: which type a CSV column's values
//!    all keep as written), the readers of the formats, each checking what
//!    it reads before the Arrow and Parquet decoders see it: `csv_in` (CSV
//!    and TSV; `csv_convert`, a batch's records made into columns),
//!    `ipc_in` (Arrow IPC messages), `json_in` (JSON Lines: its schema,
//!    `json_infer` inferring it from chunks of lines on several threads,
//!    `json_shape` a line's shape read as it is parsed;
//!    `json_kinds`, a field's one JSON type; `json_lines`, its rows, each
//!    error naming its line), `text_chunks` (a text cut into chunks of
//!    whole lines; how many threads a text reader uses),
//!    `parquet_footer` (a Parquet footer), `opened` (what opening an input
//!    gives, how it is read), `parquet_in` (a Parquet input: its footer
//!    read once, its row groups decoded from the same descriptor,
//!    `positioned`), `compressed_in` (gzip and zstd
//!    text read decompressed, other compressions refused); `parquet_out`
//!    (a Parquet writer encoding columns in parallel), `sink` (a table
//!    written in one format); `recognise` (whether a job of the commands that
//!    also take text is on tables); `hive` (the columns of Hive partition
//!    directories), `schema_merge` (several inputs' schemas as one, by
//!    column name).
//! 3. `source` (inputs: files, directories of shards, one schema),
//!    `opening` (what the schema pass leaves the rows pass: the only input
//!    opened, Parquet footers kept),
//!    `csv_infer` (`--infer-types`' first pass: CSV columns typed from every
//!    value),
//!    `partition_out` (`--partition-by`: a Hive layout by a column's
//!    values), `output` (one file, shards, parts or partitions, nothing
//!    visible until complete),
//!    `spill` (bucket files), `gather` (rows taken by position;
//!    `gather_bytes`, its text and binary columns; `gather_fixed`, its
//!    fixed-width ones; `gather_nulls`, the validity of both).
//! 4. `output_plan` (the output's format and Parquet layout, decided before
//!    a row is read), `table_options` (what a table job is told),
//!    `table_plan` (a table job's decisions from its facts alone, no I/O:
//!    its schema pass, memory, reading, output, refusals), `hold_plan` (as
//!    rows come: held in memory or through bucket files, how many),
//!    `table_facts` (the I/O before the plan: inputs listed, their schema
//!    read, the destination checked; then the plan), `shuffle` (the plan
//!    executed: in memory, through buckets, or `-n`),
//!    `fuzzing` (the bodies of the readers' fuzz targets).
//! 5. The sampling modes of `knuffle sample` on tables, the decisions of
//!    the line modes: `sample_rows` (what a sample is asked, reports and
//!    reads), `sample_columns` (`-k` and `-w` columns, a key's
//!    bytes), `sample_weight` (a row's weight), `sample_held` (the rows a
//!    sample holds), `sample_weight_runs` (`-w` alone beyond the memory
//!    limit: sorted runs on disk, merged), `sample_stream` (`-p`, `-k -p`), `sample_reservoir`
//!    (`-n`, `-w`, `--per-key`), then `sample` (the entry point); `split`
//!    (`knuffle split` on tables: exact sizes or by key, the line split's
//!    decisions).
//! 6. `stream_options` (what a stream is told), `stream_stats` (what a
//!    stream did), `stream_manifest` (what a
//!    cache entry is: its dataset's identity, its manifest), `stream_cache`
//!    (the cache directory in which the streams of a machine share each
//!    epoch's pass 1), `stream_pass1` (a stream's pass 1: for itself, or into the
//!    cache), `stream_prefetch` (the next epoch's pass 1 in the
//!    background).
//! 7. `stream` (the epoch order as a stream of batches, for training
//!    loops: the shuffle's two passes, pass 2 handed out batch by batch).

mod batch_merge;
mod budget;
mod compressed_in;
mod contain;
mod csv_convert;
mod csv_in;
mod csv_infer;
mod csv_parts;
mod csv_types;
mod epoch;
mod error;
mod format;
#[doc(hidden)]
pub mod fuzzing;
mod gather;
mod gather_bytes;
mod gather_fixed;
mod gather_nulls;
mod hive;
mod hold_plan;
mod ipc_in;
mod json_in;
mod json_infer;
mod json_kinds;
mod json_lines;
mod json_shape;
mod layout;
mod open_files;
mod opened;
mod opening;
mod order;
mod output;
mod output_plan;
mod parquet_footer;
mod parquet_in;
mod parquet_out;
mod partition_out;
mod positioned;
mod recognise;
mod sample;
mod sample_columns;
mod sample_held;
mod sample_reservoir;
mod sample_rows;
mod sample_stream;
mod sample_weight;
mod sample_weight_runs;
mod schema_merge;
mod shuffle;
mod sink;
mod source;
mod spill;
mod split;
mod stream;
mod stream_cache;
mod stream_manifest;
mod stream_options;
mod stream_pass1;
mod stream_prefetch;
mod stream_stats;
mod table_facts;
mod table_options;
mod table_plan;
mod text_chunks;

pub use epoch::{
    BUCKET_BITS, BUCKETS, Cursor, DEFAULT_WINDOW_ROWS, EpochOrder, MAX_ROWS, TooManyRows, Window,
};
pub use error::{Error, ErrorKind};
pub use format::{FORMAT_NAMES, Format};
pub use layout::parse_compression;
pub use order::{LABELS, RepeatedRow, TableOrder, VERSION, epoch_seed, table_order};
pub use output::{Destination, MAX_SHARDS, ShardSplit};
pub use partition_out::{MAX_OPEN, MAX_PARTITIONS};
pub use recognise::{names_binary_table, table_input, table_job};
pub use sample::{SampleReport, TableSample, sample_table};
pub use shuffle::{Report, shuffle_table};
pub use split::{SplitReport, TableSplit, split_table};
pub use stream::TableStream;
pub use stream_options::{Consumer, StreamOptions};
pub use stream_prefetch::{Prefetching, prefetch_stream};
pub use stream_stats::{Pass1, Prefetch, PrefetchReader, StatsReader, StreamStats};
pub use table_options::Options;
