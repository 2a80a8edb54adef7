//! The plan of a sample or a split: what the options and the kinds of the
//! inputs decide before any record is read, as pure functions tested by
//! table ([`reads`], [`copies`]); the inputs' kinds are gathered once,
//! from their metadata (`input_kind`).
//!
//! What is decided while reading (whether the records held still fit
//! `--memory`, and so whether a shuffle of every record goes to sorted
//! runs or `-r -n K` to a second pass) is each mode's own, against the
//! budget of `output`.

use std::ffi::OsString;

use crate::input_kind::InputKind;
use crate::options::Mode;

/// How many times a mode may read its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Once, as they come.
    Once,
    /// Twice when the records do not fit `--memory` (`-r -n K`: a pass
    /// to count, then one to collect the draws); inputs that cannot be
    /// read twice are copied first ([`copies`]).
    TwiceBeyondMemory,
    /// Twice always (a split of exact sizes counts, then assigns).
    Twice,
}

/// How `mode` reads its inputs.
pub(crate) fn reads(mode: &Mode) -> Reads {
    match mode {
        Mode::Replacement { count: Some(_), .. } => Reads::TwiceBeyondMemory,
        _ => Reads::Once,
    }
}

/// Which inputs (indices into `inputs`, each name once) are copied to
/// temporary files before a mode that `reads` them more than once starts:
/// standard input and streams. Unopenable inputs are left for the read to
/// report, regular files are read where they are.
pub(crate) fn copies(reads: Reads, inputs: &[(OsString, InputKind)]) -> Vec<usize> {
    if reads == Reads::Once {
        return Vec::new();
    }
    let mut chosen: Vec<usize> = Vec::new();
    for (i, (name, kind)) in inputs.iter().enumerate() {
        let once_only = matches!(kind, InputKind::Stdin | InputKind::Stream);
        if once_only && !chosen.iter().any(|&c| inputs[c].0 == *name) {
            chosen.push(i);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::FieldName;
    use crate::probability::Probability;

    #[test]
    fn only_a_sample_with_replacement_of_k_may_read_twice() {
        let field = || FieldName::Number(1);
        let half = || Probability::parse("1/2").unwrap();
        let table = [
            (Mode::Uniform { count: None }, Reads::Once),
            (Mode::Uniform { count: Some(5) }, Reads::Once),
            (Mode::Bernoulli(half()), Reads::Once),
            (
                Mode::Weighted {
                    field: field(),
                    count: None,
                },
                Reads::Once,
            ),
            (
                Mode::Distinct {
                    fields: vec![field()],
                    probability: half(),
                },
                Reads::Once,
            ),
            (
                Mode::Stratified {
                    fields: vec![field()],
                    per_key: 2,
                },
                Reads::Once,
            ),
            (
                Mode::Replacement {
                    field: None,
                    count: None,
                },
                Reads::Once,
            ),
            (
                Mode::Replacement {
                    field: Some(field()),
                    count: Some(3),
                },
                Reads::TwiceBeyondMemory,
            ),
        ];
        for (mode, expected) in table {
            assert_eq!(reads(&mode), expected, "{mode:?}");
        }
    }

    #[test]
    fn streams_and_standard_input_are_copied_once_each() {
        use InputKind::{Regular, Stdin, Stream, Unopenable};
        let inputs = |kinds: &[(&str, InputKind)]| -> Vec<(OsString, InputKind)> {
            kinds.iter().map(|(n, k)| (OsString::from(n), *k)).collect()
        };
        // How often read, the inputs, the indices copied.
        type Row = (Reads, Vec<(OsString, InputKind)>, Vec<usize>);
        let table: [Row; 7] = [
            (Reads::Once, inputs(&[("-", Stdin), ("p", Stream)]), vec![]),
            (
                Reads::Twice,
                inputs(&[("a", Regular), ("b", Regular)]),
                vec![],
            ),
            (Reads::Twice, inputs(&[("-", Stdin)]), vec![0]),
            (
                Reads::TwiceBeyondMemory,
                inputs(&[("a", Regular), ("p", Stream), ("-", Stdin)]),
                vec![1, 2],
            ),
            // A name given twice is copied once.
            (Reads::Twice, inputs(&[("-", Stdin), ("-", Stdin)]), vec![0]),
            (
                Reads::Twice,
                inputs(&[("p", Stream), ("a", Regular), ("p", Stream)]),
                vec![0],
            ),
            // A missing file is for the read to report.
            (Reads::Twice, inputs(&[("gone", Unopenable)]), vec![]),
        ];
        for (reads, inputs, expected) in table {
            assert_eq!(copies(reads, &inputs), expected, "{reads:?} {inputs:?}");
        }
    }
}
