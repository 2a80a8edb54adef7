//! The table order (docs/table-order.md), defined in the core library
//! (`knuffle::table_order`), where `knuffle sample` finds it too: the one
//! order of `knuffle table`, the engines and the epoch order.

pub use knuffle::table_order::{LABELS, RepeatedRow, TableOrder, VERSION, epoch_seed, table_order};
