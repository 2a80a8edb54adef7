//! No code. This crate's dependencies list, for the third-party libraries
//! that knuffle's builds share, the union of the features those builds turn
//! on, so that the binary, the test build and the Python extension compile
//! each of them (and Arrow and Parquet above them) once: see Cargo.toml.
//!
//! Workspace layer 0 (it depends on no knuffle crate; knuffle-cli and the
//! Python extension depend on it).
#![no_std]
