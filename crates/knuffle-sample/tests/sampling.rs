//! `knuffle_sample` as a library: the same bytes to a writer and
//! to a file, a split's exact sizes, and errors of the kind a caller acts
//! on (invalid options, bad data, I/O), with nothing written on failure.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use knuffle_sample::{
    Destination, FieldName, Framing, Mode, Parts, Probability, SampleErrorKind, SampleOptions,
    SplitOptions, sample, split,
};

fn input(dir: &Path, name: &str, text: &str) -> OsString {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.into_os_string()
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("{i}\t{}\n", i % 3)).collect()
}

#[test]
fn a_writer_and_a_file_get_the_same_sample() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [input(dir.path(), "in.tsv", &numbered(100))];
    let modes = [
        Mode::Uniform { count: Some(7) },
        Mode::Bernoulli(Probability::parse("1/4").unwrap()),
        Mode::Weighted {
            field: FieldName::Number(1),
            count: Some(5),
        },
        Mode::Distinct {
            fields: vec![FieldName::Number(2)],
            probability: Probability::parse("0.5").unwrap(),
        },
    ];
    for mode in modes {
        let options = SampleOptions::new(mode, "lib");
        let mut bytes = Vec::new();
        sample(
            &inputs,
            &options,
            Destination::Writer(&mut bytes),
            &mut |_| {},
        )
        .unwrap();
        let out = dir.path().join("out.tsv");
        sample(&inputs, &options, Destination::File(&out), &mut |_| {}).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), bytes, "{:?}", options.mode);
        assert!(!bytes.is_empty());
    }
}

#[test]
fn errors_have_the_kind_a_caller_acts_on() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [input(dir.path(), "in.tsv", "a\tb\nc\n")];
    let bad = Probability::parse("3/2").unwrap_err();
    assert_eq!(bad.kind(), SampleErrorKind::Invalid);
    let keyed = SampleOptions::new(
        Mode::Distinct {
            fields: vec![FieldName::Number(2)],
            probability: Probability::parse("1").unwrap(),
        },
        "s",
    );
    let out = dir.path().join("out");
    std::fs::write(&out, "kept\n").unwrap();
    let error = sample(&inputs, &keyed, Destination::File(&out), &mut |_| {}).unwrap_err();
    assert_eq!(error.kind(), SampleErrorKind::Data, "{error}");
    assert!(error.message().contains("line 2"), "{error}");
    assert_eq!(std::fs::read(&out).unwrap(), b"kept\n", "never truncated");
    let missing = [dir.path().join("missing").into_os_string()];
    let uniform = SampleOptions::new(Mode::Uniform { count: None }, "s");
    let error = sample(
        &missing,
        &uniform,
        Destination::Writer(&mut io::sink()),
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(error.kind(), SampleErrorKind::Io(io::ErrorKind::NotFound));
    let mut csv_tab = SampleOptions::new(Mode::Uniform { count: None }, "s");
    csv_tab.framing = Framing::Csv;
    csv_tab.delimiter = b'\n';
    let error = sample(
        &inputs,
        &csv_tab,
        Destination::Writer(&mut io::sink()),
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(error.kind(), SampleErrorKind::Invalid);
}

#[test]
fn a_split_has_exact_sizes_and_one_output_per_part() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [input(dir.path(), "in.tsv", &numbered(23))];
    let options = SplitOptions::new(Parts::parse("0.6,0.2,0.2").unwrap(), "lib");
    let paths: Vec<_> = (0..3).map(|j| dir.path().join(format!("p{j}"))).collect();
    let outputs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    split(&inputs, &options, &outputs).unwrap();
    let sizes: Vec<usize> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
        .collect();
    // 13.8, 4.6, 4.6: floors 13, 4, 4, the two left over to the largest
    // remainders (0.8, then 0.6 and 0.6: the earlier part).
    assert_eq!(sizes, [14, 5, 4]);
    let error = split(&inputs, &options, &outputs[..2]).unwrap_err();
    assert_eq!(error.kind(), SampleErrorKind::Invalid);
    let again = dir.path().join(".").join("p0");
    let error = split(&inputs, &options, &[outputs[0], outputs[1], &again]).unwrap_err();
    assert!(error.message().contains("given twice"), "{error}");
    let absent = dir.path().join("none").join("p");
    let error = split(&inputs, &options, &[outputs[0], outputs[1], &absent]).unwrap_err();
    assert!(matches!(error.kind(), SampleErrorKind::Io(_)), "{error}");
    assert!(error.message().contains("none"), "{error}");
}
