//! knuffle's benchmarks against other shuffles (rand 0.8 and 0.9,
//! rip_shuffle), kept out of the library's dev-dependencies. The code is in
//! `benches/shuffle.rs`:
//!
//! ```text
//! cargo bench -p knuffle-benches --bench shuffle -- --quick
//! ```
//!
//! Measured figures, with the command, commit and machine of each run, are
//! in `BENCHMARKS.md` at the repository root.
//!
//! Workspace layer 5 (tools, above cli/python -> table -> records/lab/draw
//! -> stats -> library; checked by `crates/knuffle/tests/architecture.rs`).
