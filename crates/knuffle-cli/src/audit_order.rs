//! `knuffle audit --order FILE`: is one long order (a data loader's epoch)
//! a fair shuffle? The files are read ([`knuffle_lab::order_input`]), the
//! order audited ([`knuffle_lab::order_audit`]), the report printed and,
//! with `--report`, its HTML page written ([`knuffle_lab::order_report`]).
//!
//! Exit status as `knuffle audit`: 0 no bias found, 1 biased or not a
//! permutation, 2 trouble (a file unreadable, not numbers, a value not
//! below n, an empty file).

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use knuffle_lab::order_audit::{MAX_ROWS, OrderAuditInput, audit_order};
use knuffle_lab::order_input::{Format, count_lines, read_numbers};
use knuffle_lab::order_report::order_report_html;
use knuffle_lab::order_scan::first_out_of_range;

use crate::failure::os_error_text;

/// What `--order` audits.
pub(crate) struct OrderArgs<'a> {
    pub order: &'a Path,
    pub n: Option<u64>,
    pub shards: Option<&'a PathBuf>,
    pub previous: Option<&'a PathBuf>,
    pub report: Option<&'a PathBuf>,
    pub alpha: f64,
}

/// Reads one file of numbers (`-`: standard input); a text file's lines are
/// counted first so that the numbers are stored once, without regrowing.
fn read_file(path: &Path) -> Result<(Vec<u32>, Format), String> {
    let name = path.display();
    let fail = |e: std::io::Error| format!("{name}: {}", os_error_text(&e));
    let read = |reader: Box<dyn Read>, capacity| {
        read_numbers(reader, capacity).map_err(|e| format!("{name}: {e}"))
    };
    if path.as_os_str() == "-" {
        return read(Box::new(std::io::stdin().lock()), 0);
    }
    let mut head = [0u8; 6];
    let mut file = File::open(path).map_err(fail)?;
    let got = file.read(&mut head).map_err(fail)?;
    let capacity = if &head[..got] == b"\x93NUMPY" {
        0
    } else {
        count_lines(BufReader::new(File::open(path).map_err(fail)?))
            .map_err(|e| format!("{name}: {e}"))?
    };
    read(
        Box::new(BufReader::with_capacity(
            1 << 20,
            File::open(path).map_err(fail)?,
        )),
        capacity,
    )
}

/// Refuses a value not below `n`, naming the file and the line (or element).
fn check_range(
    path: &Path,
    values: &[u32],
    format: Format,
    n: u64,
    hint: &str,
) -> Result<(), String> {
    match first_out_of_range(values, n) {
        Some((index, value)) => Err(format!(
            "{}: {}: {value} is not a row number below n = {n}{hint}",
            path.display(),
            format.place(index)
        )),
        None => Ok(()),
    }
}

/// Runs the audit of one order; `Ok(true)` when biased or not a permutation.
pub(crate) fn audit(args: &OrderArgs<'_>) -> Result<bool, String> {
    if let Some(n) = args.n
        && n > MAX_ROWS
    {
        return Err(format!(
            "--n {n} is too large: at most {MAX_ROWS} rows (2^32; rows are numbered with 32-bit integers)"
        ));
    }
    if let Some(report) = args.report {
        knuffle_io::check_writable(report).map_err(|e| e.to_string())?;
    }
    let (order, format) = read_file(args.order)?;
    let n = args.n.unwrap_or(order.len() as u64);
    let hint = if args.n.is_none() {
        " (n is the number of rows in the file unless --n gives it; are the rows numbered from 1?)"
    } else {
        ""
    };
    check_range(args.order, &order, format, n, hint)?;
    let shards = match args.shards {
        Some(path) => {
            let (shards, _) = read_file(path)?;
            if shards.len() as u64 != n {
                return Err(format!(
                    "{}: {} shard numbers, but there are n = {n} rows (one shard number a row, in row order)",
                    path.display(),
                    shards.len()
                ));
            }
            Some(shards)
        }
        None => None,
    };
    let previous = match args.previous {
        Some(path) => {
            let (previous, format) = read_file(path)?;
            if previous.len() as u64 != n {
                return Err(format!(
                    "{}: {} rows, but this epoch's order has n = {n}",
                    path.display(),
                    previous.len()
                ));
            }
            check_range(path, &previous, format, n, "")?;
            Some(previous)
        }
        None => None,
    };
    let input = OrderAuditInput {
        order: &order,
        n,
        shard_of: shards.as_deref(),
        previous: previous.as_deref(),
        alpha: args.alpha,
    };
    let report = audit_order(&input).map_err(|e| match args.previous {
        Some(path) if e.starts_with("the previous order") => format!("{}: {e}", path.display()),
        _ => format!("{}: {e}", args.order.display()),
    })?;
    drop((order, shards, previous));
    let mut out = std::io::stdout().lock();
    let write_err = |e: std::io::Error| format!("cannot write the output: {}", os_error_text(&e));
    write!(out, "{}", report.to_text()).map_err(write_err)?;
    if let Some(path) = args.report {
        let page =
            order_report_html(&report).map_err(|e| format!("cannot draw the report: {e}"))?;
        knuffle_io::write_file(path, page.as_bytes()).map_err(|e| e.to_string())?;
        writeln!(out, "report: {}", path.display()).map_err(write_err)?;
    }
    Ok(report.biased())
}
