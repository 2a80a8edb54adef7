//! The plan of a table job (shuffle, `-n`, sample, split), decided from
//! facts alone. A job runs in three steps: its facts are gathered (all its
//! I/O before a row is read: the inputs listed, their schema and Parquet
//! layouts read, the destination checked; table_facts.rs), then the plan
//! decides from those facts and the [`Options`] (no file opened, no path
//! looked at, nothing read), then the job executes the plan. The plan is
//! decided in two steps, so that nothing is read for a job refused before
//! (its options, or its output's name): [`plan_format`] once the inputs are
//! listed, [`plan`] once their schema is read. This module
//! owns the decisions: how the schema is read ([`SchemaPass`]), how the
//! memory limit is shared ([`Budget`]) and inputs are read ([`reading`]),
//! which footers stay open for the rows pass ([`FooterShare`]), the
//! output's format, layout and batches ([`TablePlan`]) and the refusals
//! before a row is read (as the rows come, hold_plan.rs decides whether
//! they are held in memory or go through bucket files).

use std::path::PathBuf;

use arrow::datatypes::SchemaRef;

use crate::budget::Budget;
use crate::error::Error;
use crate::format::Format;
use crate::layout::ParquetLayout;
use crate::output::{Destination, WriteSettings};
use crate::output_plan::{
    check_column_writers, check_width, output_format, parquet_layout, write_rows,
};
use crate::source::Reading;
use crate::table_options::Options;

/// Rows per batch read from the inputs.
pub const BATCH_ROWS: usize = 8192;

/// Footers kept open for the rows pass at most (each holds a descriptor:
/// a small part of the 64 descriptors that the check of a job's open
/// files, open_files.rs, leaves beside its shards).
pub(crate) const KEPT_FOOTERS: usize = 16;

/// How the inputs' schema is read, before their rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaRead {
    /// `--infer-types`: every CSV value read first (csv_infer.rs).
    InferTypes,
    /// The only input, opened once: its schema, then its rows from there
    /// (it may be a pipe).
    OnlyInput,
    /// Each input opened for its schema (regular files only), the schemas
    /// merged; the rows read in a second pass.
    EachInput,
}

/// The schema pass: how it reads, and how much memory the footers it
/// keeps for the rows pass may take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SchemaPass {
    /// How the schema is read.
    pub(crate) read: SchemaRead,
    /// How the only input is read (its rows too).
    pub(crate) reading: Reading,
    /// Bytes the decoded footers kept for the rows pass may take in all.
    pub(crate) footer_share: u64,
}

impl SchemaPass {
    /// The schema pass of `inputs` inputs (CSV columns typed from all
    /// their values: `infer_types`) for a job of `memory` bytes.
    pub(crate) fn of(inputs: usize, infer_types: bool, memory: u64) -> SchemaPass {
        let budget = Budget::of(memory);
        let read = match inputs {
            _ if infer_types => SchemaRead::InferTypes,
            1 => SchemaRead::OnlyInput,
            _ => SchemaRead::EachInput,
        };
        SchemaPass {
            read,
            reading: reading(&budget),
            footer_share: footer_share(&budget),
        }
    }
}

/// Footers are kept for the rows pass while they take at most a quarter
/// of what the limit keeps back for the readers' buffers
/// ([`Budget::reserve`]: the rows' and the writer's shares stay whole, and
/// each footer alone is checked against the whole limit when read,
/// parquet_footer.rs); with many shards the rest are read again when
/// their rows are.
pub(crate) fn footer_share(budget: &Budget) -> u64 {
    budget.reserve() / 4
}

/// Which footers stay open: each while the ones kept so far and it fit
/// the share, and at most [`KEPT_FOOTERS`] of them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FooterShare {
    left: u64,
    kept: usize,
}

impl FooterShare {
    /// Footers kept in `bytes`.
    pub(crate) fn of(bytes: u64) -> FooterShare {
        FooterShare {
            left: bytes,
            kept: 0,
        }
    }

    /// Whether a footer of `bytes` is kept (and counted if so).
    pub(crate) fn admits(&mut self, bytes: u64) -> bool {
        if bytes > self.left || self.kept >= KEPT_FOOTERS {
            return false;
        }
        self.left -= bytes;
        self.kept += 1;
        true
    }
}

