//! The I/O of a table job before its plan, and what it hands on: the
//! inputs listed, their schema read (the only input opened once; several
//! inputs each surveyed once, their Parquet layouts and footers kept for
//! the rows pass), the destination checked. These are the facts the plan
//! decides from (table_plan.rs); [`prepare`] gathers them, plans (the
//! output's format once the inputs are listed, before any is read; the
//! rest once their schema is), and returns what the job executes
//! ([`Prepared`]).

use std::path::PathBuf;

use arrow::datatypes::SchemaRef;

use crate::budget::Budget;
use crate::error::Error;
use crate::opening::Opening;
use crate::output::{Destination, WriteSettings};
use crate::source::{self, Source, Surveyed};
use crate::table_options::Options;
use crate::table_plan::{
    Failed, FooterShare, InputFacts, SchemaPass, SchemaRead, TableFacts, plan, plan_format,
};

/// The inputs of a run, their schema and the output's settings, with
/// everything checked that can be before a row is read.
pub(crate) struct Prepared {
    pub(crate) sources: Vec<Source>,
    pub(crate) schema: SchemaRef,
    /// The inputs as the schema pass left them (the only one opened).
    pub(crate) opening: Opening,
    pub(crate) settings: WriteSettings,
    pub(crate) budget: Budget,
}

/// Gathers the facts of a job reading `inputs` into `destination`, plans
/// it, and hands on the inputs as their schema pass left them. No input
/// is read for a job refused once they are listed (`plan_format`).
pub(crate) fn prepare(
    inputs: &[PathBuf],
    destination: &Destination,
    options: &Options,
) -> Result<Prepared, Error> {
    let (sources, listed) = match source::list(inputs, options.format) {
        // Listing gives one input at least.
        Ok(sources) => {
            let first = sources[0].format;
            (sources, Ok(first))
        }
        Err(error) => (Vec::new(), Err(error)),
    };
    let format = plan_format(listed, destination, options)?;
    let (facts, opening) = gather(&sources, destination, options);
    let plan = plan(facts, format, destination, options)?;
    Ok(Prepared {
        sources,
        schema: plan.schema,
        opening,
        settings: plan.settings,
        budget: plan.budget,
    })
}

/// The facts of a job once its inputs (`sources`) are listed: every I/O
/// step in order, up to the first that fails (its error is a fact too).
fn gather(
    sources: &[Source],
    destination: &Destination,
    options: &Options,
) -> (TableFacts, Opening) {
    let pass = SchemaPass::of(sources.len(), options.infer_types, options.memory);
    let mut facts = TableFacts::default();
    let (surveyed, opening) = match read_schema(sources, pass) {
        Ok(read) => read,
        Err(error) => {
            facts.inputs = input_facts(sources, Vec::new());
            facts.failed = Some(Failed::Schema(error));
            return (facts, Opening::default());
        }
    };
    let (schema, layouts) = surveyed;
    facts.inputs = input_facts(sources, layouts);
    facts.schema = Some(schema);
    if let Err(error) = destination.check() {
        facts.failed = Some(Failed::Destination(error));
    }
    (facts, opening)
}

/// What is known of each of `sources`, with their Parquet `layouts` (by
/// index; none when not read).
fn input_facts(
    sources: &[Source],
    layouts: Vec<Option<crate::layout::ParquetLayout>>,
) -> Vec<InputFacts> {
    let mut layouts = layouts.into_iter();
    sources
        .iter()
        .map(|source| InputFacts {
            path: source.path.clone(),
            layout: layouts.next().flatten(),
        })
        .collect()
}

/// A schema read and the Parquet layouts of the inputs (by index).
type SchemaAndLayouts = (SchemaRef, Vec<Option<crate::layout::ParquetLayout>>);

/// The schema of `sources` read as `pass` says, their layouts, and what
/// the rows pass is left.
pub(crate) fn read_schema(
    sources: &[Source],
    pass: SchemaPass,
) -> Result<(SchemaAndLayouts, Opening), Error> {
    let mut share = FooterShare::of(pass.footer_share);
    let mut keep = |footer: &crate::parquet_in::Footer| share.admits(footer.bytes());
    match (pass.read, sources) {
        (SchemaRead::OnlyInput, [only]) => {
            let (opened, footer) = source::survey(only, pass.reading)?;
            let layouts = vec![opened.parquet.clone()];
            let footer = footer.filter(|footer| keep(footer));
            let schema = opened.schema.clone();
            Ok(((schema, layouts), Opening::new(Some(opened), vec![footer])))
        }
        (SchemaRead::InferTypes, _) => {
            let (schema, surveyed) =
                crate::csv_infer::common_schema(sources, pass.reading, &mut keep)?;
            let (_, layouts, footers) = unzip(surveyed);
            Ok(((schema, layouts), Opening::new(None, footers)))
        }
        _ => {
            let (schemas, layouts, footers) = unzip(source::survey_all(sources, &mut keep)?);
            let schema = source::merge_schemas(sources, schemas)?;
            Ok(((schema, layouts), Opening::new(None, footers)))
        }
    }
}

