//! `--infer-types`' first pass: the CSV and TSV inputs read once before
//! the shuffle, every value of every input seen, and the common schema
//! with their columns typed (the rule for a column's type is `csv_types`').

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray};
use arrow::datatypes::{DataType, SchemaRef};
use rayon::prelude::*;

use crate::csv_types::Candidates;
use crate::error::Error;
use crate::format::Format;
use crate::parquet_in::Footer;
use crate::source::{self, Reading, Source, Surveyed};

/// The common schema of `sources` (source.rs) with the CSV and TSV
/// columns typed from all their values, and each input surveyed once
/// (its schema, a Parquet file's layout, its footer when `keep` says):
/// every CSV and TSV input is read once here, before the shuffle reads it
/// again.
pub(crate) fn common_schema(
    sources: &[Source],
    reading: Reading,
    keep: &mut dyn FnMut(&Footer) -> bool,
) -> Result<(SchemaRef, Vec<Surveyed>), Error> {
    for source in sources {
        let metadata =
            std::fs::metadata(&source.path).map_err(|e| Error::io_at(&source.path, &e))?;
        if !metadata.is_file() {
            return Err(Error::invalid(format!(
                "{}: --infer-types reads the inputs twice (once for the types): a pipe or \
                 device cannot be; save it to a file first",
                source.path.display()
            )));
        }
    }
    let types = infer(sources, reading)?;
    let mut surveyed = source::survey_all(sources, keep)?;
    for (source, Surveyed { schema, .. }) in sources.iter().zip(&mut surveyed) {
        if !matches!(source.format, Format::Csv(_)) {
            continue;
        }
        let fields: Vec<_> = schema
            .fields()
            .iter()
            .map(|field| match types.get(field.name()) {
                Some(data_type) if field.data_type() == &DataType::Utf8 => {
                    Arc::new(field.as_ref().clone().with_data_type(data_type.clone()))
                }
                _ => field.clone(),
            })
            .collect();
        *schema = Arc::new(arrow::datatypes::Schema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        ));
    }
    let schemas = surveyed.iter().map(|s| s.schema.clone()).collect();
    Ok((source::merge_schemas(sources, schemas)?, surveyed))
}

/// The type of each column of the CSV and TSV inputs (by name), from every
/// value of all of them.
fn infer(sources: &[Source], reading: Reading) -> Result<HashMap<String, DataType>, Error> {
    let mut columns: HashMap<String, Candidates> = HashMap::new();
    let workers = crate::text_chunks::workers(reading.parallel_bytes, reading.batch_memory);
    for source in sources {
        if !matches!(source.format, Format::Csv(_)) {
            continue;
        }
        let opened = source::open_own(source, None, reading)?;
        let names: Vec<String> = opened
            .schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        for batch in opened.batches {
            let batch = batch?;
            // Each column's candidates after the batch's values, the
            // columns seen on several threads at once when the reading
            // allows them.
            let before: Vec<Candidates> = names
                .iter()
                .map(|name| *columns.entry(name.clone()).or_insert_with(Candidates::new))
                .collect();
            let see = |(mut candidates, column): (Candidates, &ArrayRef)| {
                if let Some(strings) = column.as_string_opt::<i32>() {
                    candidates.see(strings);
                }
                candidates
            };
            let seen: Vec<Candidates> = if workers > 1 {
                before
                    .into_par_iter()
                    .zip(batch.columns().par_iter())
                    .map(see)
                    .collect()
            } else {
                before.into_iter().zip(batch.columns()).map(see).collect()
            };
            for (name, candidates) in names.iter().zip(seen) {
                columns.insert(name.clone(), candidates);
            }
        }
        for name in &names {
            columns.entry(name.clone()).or_insert_with(Candidates::new);
        }
    }
    Ok(columns
        .into_iter()
        .map(|(name, candidates)| (name, candidates.data_type()))
        .collect())
}
