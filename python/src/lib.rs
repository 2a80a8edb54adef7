//! `knuffle._knuffle`: the Rust core of the `knuffle` Python package.
//!
//! The pure-Python wrapper `knuffle/__init__.py` is the public API; this
//! module holds the shuffles, which release the GIL while they run.

mod dask;
mod generator;

use pyo3::prelude::*;

#[pymodule]
fn _knuffle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<generator::Generator>()?;
    // Dask helpers (issue 17) register themselves here:
    dask::register(m)?;
    Ok(())
}
