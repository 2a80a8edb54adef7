//! `knuffle split`: the command line of the split engines
//! (`knuffle_sample::split` for records of text,
//! `knuffle_table::split_table` for the rows of tables, where the sizes,
//! the assignment and its law live): clap, the choice between the two
//! (`table_jobs::decide`), then the engine, its errors translated as
//! `knuffle sample`'s are (invalid options: status 2; else 1).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use knuffle_sample::{FieldName, Flag, Parts, SplitOptions};
use knuffle_table::{TableSplit, split_table};

use crate::emit;
use crate::failure::CliError;
use crate::sample::{CLI_NAMES, RecordFormat, cli_error};
use crate::seeding::RunSeed;
use crate::table_jobs::{self, TableJob, table_error};

const ABOUT: &str = "Split records into parts (train, validation, test): exact sizes or by key";

const LONG_ABOUT: &str = "\
Split the records of the FILEs (standard input when none, or for -) into parts, one output
per part: every record goes to exactly one part. Records are lines, NUL-ended records with
-z, or RFC 4180 CSV records with --csv (quoted fields may hold delimiters and newlines), each
written byte for byte as it was read. With --header the first record of each FILE is its
header: the first FILE's is written at the top of every part, the others are dropped.

--parts gives the shares, separated by commas: integers or decimals, each at least 0, one
above 0; they are normalised (80,10,10, 8,1,1 and 0.8,0.1,0.1 are the same split), and the
outputs (-o, one per part) are taken in their order.

The law (the same --seed gives the same parts):
  (default)     exact sizes: with N records, part j gets floor(N * share_j / total) records,
                and the records left over (fewer than the parts) go one each to the parts
                with the largest remainders, ties to the earlier part, so the sizes always
                sum to N. Which records go where is uniformly random among all assignments
                with those sizes (as a shuffle then a cut): record i goes to part j with
                probability exactly remaining_j / remaining (an exact integer draw). N is
                counted first: FILEs are read twice; standard input is first copied to a
                temporary file (in -T DIR, or $TMPDIR or /tmp). Memory: one record and a
                counter per part. The records of each part are in input order.
  -k FIELDS     group split: all records with the same key (the values of FIELDS: numbers
                from 1, or header names with --header) go to the same part, each key to part j
                with probability exactly share_j / total, decided by SHA-256 of the seed and
                the key: the same in every run, file and machine for the same --seed. Part
                sizes then follow the shares only approximately (keys, not records, are
                split). One pass; input order within each part.

Every output is opened before any input is read (a missing directory is an error, nothing
is created) and replaced only once complete: a failing run leaves no partial output and
never truncates an existing file.