/// Inputs are read in batches of [`BATCH_ROWS`] (fewer when a batch would
/// take more than an eighth of the rows' share of memory); Parquet row
/// groups are decoded several at once when they take at most a quarter of
/// the rows' share of memory.
pub(crate) fn reading(budget: &Budget) -> Reading {
    Reading {
        batch_rows: BATCH_ROWS,
        parallel_bytes: budget.rows / 4,
        memory: budget.total,
        batch_memory: (budget.rows / 8).max(256 << 10),
    }
}

/// What an input is known to be when the job is planned.
#[derive(Clone, Debug)]
pub(crate) struct InputFacts {
    /// Its path (for messages).
    pub(crate) path: PathBuf,
    /// A Parquet file's layout, as its footer says.
    pub(crate) layout: Option<ParquetLayout>,
}

/// An I/O step of the gathering after the inputs are listed that failed:
/// the steps after it were not taken, and the plan reports its error where
/// the step stands among the plan's own refusals (so the first refusal is
/// the one it always was).
#[derive(Debug)]
pub(crate) enum Failed {
    /// Reading their schema (before the width is checked).
    Schema(Error),
    /// Checking the destination (before its column and names are).
    Destination(Error),
}

/// What the I/O learnt before the plan.
#[derive(Debug, Default)]
pub(crate) struct TableFacts {
    /// The inputs, in order.
    pub(crate) inputs: Vec<InputFacts>,
    /// Their one schema (none when the gathering stopped before it).
    pub(crate) schema: Option<SchemaRef>,
    /// The I/O step that failed, if one did.
    pub(crate) failed: Option<Failed>,
}

/// The decisions of a job, before a row is read.
#[derive(Clone, Debug)]
pub(crate) struct TablePlan {
    /// The rows' schema.
    pub(crate) schema: SchemaRef,
    /// How the memory limit is shared (the inputs are read for their rows
    /// as [`reading`] says of it).
    pub(crate) budget: Budget,
    /// How the output is written (each part's, for a split).
    pub(crate) settings: WriteSettings,
}

/// The first decisions of a job writing `destination` under `options`,
/// once its inputs are listed (`listed`: the first one's format, or why
/// they could not be): the options checked, then the output's format.
pub(crate) fn plan_format(
    listed: Result<Format, Error>,
    destination: &Destination,
    options: &Options,
) -> Result<Format, Error> {
    options.validate()?;
    output_format(destination, options.output_format, listed?)
}

