//! # knuffle-lab: the bias lab
//!
//! Shows, with exact numbers, p-values and pictures, whether a shuffler is
//! biased: knuffle's own algorithms, the classic wrong ones, or anybody
//! else's (through [`audit`]).
//!
//! * [`zoo`]: the algorithms, observable step by step ([`zoo::Observer`]).
//! * [`choices`]: where an algorithm's random choices come from.
pub mod analysis;
pub mod audit;
pub mod cards;
pub mod choices;
pub mod exact;
pub mod experiment;
pub mod perm;
pub mod ratio;
pub mod report;
pub mod sample;
pub mod stats;
pub mod tally;
pub mod zoo;
