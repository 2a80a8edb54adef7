//! `knuffle.audit_order`: the command line's `knuffle audit --order` on an
//! order held in a numpy array (`knuffle_lab::order_audit`): the same tests,
//! Holm correction, verdict, likely causes, and optionally the HTML page.

use knuffle_lab::order_audit::{OrderAuditInput, audit_order as audit};
use knuffle_lab::order_report::order_report_html;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::audit::test_dicts;

fn invalid(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// Shard numbers as `u32` (the audit's type), or which one is not.
fn shard_numbers(shards: &[i64]) -> Result<Vec<u32>, String> {
    shards
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            u32::try_from(s).map_err(|_| {
                format!("shard_of[{i}] = {s}: shard numbers must be integers in 0..2**32")
            })
        })
        .collect()
}

/// Audits `order` (the row at each position, rows `0..n`) and returns the
/// outcome as a dict (with the HTML page when `html`).
#[pyfunction]
#[pyo3(signature = (order, n, shard_of, previous, alpha, html))]
pub fn audit_order<'py>(
    py: Python<'py>,
    order: PyReadonlyArray1<'py, i64>,
    n: Option<u64>,
    shard_of: Option<PyReadonlyArray1<'py, i64>>,
    previous: Option<PyReadonlyArray1<'py, i64>>,
    alpha: f64,
    html: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let order = order.as_slice()?;
    let previous = previous.as_ref().map(|p| p.as_slice()).transpose()?;
    let shards = shard_of.as_ref().map(|s| s.as_slice()).transpose()?;
    let n = n.unwrap_or(order.len() as u64);
    let outcome = py.detach(|| -> Result<_, String> {
        let shards = shards.map(shard_numbers).transpose()?;
        let input = OrderAuditInput {
            order,
            n,
            shard_of: shards.as_deref(),
            previous,
            alpha,
        };
        let report = audit(&input)?;
        let page = if html {
            Some(order_report_html(&report).map_err(|e| format!("cannot draw the report: {e}"))?)
        } else {
            None
        };
        Ok((report, page))
    });
    let (report, page) = outcome.map_err(invalid)?;
    let d = PyDict::new(py);
    d.set_item("n", report.n)?;
    d.set_item("length", report.length)?;
    d.set_item("alpha", report.alpha)?;
    d.set_item("verdict", report.verdict())?;
    d.set_item("biased", report.biased())?;
    d.set_item("min_adjusted_p", report.min_adjusted_p())?;
    d.set_item("tests", test_dicts(py, &report.tests)?)?;
    d.set_item("skipped", &report.skipped)?;
    d.set_item("causes", &report.causes)?;
    let check = &report.permutation;
    let permutation = PyDict::new(py);
    permutation.set_item("missing", check.missing)?;
    permutation.set_item("repeated", check.repeated)?;
    permutation.set_item("first_missing", &check.first_missing)?;
    permutation.set_item("first_repeated", check.first_repeated.clone())?;
    d.set_item("permutation", permutation)?;
    d.set_item("text", report.to_text())?;
    d.set_item("html", page)?;
    Ok(d)
}
