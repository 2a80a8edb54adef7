//! `knuffle._knuffle`: the Rust core of the `knuffle` Python package.
//!
//! The pure-Python package `knuffle` (python/knuffle) is the public API and
//! validates its arguments; this module holds the shuffles, which release
//! the GIL while they run.
//!
//! Workspace layer 4 (cli/python -> table -> records/lab/draw -> stats ->
//! library): bindings over the table library, the record library, the lab
//! and the library.

mod audit;
mod audit_order;
mod engines;
mod epoch;
mod files;
mod frame;
mod frame_objects;
mod generator;
mod rows;
mod sampling;
mod sampling_tables;
mod stream;
mod table;
mod threads;
mod weighted;

use pyo3::prelude::*;

#[pymodule]
fn _knuffle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<generator::Generator>()?;
    m.add_function(wrap_pyfunction!(audit::audit_rows, m)?)?;
    m.add_function(wrap_pyfunction!(audit_order::audit_order, m)?)?;
    m.add_function(wrap_pyfunction!(sampling::sample_paths, m)?)?;
    m.add_function(wrap_pyfunction!(sampling::split_paths, m)?)?;
    m.add("DEFAULT_THREADS", threads::DEFAULT_THREADS)?;
    // The table order (python/src/table.rs), used by the engines' modules.
    table::register(m)?;
    engines::register(m)?; // the engines' per-partition steps (python/src/engines.rs)
    frame::register(m)?; // shuffle_frame's column gathers (python/src/frame.rs)
    frame_objects::register(m)?; // and its columns of Python objects
    stream::register(m)?; // stream_table (python/src/stream.rs)
    epoch::register(m)?; // knuffle.epoch_order (python/src/epoch.rs)
    Ok(())
}