/// The rest of the plan of a job writing `destination` under `options` in
/// `format` ([`plan_format`]), from `facts`: the refusals in the order the
/// user has always seen them, then the output's Parquet layout, writer
/// memory and rows per written batch (a split's parts share one writer's
/// memory and batches).
pub(crate) fn plan(
    facts: TableFacts,
    format: Format,
    destination: &Destination,
    options: &Options,
) -> Result<TablePlan, Error> {
    let TableFacts {
        inputs,
        schema,
        failed,
    } = facts;
    let budget = Budget::of(options.memory);
    let schema = match (failed, schema) {
        (Some(Failed::Schema(error)), _) => return Err(error),
        (failed, Some(schema)) => {
            check_width(&schema, budget.total).map_err(|e| match inputs.as_slice() {
                [only] => e.context(only.path.display()),
                _ => e,
            })?;
            if let Some(Failed::Destination(error)) = failed {
                return Err(error);
            }
            schema
        }
        (failed, None) => unreachable!("no schema without a failure before it: {failed:?}"),
    };
    if let Destination::Partitioned(_, column) = destination {
        crate::partition_out::check_column(&schema, column)?;
    }
    crate::output::compression(destination, format)?;
    let layouts: Vec<&ParquetLayout> = inputs.iter().filter_map(|i| i.layout.as_ref()).collect();
    let parquet = parquet_layout(&layouts, options.compression, options.row_group_rows);
    if format == Format::Parquet {
        check_column_writers(&schema, budget.total, 1)?;
    }
    // Every part of a split has its writer open at once: their columns
    // must fit, and they share the memory and batches of one.
    let (writer_memory, batches_out) = match destination {
        Destination::Parts(_, parts) => {
            let writers = parts.len().max(1);
            if format == Format::Parquet {
                check_column_writers(&schema, budget.total, writers as u64)?;
            }
            (
                (budget.writer / writers).max(1),
                budget.batches_out() / writers as u64,
            )
        }
        _ => (budget.writer, budget.batches_out()),
    };
    let settings = WriteSettings {
        format,
        parquet,
        writer_memory,
        write_rows: write_rows(&schema, batches_out),
    };
    Ok(TablePlan {
        schema,
        budget,
        settings,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{DataType, Field, Schema};
    use knuffle_sample::Parts;
    use parquet::basic::Compression;

    use super::*;
    use crate::output::ShardSplit;

    const MIB: u64 = 1 << 20;
    const CSV: Format = Format::Csv(b',');

    fn schema(columns: usize) -> SchemaRef {
        let fields: Vec<Field> = (0..columns)
            .map(|c| Field::new(format!("c{c}"), DataType::Int64, true))
            .collect();
        Arc::new(Schema::new(fields))
    }

    fn file(name: &str) -> Destination {
        Destination::File(name.into())
    }

    fn parts(names: &[&str], shares: &str) -> Destination {
        let paths = names.iter().map(PathBuf::from).collect();
        Destination::Parts(paths, Parts::parse(shares).unwrap())
    }

    fn options(memory: u64) -> Options {
        Options {
            seed: "plan".into(),
            memory,
            temp_dir: None,
            format: None,
            output_format: None,
            count: None,
            compression: None,
            row_group_rows: None,
            infer_types: false,
        }
    }

    fn layout(compression: Compression, row_group_rows: usize) -> Option<ParquetLayout> {
        Some(ParquetLayout {
            compression,
            row_group_rows,
            ..ParquetLayout::default()
        })
    }

    /// The I/O step a row's facts say failed.
    #[derive(Clone, Copy)]
    enum Step {
        Listing,
        Schema,
        Destination,
    }

    /// One row of the planner's table: the facts, the options, the
    /// destination, and the decisions expected.
    struct Row {
        what: &'static str,
        inputs: Vec<(&'static str, Format, Option<ParquetLayout>)>,
        columns: usize,
        failed: Option<Step>,
        destination: Destination,
        options: Options,
        expected: Result<Decided, &'static str>,
    }

    /// The decisions a row checks.
    #[derive(Debug, PartialEq)]
    struct Decided {
        format: Format,
        compression: Compression,
        row_group_rows: usize,
        writer_memory: usize,
        write_rows: usize,
    }

    fn decided(
        format: Format,
        (compression, row_group_rows): (Compression, usize),
        writer_memory: usize,
        write_rows: usize,
    ) -> Result<Decided, &'static str> {
        Ok(Decided {
            format,
            compression,
            row_group_rows,
            writer_memory,
            write_rows,
        })
    }

    fn run(row: Row) {
        let listed = match (row.failed, row.inputs.first()) {
            (Some(Step::Listing), _) | (_, None) => Err(Error::invalid("in.csv: cannot be listed")),
            (_, Some(&(_, format, _))) => Ok(format),
        };
        let failed = row.failed.and_then(|step| match step {
            Step::Listing => None,
            Step::Schema => Some(Failed::Schema(Error::invalid("in.csv: a bad header"))),
            Step::Destination => Some(Failed::Destination(Error::invalid("out: not writable"))),
        });
        let facts = TableFacts {
            inputs: row
                .inputs
                .into_iter()
                .map(|(path, _, layout)| InputFacts {
                    path: path.into(),
                    layout,
                })
                .collect(),
            schema: matches!(row.failed, None | Some(Step::Destination))
                .then(|| schema(row.columns)),
            failed,
        };
        let got = plan_format(listed, &row.destination, &row.options);
        let got = got.and_then(|format| plan(facts, format, &row.destination, &row.options));
        let got = got.map(|plan| Decided {
            format: plan.settings.format,
            compression: plan.settings.parquet.compression,
            row_group_rows: plan.settings.parquet.row_group_rows,
            writer_memory: plan.settings.writer_memory,
            write_rows: plan.settings.write_rows,
        });
        let got = got.as_ref().map_err(|e| e.message());
        assert_eq!(got, row.expected.as_ref().map_err(|e| *e), "{}", row.what);
    }

    /// Defaults of a Parquet output without Parquet inputs.
    const DEFAULT_LAYOUT: (Compression, usize) =
        (Compression::SNAPPY, crate::layout::DEFAULT_ROW_GROUP_ROWS);

    #[test]
    fn the_plan_of_each_job() {
        let (snappy, zstd) = (Compression::SNAPPY, Compression::ZSTD(Default::default()));
        // Budget::of: 200 MiB gives the writer 40 MiB and 2,696,338 bytes
        // of batches out; 4 MiB 838,860 and 50,556; 1 MiB 209,715 and
        // 18,724. Rows per written batch: the largest power of two up to
        // 8,192 whose batch takes those bytes at 16 bytes a field.
        let rows = vec![
            Row {
                what: "one CSV file, Parquet output by its name, 200 MiB",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.parquet"),
                options: options(200 * MIB),
                expected: decided(Format::Parquet, DEFAULT_LAYOUT, 41_943_040, 8192),
            },
            Row {
                what: "a pipe to standard output keeps the input's format",
                inputs: vec![("/dev/stdin", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("/dev/stdout"),
                options: options(200 * MIB),
                expected: decided(CSV, DEFAULT_LAYOUT, 41_943_040, 8192),
            },
            Row {
                what: "4 MiB: smaller written batches",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.arrow"),
                options: options(4 * MIB),
                expected: decided(Format::ArrowFile, DEFAULT_LAYOUT, 838_860, 1024),
            },
            Row {
                what: "1 MiB: smaller still",
                inputs: vec![("in.jsonl", Format::JsonLines, None)],
                columns: 3,
                failed: None,
                destination: file("out.jsonl"),
                options: options(MIB),
                expected: decided(Format::JsonLines, DEFAULT_LAYOUT, 209_715, 256),
            },
            Row {
                what: "several Parquet shards: the first's compression, the largest row group",
                inputs: vec![
                    ("a.parquet", Format::Parquet, layout(snappy, 1000)),
                    ("b.csv", CSV, None),
                    ("c.parquet", Format::Parquet, layout(zstd, 5000)),
                ],
                columns: 3,
                failed: None,
                destination: Destination::Shards("out".into(), ShardSplit::Count(4)),
                options: options(200 * MIB),
                expected: decided(Format::Parquet, (snappy, 5000), 41_943_040, 8192),
            },
            Row {
                what: "--compression and --row-group-rows override the inputs'",
                inputs: vec![("a.parquet", Format::Parquet, layout(snappy, 1000))],
                columns: 3,
                failed: None,
                destination: file("out.parquet"),
                options: Options {
                    compression: Some(zstd),
                    row_group_rows: Some(10),
                    ..options(200 * MIB)
                },
                expected: decided(Format::Parquet, (zstd, 10), 41_943_040, 8192),
            },
            Row {
                what: "-n changes no decision before the rows",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.csv"),
                options: Options {
                    count: Some(10),
                    ..options(4 * MIB)
                },
                expected: decided(CSV, DEFAULT_LAYOUT, 838_860, 1024),
            },
            Row {
                what: "--output-format over a name of no table format",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.txt"),
                options: Options {
                    output_format: Some(Format::JsonLines),
                    ..options(200 * MIB)
                },
                expected: decided(Format::JsonLines, DEFAULT_LAYOUT, 41_943_040, 8192),
            },
            Row {
                what: "a name of no table format",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.txt"),
                options: options(200 * MIB),
                expected: Err(
                    "out.txt: '.txt' is not the extension of a table format; name \
                               the output's format with --output-format (parquet, arrow, \
                               arrows, csv, tsv, jsonl)",
                ),
            },
            Row {
                what: "a Parquet file compressed as a whole",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: file("out.parquet.gz"),
                options: options(200 * MIB),
                expected: Err("out.parquet.gz: a Parquet file is compressed inside \
                               (--compression for Parquet), not as a whole: drop the .gz from \
                               the name"),
            },
            Row {
                what: "one input too wide for the limit: named",
                inputs: vec![("in.csv", CSV, None)],
                columns: 2000,
                failed: None,
                destination: file("out.csv"),
                options: options(MIB),
                expected: Err(
                    "in.csv: a table of 2000 columns takes about 2 MiB in memory \
                               whatever its rows (an array of each column in every batch), \
                               more than the memory limit (1 MiB); raise the memory limit \
                               (--memory)",
                ),
            },
            Row {
                what: "several inputs too wide: no input named",
                inputs: vec![("a.csv", CSV, None), ("b.csv", CSV, None)],
                columns: 2000,
                failed: None,
                destination: file("out.csv"),
                options: options(MIB),
                expected: Err(
                    "a table of 2000 columns takes about 2 MiB in memory whatever \
                               its rows (an array of each column in every batch), more than \
                               the memory limit (1 MiB); raise the memory limit (--memory)",
                ),
            },
            Row {
                what: "a wide Arrow output: 32 rows per written batch",
                inputs: vec![("in.csv", CSV, None)],
                columns: 5000,
                failed: None,
                destination: file("out.arrow"),
                options: options(200 * MIB),
                expected: decided(Format::ArrowFile, DEFAULT_LAYOUT, 41_943_040, 32),
            },
            Row {
                what: "wide Parquet output: its column writers refused",
                inputs: vec![("in.csv", CSV, None)],
                columns: 5000,
                failed: None,
                destination: file("out.parquet"),
                options: options(200 * MIB),
                expected: Err(
                    "a Parquet output of 5000 columns takes about 59 MiB to write, \
                               more than the memory limit allows its writer (40 MiB); raise \
                               the memory limit (--memory) or write Arrow IPC",
                ),
            },
            Row {
                what: "split in 3 parts: one writer's memory and batches shared",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: parts(&["a.csv", "b.csv", "c.csv"], "80,10,10"),
                options: options(4 * MIB),
                expected: decided(CSV, DEFAULT_LAYOUT, 279_620, 256),
            },
            Row {
                what: "split in 3 Parquet parts of 1000 columns: their writers fit",
                inputs: vec![("in.csv", CSV, None)],
                columns: 1000,
                failed: None,
                destination: parts(&["a.parquet", "b.parquet", "c.parquet"], "1,1,1"),
                options: options(200 * MIB),
                expected: decided(Format::Parquet, DEFAULT_LAYOUT, 13_981_013, 32),
            },
            Row {
                what: "split in 4 Parquet parts of 1000 columns: their writers do not",
                inputs: vec![("in.csv", CSV, None)],
                columns: 1000,
                failed: None,
                destination: parts(
                    &["a.parquet", "b.parquet", "c.parquet", "d.parquet"],
                    "1,1,1,1",
                ),
                options: options(200 * MIB),
                expected: Err(
                    "a Parquet output of 1000 columns takes about 47 MiB to write, \
                               more than the memory limit allows its writer (40 MiB); raise \
                               the memory limit (--memory) or write Arrow IPC",
                ),
            },
            Row {
                what: "split parts of two formats",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: parts(&["a.csv", "b.jsonl"], "1,1"),
                options: options(200 * MIB),
                expected: Err(
                    "b.jsonl: the parts are written as CSV (one format for every \
                               part; --output-format chooses it)",
                ),
            },
            Row {
                what: "partitioned by a column that is not there",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: None,
                destination: Destination::Partitioned("out".into(), "nope".into()),
                options: options(200 * MIB),
                expected: Err("--partition-by nope: no such column (the columns: c0, c1, c2)"),
            },
            Row {
                what: "partitioned by a column: the input's format",
                inputs: vec![("in.jsonl", Format::JsonLines, None)],
                columns: 3,
                failed: None,
                destination: Destination::Partitioned("out".into(), "c1".into()),
                options: options(200 * MIB),
                expected: decided(Format::JsonLines, DEFAULT_LAYOUT, 41_943_040, 8192),
            },
            // The refusals in the order the user has always seen them.
            Row {
                what: "--row-group-rows 0 before the inputs are listed",
                inputs: vec![],
                columns: 3,
                failed: Some(Step::Listing),
                destination: file("out.csv"),
                options: Options {
                    row_group_rows: Some(0),
                    ..options(200 * MIB)
                },
                expected: Err("--row-group-rows must be at least 1"),
            },
            Row {
                what: "inputs that cannot be listed before a bad output name",
                inputs: vec![],
                columns: 3,
                failed: Some(Step::Listing),
                destination: file("out.txt"),
                options: options(200 * MIB),
                expected: Err("in.csv: cannot be listed"),
            },
            Row {
                what: "a bad output name before a bad input",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: Some(Step::Schema),
                destination: file("out.txt"),
                options: options(200 * MIB),
                expected: Err(
                    "out.txt: '.txt' is not the extension of a table format; name \
                               the output's format with --output-format (parquet, arrow, \
                               arrows, csv, tsv, jsonl)",
                ),
            },
            Row {
                what: "a bad input before its width",
                inputs: vec![("in.csv", CSV, None)],
                columns: 2000,
                failed: Some(Step::Schema),
                destination: file("out.csv"),
                options: options(MIB),
                expected: Err("in.csv: a bad header"),
            },
            Row {
                what: "the width before the destination",
                inputs: vec![("in.csv", CSV, None)],
                columns: 2000,
                failed: Some(Step::Destination),
                destination: file("out.csv"),
                options: options(MIB),
                expected: Err(
                    "in.csv: a table of 2000 columns takes about 2 MiB in memory \
                               whatever its rows (an array of each column in every batch), \
                               more than the memory limit (1 MiB); raise the memory limit \
                               (--memory)",
                ),
            },
            Row {
                what: "the destination before the partition column",
                inputs: vec![("in.csv", CSV, None)],
                columns: 3,
                failed: Some(Step::Destination),
                destination: Destination::Partitioned("out".into(), "nope".into()),
                options: options(200 * MIB),
                expected: Err("out: not writable"),
            },
        ];
        for row in rows {
            run(row);
        }
    }

    #[test]
    fn the_schema_pass_of_each_job() {
        // (inputs, --infer-types, memory) -> (how, batch rows, row groups
        // decoded at once in, a batch's memory, the footers' share).
        use SchemaRead::{EachInput, InferTypes, OnlyInput};
        // The footers' share: a quarter of the reserve (16 MiB, or an
        // eighth of a smaller limit).
        let table = [
            (
                1,
                false,
                200 * MIB,
                OnlyInput,
                37_748_736,
                18_874_368,
                4_194_304,
            ),
            (
                3,
                false,
                200 * MIB,
                EachInput,
                37_748_736,
                18_874_368,
                4_194_304,
            ),
            (
                1,
                true,
                200 * MIB,
                InferTypes,
                37_748_736,
                18_874_368,
                4_194_304,
            ),
            (3, true, 4 * MIB, InferTypes, 707_789, 353_894, 131_072),
            (1, false, MIB, OnlyInput, 262_144, 262_144, 32_768),
        ];
        for (inputs, infer, memory, read, parallel, batch, share) in table {
            let pass = SchemaPass::of(inputs, infer, memory);
            let got = (
                pass.read,
                pass.reading.batch_rows,
                pass.reading.parallel_bytes,
                pass.reading.batch_memory,
                pass.reading.memory,
                pass.footer_share,
            );
            let expected = (read, BATCH_ROWS, parallel, batch, memory, share);
            assert_eq!(got, expected, "{inputs} inputs, {infer}, {memory}");
        }
    }

    #[test]
    fn footers_are_kept_while_they_fit_their_share() {
        // (share, footers' bytes) -> which are kept.
        let table: [(u64, &[u64], &[bool]); 5] = [
            (0, &[1, 1], &[false, false]),
            (100, &[40, 40, 40], &[true, true, false]),
            (100, &[40, 70, 20], &[true, false, true]),
            (100, &[100, 1], &[true, false]),
            (4_194_304, &[5_000, 5_000], &[true, true]),
        ];
        for (share, footers, kept) in table {
            let mut rule = FooterShare::of(share);
            let got: Vec<bool> = footers.iter().map(|&b| rule.admits(b)).collect();
            assert_eq!(got, kept, "{share}: {footers:?}");
        }
        // At most KEPT_FOOTERS descriptors, whatever the share.
        let mut rule = FooterShare::of(u64::MAX);
        let kept = (0..KEPT_FOOTERS + 5).filter(|_| rule.admits(1)).count();
        assert_eq!(kept, KEPT_FOOTERS);
    }
}
