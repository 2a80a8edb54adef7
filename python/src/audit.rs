//! `knuffle.audit`: the command line's `knuffle audit` on shuffles held in
//! a 2-D array (one shuffle or deal per row), with the same tests, Holm
//! correction, verdict and power statements (`knuffle_lab::analysis`).

use knuffle_lab::analysis::{self, Analysis};
use knuffle_lab::audit::{SeenItems, check_deck_size, with_effect};
use knuffle_lab::stats::TestResult;
use knuffle_lab::tally::Tally;
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn invalid(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// Audits `rows` (each a permutation of `base..base+n`, or the first `k`
/// items of one when `n` is given) and returns the analysis as a dict.
#[pyfunction]
#[pyo3(signature = (rows, n, base, alpha, effect))]
pub fn audit_rows<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray2<'py, i64>,
    n: Option<usize>,
    base: i64,
    alpha: f64,
    effect: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = rows.shape().to_vec();
    let (trials, k) = (shape[0], shape[1]);
    let n = n.unwrap_or(k);
    // Before anything is allocated for n.
    check_deck_size(n as u64).map_err(|e| invalid(format!("n: {e}")))?;
    if trials == 0 {
        return Err(invalid("no shuffles to audit (perms has no rows)".into()));
    }
    if k > n {
        return Err(invalid(format!(
            "rows have {k} items but the universe size is n = {n}"
        )));
    }
    if n < 2 {
        return Err(invalid("a shuffle needs at least 2 items".into()));
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(invalid(format!(
            "alpha must be between 0 and 1, got {alpha}"
        )));
    }
    let rows = rows.as_array();
    let analysis = py.detach(|| -> Result<Analysis, String> {
        let mut tally = if k == n {
            Tally::new(n)
        } else {
            Tally::new_deal(n, k)
        };
        let mut line = vec![0usize; k];
        let mut seen = SeenItems::new(n);
        for (index, row) in rows.outer_iter().enumerate() {
            for (slot, &value) in line.iter_mut().zip(row.iter()) {
                let item = value
                    .checked_sub(base)
                    .and_then(|v| usize::try_from(v).ok())
                    .filter(|&v| v < n)
                    .ok_or_else(|| {
                        format!(
                            "row {index}: {value} is outside {base}..={} (n = {n}, base = {base})",
                            base + n as i64 - 1
                        )
                    })?;
                if !seen.insert(index as u64, item) {
                    return Err(format!(
                        "row {index}: {value} appears more than once: not a permutation"
                    ));
                }
                *slot = item;
            }
            tally.add_deal(&line);
        }
        Ok(with_effect(analysis::analyze(&tally, alpha), effect))
    });
    let analysis = analysis.map_err(invalid)?;
    to_dict(py, &analysis)
}

/// The tests as dicts (`AuditTest` fields), for `knuffle.audit` and
/// `knuffle.audit_order`.
pub(crate) fn test_dicts<'py>(
    py: Python<'py>,
    tests: &[TestResult],
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    tests
        .iter()
        .map(|t| {
            let test = PyDict::new(py);
            test.set_item("name", &t.name)?;
            test.set_item("about", &t.about)?;
            test.set_item("statistic", t.statistic)?;
            test.set_item("dof", t.dof)?;
            test.set_item("p_value", t.p_value)?;
            test.set_item("adjusted_p", t.adjusted_p)?;
            Ok(test)
        })
        .collect()
}

fn to_dict<'py>(py: Python<'py>, a: &Analysis) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("n", a.n)?;
    d.set_item("k", a.k)?;
    d.set_item("trials", a.trials)?;
    d.set_item("alpha", a.alpha)?;
    d.set_item("tests", test_dicts(py, &a.tests)?)?;
    d.set_item("skipped", &a.skipped)?;
    d.set_item("orders_seen", a.orders_seen)?;
    d.set_item("order_count_sd", a.order_count_sd)?;
    d.set_item("power", &a.power)?;
    d.set_item("naive_swap_shuffles", a.naive_swap_shuffles)?;
    d.set_item("biased", a.biased())?;
    d.set_item("too_few_to_clear", a.too_few_to_clear())?;
    d.set_item("min_adjusted_p", a.min_adjusted_p())?;
    let positions = PyDict::new(py);
    positions.set_item("row_starts", &a.positions.row_starts)?;
    positions.set_item("col_starts", &a.positions.col_starts)?;
    positions.set_item("has_rest_column", a.positions.has_rest_column)?;
    positions.set_item("counts", &a.positions.counts)?;
    d.set_item("positions", positions)?;
    d.set_item("text", a.to_text())?;
    Ok(d)
}
