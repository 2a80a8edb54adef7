//! A sample of tables, run: the line options and the table plan made into
//! `knuffle_table::sample_table`'s, and its report printed.

use std::path::PathBuf;
use std::process::ExitCode;

use knuffle_sample::{Mode, RandomValues};
use knuffle_table::{Options, TableSample};

use super::args::Plan;
use super::tables::TablePlan;
use crate::failure::CliError;
use crate::table_jobs::table_error;

/// Samples the tables of `plan`.
pub fn run(plan: &Plan, table: &TablePlan) -> Result<ExitCode, CliError> {
    let options = &plan.options;
    if matches!(options.mode, Mode::Replacement { .. }) {
        return Err(CliError::invalid(
            "-r (with replacement) is for records of text, not tables",
        ));
    }
    if options.random_values != RandomValues::Off {
        return Err(CliError::invalid(
            "--print-random and --gen-random-inorder are for records of text, not tables",
        ));
    }
    let inputs: Vec<PathBuf> = plan.files.iter().map(PathBuf::from).collect();
    let table_options = Options {
        seed: options.seed.clone(),
        memory: options.memory,
        temp_dir: options.temp_dir.clone(),
        format: table.format,
        output_format: table.output_format,
        count: None,
        compression: None,
        row_group_rows: None,
        infer_types: false,
    };
    let sample = TableSample {
        mode: options.mode.clone(),
        in_order: options.in_order,
        skip_bad_weights: options.skip_bad_weights,
    };
    let report = knuffle_table::sample_table(&inputs, &table.output, &table_options, &sample)
        .map_err(table_error)?;
    if report.skipped > 0 {
        eprintln!(
            "knuffle sample: note: {} row{} without a positive finite weight skipped \
             (--skip-bad-weights)",
            report.skipped,
            if report.skipped == 1 { "" } else { "s" }
        );
    }
    if let Some(seed) = &plan.seed_shown {
        eprintln!(
            "knuffle sample: --seed {seed}: {} rows in, {} rows out",
            report.rows_in, report.rows_out
        );
    }
    Ok(ExitCode::SUCCESS)
}
