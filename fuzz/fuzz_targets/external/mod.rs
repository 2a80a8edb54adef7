//! knuffle-cli's `external::memory` (what `--memory` parsing needs).

#[path = "../../../crates/knuffle-cli/src/external/memory.rs"]
mod memory;
pub use memory::{MIN_LIMIT, parse_size};
