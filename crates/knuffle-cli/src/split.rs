//! `knuffle split`: the command line of the split engine
//! (`knuffle_sample::split`, where the sizes, the assignment and
//! its law live): clap, then the engine, its errors translated as
//! `knuffle sample`'s are (invalid options: status 2; else 1).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use knuffle_sample::{FieldName, Parts, SplitOptions};

use crate::emit;
use crate::failure::CliError;
use crate::sample::{RecordFormat, cli_error};
use crate::seeding::RunSeed;

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
never truncates an existing file.";

const EXAMPLES: &str = "\
Examples:
  knuffle split --parts 80,10,10 -o train.tsv -o valid.tsv -o test.tsv data.tsv
  knuffle split --parts 0.9,0.1 --header --csv -o train.csv -o test.csv data.csv
  knuffle split --seed s --parts 80,20 -k user --header -o a.tsv -o b.tsv logs1.tsv logs2.tsv
                                                   every user's lines in one part
  cat data.txt | knuffle split --parts 1,1 -o half1.txt -o half2.txt

Exit status: 0 success; 1 a read or write error, a record without a key field, a record
larger than --memory; 2 invalid arguments (bad parts, a wrong number of -o, a bad field).";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle split",
    bin_name = "knuffle split",
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

    /// The longest record allowed, as a size (512M, 4G, 10%; default 3/4 of the
    /// available memory).
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,

    /// Where standard input is copied for counting (default: $TMPDIR or /tmp).
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR",
          value_hint = clap::ValueHint::DirPath)]
    temp_dir: Option<PathBuf>,

    /// Print the seed used (the one given, or the fresh one) to standard error.
    #[arg(short, long)]
    verbose: bool,

    /// Input files (standard input when none, or for -).
    #[arg(value_name = "FILE")]
    files: Vec<OsString>,
}

/// Runs `knuffle split` with the arguments after `split`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle split", args)?;
    let parts = Parts::parse(&args.parts).map_err(cli_error)?;
    let key = match &args.key_fields {
        Some(fields) => Some(FieldName::parse_list("-k", fields).map_err(cli_error)?),
        None => None,
    };
    let (framing, delimiter) = args.format.decide()?;
    let memory = emit::memory_limit(args.memory.as_deref())?;
    let seed = RunSeed::choose(args.seed);
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
    let outputs: Vec<&Path> = args.outputs.iter().map(PathBuf::as_path).collect();
    knuffle_sample::split(&args.files, &options, &outputs).map_err(cli_error)?;
    if args.verbose {
        eprintln!("knuffle split: --seed {}", seed.quoted());
    }
    Ok(ExitCode::SUCCESS)
}
