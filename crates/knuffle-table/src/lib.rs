//! Shuffle the rows of tables (Parquet, Arrow IPC, CSV, JSON Lines) exactly
//! uniformly, in bounded memory, in **the table order**: the one order that
//! `knuffle table`, `knuffle.dask`, `knuffle.spark` and `knuffle.ray` give
//! the same rows for the same seed (docs/table-order.md).
//!
//! # Layers
//!
//! Workspace layer 3 (cli/python -> table -> records/lab/draw -> stats ->
//! library): this crate uses the record library (the rule for written
//! files, the memory budget) and the library.
//!
//! 1. `order`: the table order (labels, ties, the reference permutation).

mod order;

pub use order::{LABELS, TableOrder, VERSION, table_order};
