//! The command line of `knuffle sample` (clap), and the [`Plan`]: the
//! options converted once, the mode and framing decided by the engine
//! (`knuffle_sample::SampleFlags`), the memory limit and the seed here.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser;

use knuffle_sample::{SampleFlags, SampleOptions};

use super::flag_names::CLI_NAMES;
use super::format::RecordFormat;
use super::status::cli_error;
use super::tables::{self, TablePlan};
use crate::emit;
use crate::failure::CliError;
use crate::seeding::RunSeed;

const ABOUT: &str = "Sample records: uniformly, by probability, or by weight";

const LONG_ABOUT: &str = "\
Sample the records of the FILEs (standard input when none, or for -): lines, NUL-ended
records with -z, or RFC 4180 CSV records with --csv (a quoted field may hold delimiters and
newlines; every record is written byte for byte as it was read). Several FILEs are read as one
sequence of records. With --header the first record of each FILE is its header: the first
FILE's is written first, and fields can be named by it.

Modes and their laws (the same --seed gives the same output):
  -n K          simple random sample: every set of K records (all of them when there are
                fewer) is equally likely, written in uniformly random order (input order
                with --inorder). Streams in O(K) memory: Li's reservoir Algorithm L, whose
                skip lengths come from 53-bit uniforms in double precision (each record's
                inclusion probability is K/N to within about 1e-15; a slot to evict is an
                exact uniform integer).
  -p P          Bernoulli: each record is kept independently with probability exactly P,
                in input order; P is a decimal (0.001: 1/1000) or a fraction (1/3). Each
                record draws an exact integer below the denominator (no floating point, no
                skip-ahead). O(1) memory: works on endless input.
  -w FIELD -n K weighted without replacement, the law of successive sampling (as numpy's
                choice(replace=False, p=) and pandas' sample(weights=)): the first record
                is drawn with probability weight/total, the next from the rest, and so
                on; written in the order drawn (--inorder: input order). Streams in O(K)
                memory: Efraimidis & Spirakis' A-ExpJ (2006), keys u^(1/w) from 53-bit
                uniforms with ln/exp in double precision, so the inclusion probabilities
                are exact up to double-precision rounding (integer weights included).
                Weights must be positive finite numbers; any other value (0, negative,
                NaN, inf, not a number) is an error naming the record, or with
                --skip-bad-weights the record is dropped (counted on standard error).
  -w FIELD      without -n: a weighted shuffle of every record (the same law, every
                record drawn): records written by decreasing key u^(1/w), ties in input
                order. In bounded memory (see below).
  -r [-n K]     with replacement: K independent draws (endless without -n), each record
                with probability exactly 1/N. Holds every record in memory (each draw needs
                N): the records' bytes and 8 bytes each (24 with -w); with -n K, inputs that
                do not fit are read twice instead (to count, then to collect the K draws;
                standard input is first copied to a nameless temporary file in -T DIR).
  -r -w FIELD   with replacement by weight: each draw picks a record with probability
                weight/total, exactly for integer weights (an exact integer draw below the
                total, which must stay below 2^64, then a search of the cumulative sums);
                float weights are scaled by one power of two to integers and rounded down
                (exact for binary fractions such as 0.5, otherwise off by less than about
                2N/2^61 each).
  -k FIELDS -p P
                distinct (by key): all records with the same key (the values of FIELDS) are
                kept or dropped together, each key with probability exactly P; the decision
                is SHA-256 of the seed and the key, so it is the same in every run, file and
                machine for the same --seed. O(1) memory, input order.
  --per-key N -k FIELDS
                stratified: from every key group a uniform sample of N records (all of a
                smaller group; every N-set of a group equally likely, groups independent),
                in input order. Memory: N records per group, and the keys.
  (no mode)     a uniform shuffle of every record in the table order of the seed (the order
                knuffle table gives the same rows): record i gets the table order's 32-bit
                label i, records are written by increasing label, records of equal label in
                the table order's tie order (every order exactly equally likely). In bounded memory:
                records beyond --memory are sorted in runs written to nameless temporary
                files (in -T DIR, or $TMPDIR or /tmp) and merged; the output for a --seed is
                the same whatever --memory is.
--print-random writes each record's random value before it (and a delimiter; the header
gets 'random_value'): for -p the record's draw j/b (kept when j/b < P), for -k -p its key's
draw, for -w the key u^(1/w) (the shortest decimal that reads back as the same double;
below 1e-300 a 7-digit mantissa and an exponent, from its logarithm). --gen-random-inorder
writes every record in input order with its value, sampled or not (for -w, without -n:
streaming, one record in memory).
The shuffles of every record (no mode, -w without -n) and -r -n K work on input of any size
in --memory (plus the longest record); the modes that hold their sample (-n K, --per-key N,
-r without -n) stop with an error (status 1) when it would exceed --memory.