Tables: when an input is a Parquet or Arrow file (told by its first bytes) or a directory of
shards, or --format or --output-format is given, or an -o names a Parquet or Arrow file, the
rows of the tables are split (the formats and inputs of knuffle table: Parquet, Arrow, CSV,
TSV, JSON Lines, Hive folders), each part written as a table, every column kept with its
type, rows in input order. Both laws above hold with the same decisions: a table and the
CSV of its rows are split alike for a --seed. -k names columns (or numbers them from 1); a
key's value is the text knuffle table writes for it in CSV (a null: empty). An exact split
reads its inputs twice (a Parquet file's row count is in its footer), so they must be files.
The parts are one format: --output-format, else the first -o's extension, else the input's.
-z and -d are for records of text; a CSV table always has its header.";

const EXAMPLES: &str = "\
Examples:
  knuffle split --parts 80,10,10 -o train.tsv -o valid.tsv -o test.tsv data.tsv
  knuffle split --parts 0.9,0.1 --header --csv -o train.csv -o test.csv data.csv
  knuffle split --seed s --parts 80,20 -k user --header -o a.tsv -o b.tsv logs1.tsv logs2.tsv
                                                   every user's lines in one part
  cat data.txt | knuffle split --parts 1,1 -o half1.txt -o half2.txt
  knuffle split --parts 80,10,10 -o train.parquet -o valid.parquet -o test.parquet shards/
  knuffle split --seed s --parts 9,1 -k user -o a.parquet -o b.parquet events.parquet

Exit status: 0 success; 1 a read or write error, a record without a key field, a record
larger than --memory; 2 invalid arguments (bad parts, a wrong number of -o, a bad field).";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle split",
    bin_name = "knuffle split",
    override_usage = "knuffle split --parts SHARES -o FILE [-o FILE]... [OPTIONS] [FILE]...",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// The shares of the parts, separated by commas (80,10,10 or 0.8,0.1,0.1).
    #[arg(
        long,
        value_name = "SHARES",
        allow_hyphen_values = true,
        required = true
    )]
    parts: String,

    /// An output FILE, once per part in the order of --parts (replaced only once complete).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true,
          value_hint = clap::ValueHint::FilePath)]
    outputs: Vec<PathBuf>,

    /// Group split: key fields (numbers from 1 or header names, comma-separated).
    #[arg(short = 'k', long = "key-fields", value_name = "FIELDS")]
    key_fields: Option<String>,

    /// The first record of each FILE is a header, written at the top of every part.
    #[arg(long)]
    header: bool,

    #[command(flatten)]
    format: RecordFormat,

    /// Seed text (any text); the same seed gives the same parts.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// The longest record allowed (for tables: the memory of the run), as a size
    /// (512M, 4G, 10%; default 3/4 of the available memory).
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,

    /// Where standard input is copied for counting (default: $TMPDIR or /tmp).
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR",
          value_hint = clap::ValueHint::DirPath)]
    temp_dir: Option<PathBuf>,

    /// Split tables of this format: parquet, arrow, arrows, csv, tsv, jsonl (default: from
    /// the extension).
    #[arg(long = "format", value_name = "FORMAT")]
    table_format: Option<String>,

    /// A table split's output format (default: the first -o's extension, else the input's).
    #[arg(long = "output-format", value_name = "FORMAT")]
    output_format: Option<String>,

    /// Print the seed used (the one given, or the fresh one) to standard error.
    #[arg(short, long)]
    verbose: bool,

    /// Input files (standard input when none, or for -).
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
}

/// Runs `knuffle split` with the arguments after `split`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse_with("knuffle split", args, crate::sample::engine_rules)?;
    let parts = Parts::parse(&args.parts).map_err(cli_error)?;
    let key = match &args.key_fields {
        Some(fields) => {
            Some(FieldName::parse_list((CLI_NAMES.name)(Flag::Key), fields).map_err(cli_error)?)
        }
        None => None,
    };
    let (framing, delimiter) = args.format.decide()?;
    let memory = emit::memory_limit(args.memory.as_deref())?;
    let outputs: Vec<&Path> = args.outputs.iter().map(PathBuf::as_path).collect();
    let table = table_jobs::decide(
        &args.files,
        &outputs,
        args.table_format.as_deref(),
        args.output_format.as_deref(),
        args.format.line_flags(),
        "a split of a table",
    )?;
    let seed = RunSeed::choose(args.seed.clone());
    if let Some(job) = table {
        let split = TableSplit { parts, key };
        return run_tables(&args, &job, split, memory, &seed);
    }
    let options = SplitOptions {
        parts,
        key,
        framing,
        delimiter,
        header: args.header,
        memory,
        seed: seed.text().to_owned(),
        temp_dir: args.temp_dir,
    };
    knuffle_sample::split(&args.files, &options, &outputs).map_err(cli_error)?;
    if args.verbose {
        eprintln!("knuffle split: --seed {}", seed.quoted());
    }
    Ok(ExitCode::SUCCESS)
}

/// Splits the rows of tables.
fn run_tables(
    args: &Args,
    job: &TableJob,
    split: TableSplit,
    memory: u64,
    seed: &RunSeed,
) -> Result<ExitCode, CliError> {
    let inputs: Vec<PathBuf> = args.files.iter().map(PathBuf::from).collect();
    let options = knuffle_table::Options {
        seed: seed.text().to_owned(),
        memory,
        temp_dir: args.temp_dir.clone(),
        format: job.format,
        output_format: job.output_format,
        count: None,
        compression: None,
        row_group_rows: None,
        infer_types: false,
    };
    let report = split_table(&inputs, &args.outputs, &options, &split).map_err(table_error)?;
    if args.verbose {
        let parts: Vec<String> = report.rows_out.iter().map(u64::to_string).collect();
        eprintln!(
            "knuffle split: --seed {}: {} rows in, {} out",
            seed.quoted(),
            report.rows_in,
            parts.join(" + ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
