//! knuffle-cli's shuf-mode option parsing, compiled from its sources.

#[path = "../../../crates/knuffle-cli/src/shuf/errors.rs"]
pub mod errors;
#[path = "../../../crates/knuffle-cli/src/shuf/memory_option.rs"]
pub mod memory_option;
#[path = "../../../crates/knuffle-cli/src/shuf/options.rs"]
pub mod options;
#[path = "../../../crates/knuffle-cli/src/shuf/quote.rs"]
pub mod quote;