Tables: when an input is a Parquet or Arrow file (told by its first bytes) or a directory of
shards, or --format or --output-format is given, or -o names a Parquet or Arrow file, the
rows of the tables are sampled (the formats and inputs of knuffle table: Parquet, Arrow,
CSV, TSV, JSON Lines, Hive folders) and written to -o FILE (required) as a table, every
column kept with its type. -k and -w name columns (or number them from 1). The modes -p,
-k -p, -n, -w [-n], --per-key and no mode have the laws above and make the same decisions:
a table and the CSV of its rows give the same sample for a --seed. A key's value is the
text knuffle table writes for it in CSV (a null: empty); a weight is a numeric column's
value or a text column's number. -w without -n sorts runs on disk beyond --memory. -r,
--print-random, --gen-random-inorder, -z and -d are for records of text.";

const EXAMPLES: &str = "\
Examples:
  knuffle sample -n 1000 big.log                 1000 lines, every 1000-set equally likely
  knuffle sample -n 10 --inorder data.tsv        10 lines in the order of the file
  knuffle sample -p 0.01 big.log                 about 1% of the lines, each with chance 1/100
  knuffle sample -p 1/3 --header data.tsv        a third, the header line kept on top
  knuffle sample --header -w weight -n 5 t.tsv   5 rows by the 'weight' column, first drawn first
  knuffle sample --csv --header -w 3 -n 5 t.csv  the same on CSV, field 3 as weight
  knuffle sample -r -n 100 dice.txt              100 draws with replacement
  knuffle sample -r -n 100 -w 2 prizes.tsv       100 draws with replacement, by field 2
  knuffle sample --seed s -k user -p 0.1 --header a.tsv b.tsv
                                                 10% of the users, every line of each
  knuffle sample --per-key 2 -k 1 data.tsv       2 lines for every value of field 1
  yes | knuffle sample -p 0.001 | head           endless input, constant memory
  knuffle sample -k user -p 0.1 shards/ -o users.parquet   10% of the users of a table
  knuffle sample -w weight -n 100 t.parquet -o s.csv        100 rows by the 'weight' column