/// The schemas, layouts and footers of the inputs surveyed, each by index.
type Unzipped = (
    Vec<SchemaRef>,
    Vec<Option<crate::layout::ParquetLayout>>,
    Vec<Option<crate::parquet_in::Footer>>,
);

/// `surveyed`, field by field.
fn unzip(surveyed: Vec<Surveyed>) -> Unzipped {
    let mut unzipped: Unzipped = (Vec::new(), Vec::new(), Vec::new());
    for Surveyed {
        schema,
        layout,
        footer,
    } in surveyed
    {
        unzipped.0.push(schema);
        unzipped.1.push(layout);
        unzipped.2.push(footer);
    }
    unzipped
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use arrow::array::{Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Field, Schema};
    use knuffle_sample::{Mode, Parts};
    use parquet::arrow::ArrowWriter;

    use super::*;
    use crate::parquet_in::FOOTER_READS;
    use crate::sample::{TableSample, sample_table};
    use crate::shuffle::shuffle_table;
    use crate::split::{TableSplit, split_table};
    use crate::table_plan::reading;

    /// Writes `shards` Parquet files of 10 rows each in `dir` (made), and
    /// returns their paths.
    fn shards(dir: &Path, shards: usize) -> Vec<PathBuf> {
        std::fs::create_dir_all(dir).unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        (0..shards)
            .map(|s| {
                let path = dir.join(format!("part-{s}.parquet"));
                let file = std::fs::File::create(&path).unwrap();
                let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
                let values = Int64Array::from_iter_values((0..10).map(|i| (s * 10 + i) as i64));
                let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap();
                writer.write(&batch).unwrap();
                writer.close().unwrap();
                path
            })
            .collect()
    }

    fn options() -> Options {
        Options {
            seed: "opened once".into(),
            memory: 64 << 20,
            temp_dir: None,
            format: None,
            output_format: None,
            count: None,
            compression: None,
            row_group_rows: None,
            infer_types: false,
        }
    }

    /// The footers read on this thread while `job` runs.
    fn footers_read(job: impl FnOnce()) -> usize {
        let before = FOOTER_READS.with(|reads| reads.get());
        job();
        FOOTER_READS.with(|reads| reads.get()) - before
    }

    #[test]
    fn each_input_footer_is_read_once_per_job() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let one = shards(&dir.path().join("one"), 1);
        let three = shards(&dir.path().join("three"), 3);
        for inputs in [&one, &three] {
            let n = inputs.len();
            let output = out.join(format!("shuffled-{n}.parquet"));
            let read = footers_read(|| {
                let report = shuffle_table(inputs, &Destination::File(output), &options());
                assert_eq!(report.unwrap().rows_out, 10 * n as u64);
            });
            assert_eq!(read, n, "shuffle of {n}");
            let output = out.join(format!("typed-{n}.parquet"));
            let typed = Options {
                infer_types: true,
                ..options()
            };
            let read = footers_read(|| {
                shuffle_table(inputs, &Destination::File(output), &typed).unwrap();
            });
            assert_eq!(read, n, "--infer-types of {n}");
            let output = out.join(format!("first-{n}.csv"));
            let sample = Options {
                count: Some(5),
                ..options()
            };
            let read = footers_read(|| {
                shuffle_table(inputs, &Destination::File(output), &sample).unwrap();
            });
            assert_eq!(read, n, "-n of {n}");
            let output = out.join(format!("in-order-{n}.csv"));
            let in_order = TableSample {
                mode: Mode::Uniform { count: Some(5) },
                in_order: true,
                skip_bad_weights: false,
            };
            let read = footers_read(|| {
                sample_table(inputs, &output, &options(), &in_order).unwrap();
            });
            assert_eq!(read, n, "sample of {n}");
            let parts = [
                out.join(format!("a-{n}.csv")),
                out.join(format!("b-{n}.csv")),
            ];
            let split = TableSplit {
                parts: Parts::parse("1,1").unwrap(),
                key: None,
            };
            // An exact split reads the rows twice (counting, then
            // assigning), each footer once.
            let read = footers_read(|| {
                split_table(inputs, &parts, &options(), &split).unwrap();
            });
            assert_eq!(read, n, "split of {n}");
        }
    }

    #[test]
    fn footers_beyond_their_share_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let paths = shards(dir.path(), 3);
        let sources = source::list(&paths, None).unwrap();
        for (share, expected) in [(64 << 20, 3), (0, 6)] {
            let pass = SchemaPass {
                footer_share: share,
                ..SchemaPass::of(3, false, 64 << 20)
            };
            let read = footers_read(|| {
                let ((schema, _), mut opening) = read_schema(&sources, pass).unwrap();
                let reading = reading(&crate::budget::Budget::of(64 << 20));
                for (index, source) in sources.iter().enumerate() {
                    let opened = opening.open(index, source, &schema, reading).unwrap();
                    let rows: usize = opened.batches.map(|b| b.unwrap().num_rows()).sum();
                    assert_eq!(rows, 10);
                }
            });
            assert_eq!(read, expected, "a share of {share} bytes");
        }
    }
}