Exit status: 0 success; 1 a read or write error, a bad weight or missing field in the data,
a sample larger than --memory; 2 invalid arguments (a bad P, K, field or header name).";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle sample",
    bin_name = "knuffle sample",
    // The flags as users type them (clap's own usage line in an error
    // names the long forms of the options given: --count for -n).
    override_usage = "knuffle sample [OPTIONS] [FILE]...",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// Sample K records (every K-set equally likely; with -w, successive sampling by weight).
    #[arg(short = 'n', long, value_name = "K", allow_negative_numbers = true)]
    count: Option<u64>,

    /// Keep each record independently with probability P (0.001 or 1/3; exact).
    #[arg(
        short = 'p',
        long = "prob",
        value_name = "P",
        allow_negative_numbers = true
    )]
    prob: Option<String>,

    /// Weight each record by FIELD (a number from 1, or a header name with --header).
    #[arg(short = 'w', long = "weight-field", value_name = "FIELD")]
    weight_field: Option<String>,

    /// Sample with replacement (endless without -n).
    #[arg(short = 'r', long)]
    replace: bool,

    /// Key fields (numbers from 1 or header names, comma-separated) for -p or --per-key.
    #[arg(short = 'k', long = "key-fields", value_name = "FIELDS")]
    key_fields: Option<String>,

    /// Stratified: a uniform sample of N records from every key group (with -k).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    per_key: Option<u64>,

    /// Drop records whose weight is not a positive finite number (counted on standard error).
    #[arg(long)]
    skip_bad_weights: bool,

    /// Write the sample of -n in input order instead of random (or drawn) order.
    #[arg(long)]
    inorder: bool,

    /// The first record of each FILE is a header: the first FILE's is written first.
    #[arg(long)]
    header: bool,

    #[command(flatten)]
    format: RecordFormat,

    /// Prefix each record with its random value and a delimiter (-p: the draw j/b; -k -p:
    /// the key's draw; -w without -r: the key u^(1/w)); the header gets random_value.
    #[arg(long)]
    print_random: bool,

    /// Write every record in input order with its random value (as --print-random), the
    /// sampled ones and the others: -p, -k -p, or -w without -n.
    #[arg(long)]
    gen_random_inorder: bool,

    /// Write the sample to FILE (replaced only once complete; may be an input; for tables,
    /// a table file).
    #[arg(short = 'o', long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    output: Option<PathBuf>,

    /// Sample tables of this format: parquet, arrow, arrows, csv, tsv, jsonl (default: from
    /// each file's extension; see Tables).
    #[arg(long = "format", value_name = "FORMAT")]
    table_format: Option<String>,

    /// A table sample's output format (default: FILE's extension, else the input's).
    #[arg(long, value_name = "FORMAT")]
    output_format: Option<String>,

    /// Seed text (any text); the same seed gives the same output.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// Use at most SIZE of memory for records held (512M, 4G, 10%; default 3/4 of the
    /// available memory).
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,

    /// Where temporary files go: the sorted runs of a shuffle larger than --memory, the
    /// copy of standard input for -r -n K (default: $TMPDIR or /tmp).
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

/// Everything decided from the command line.
pub struct Plan {
    /// The engine's options (the seed text chosen: the user's or a fresh one).
    pub options: SampleOptions,
    pub files: Vec<OsString>,
    pub output: Option<PathBuf>,
    /// With --verbose, the seed as `--seed` takes it (quoted for a shell).
    pub seed_shown: Option<String>,
    /// The inputs are tables (`None`: records of text).
    pub table: Option<TablePlan>,
}

impl Args {
    /// Decides the plan, or says what is wrong (status 2).
    pub fn plan(&self) -> Result<Plan, CliError> {
        let flags = SampleFlags {
            count: self.count,
            prob: self.prob.clone(),
            weights: self.weight_field.clone(),
            replace: self.replace,
            key: self.key_fields.clone(),
            per_key: self.per_key,
            skip_bad_weights: self.skip_bad_weights,
            in_order: self.inorder,
            print_random: self.print_random,
            gen_random_inorder: self.gen_random_inorder,
        };
        let mode = flags.mode(CLI_NAMES).map_err(cli_error)?;
        let (framing, delimiter) = self.format.decide()?;
        let random_values = flags.random_values(&mode, CLI_NAMES).map_err(cli_error)?;
        let memory = emit::memory_limit(self.memory.as_deref())?;
        let seed = RunSeed::choose(self.seed.clone());
        let options = SampleOptions {
            mode,
            framing,
            delimiter,
            header: self.header,
            in_order: self.inorder,
            skip_bad_weights: self.skip_bad_weights,
            random_values,
            memory,
            seed: seed.text().to_owned(),
            temp_dir: self.temp_dir.clone(),
        };
        options.validate().map_err(cli_error)?;
        let table = tables::decide(
            &self.files,
            self.output.as_deref(),
            self.table_format.as_deref(),
            self.output_format.as_deref(),
            self.format_flags(),
        )?;
        Ok(Plan {
            options,
            files: self.files.clone(),
            output: self.output.clone(),
            seed_shown: self.verbose.then(|| seed.quoted()),
            table,
        })
    }

    /// The first option given that only records of text take.
    fn format_flags(&self) -> Option<&'static str> {
        self.format.line_flags()
    }
}
